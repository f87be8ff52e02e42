import { useState } from 'preact/hooks';
import { api } from '../session.js';
import { html, Loading, ShownOnce, useLoad, when } from '../ui.js';

interface SigningSecret {
  id: string;
  created_at: string;
  revoked_at: string | null;
}

/**
 * Rotation with overlap: a new secret is created while the old one stays active, so every delivery carries a
 * signature for each; once receivers verify with the new one, the old one is revoked.
 */
export function WebhookSecretsPage() {
  const { data, error, reload } = useLoad(() => api<{ results: SigningSecret[] }>('GET', 'webhook-secrets/'));
  const [created, setCreated] = useState<{ secret: string; replaces: string | null } | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const create = async (replaces: string | null) => {
    setMessage(null);
    try {
      const { secret } = await api<{ id: string; secret: string }>('POST', 'webhook-secrets/');
      setCreated({ secret, replaces });
      reload();
    } catch (e) {
      setMessage((e as Error).message);
    }
  };
  const revoke = async (id: string) => {
    if (!confirm('Revoke this signing secret? Deliveries stop carrying its signature.')) return;
    try {
      await api('DELETE', `webhook-secrets/${id}/`);
      setMessage('Signing secret revoked.');
      setCreated(null);
      reload();
    } catch (e) {
      setMessage((e as Error).message);
    }
  };
  return html`<section aria-labelledby="secrets-title">
    <h2 id="secrets-title">Webhook signing secrets</h2>
    <p class="muted">Webhooks are signed with every active secret (Standard Webhooks, one <code>v1,</code> signature each). Search, deep search, phone enrichment and agentic search need at least one.</p>
    <button type="button" onClick=${() => create(null)}>Create signing secret</button>
    ${created &&
    html`<${ShownOnce} label="Your new signing secret" value=${created.secret} onDone=${() => setCreated(null)} />
      ${created.replaces &&
      html`<p>Both secrets sign deliveries now. When your receivers use the new one,
        <button type="button" class="danger" onClick=${() => revoke(created.replaces!)}>Revoke the old secret</button></p>`}`}
    ${message && html`<p role="status">${message}</p>`}
    ${!data
      ? html`<${Loading} error=${error} />`
      : html`<div class="table-wrap"><table>
          <thead><tr><th scope="col">Secret</th><th scope="col">Created</th><th scope="col">Status</th><th scope="col"><span class="skip">Actions</span></th></tr></thead>
          <tbody>
            ${data.results.map(
              (s) => html`<tr data-secret-id=${s.id}>
                <td><code>${s.id}</code></td>
                <td>${when(s.created_at)}</td>
                <td>${s.revoked_at ? html`<span class="pill">Revoked ${when(s.revoked_at)}</span>` : html`<span class="pill">Active</span>`}</td>
                <td>${!s.revoked_at &&
                html`<div class="row">
                  <button type="button" class="secondary" aria-label=${`Rotate secret ${s.id}`} onClick=${() => create(s.id)}>Rotate</button>
                  <button type="button" class="danger" aria-label=${`Revoke secret ${s.id}`} onClick=${() => revoke(s.id)}>Revoke</button>
                </div>`}</td>
              </tr>`,
            )}
          </tbody>
        </table></div>`}
  </section>`;
}
