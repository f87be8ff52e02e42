import { useState } from 'preact/hooks';
import { api } from '../session.js';
import { html, Loading, ShownOnce, useLoad, when } from '../ui.js';

interface ApiKey {
  id: string;
  prefix: string | null;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export function ApiKeysPage() {
  const { data, error, reload } = useLoad(() => api<{ results: ApiKey[] }>('GET', 'api-keys/'));
  const [created, setCreated] = useState<string | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const create = async () => {
    setMessage(null);
    try {
      setCreated((await api<{ key: string }>('POST', 'api-keys/')).key);
      reload();
    } catch (e) {
      setMessage((e as Error).message);
    }
  };
  const revoke = async (key: ApiKey) => {
    if (!confirm(`Revoke the key ${key.prefix ?? key.id}…? Calls with it stop working at once.`)) return;
    try {
      await api('DELETE', `api-keys/${key.id}/`);
      setMessage(`Key ${key.prefix ?? key.id}… revoked.`);
      reload();
    } catch (e) {
      setMessage((e as Error).message);
    }
  };
  return html`<section aria-labelledby="keys-title">
    <h2 id="keys-title">API keys</h2>
    <p class="muted">Send a key as the <code>x-api-key</code> header of the public API. Allow up to 60 seconds before a new key's first use.</p>
    <button type="button" onClick=${create}>Create API key</button>
    ${created && html`<${ShownOnce} label="Your new API key" value=${created} onDone=${() => setCreated(null)} />`}
    ${message && html`<p role="status">${message}</p>`}
    ${!data
      ? html`<${Loading} error=${error} />`
      : html`<div class="table-wrap"><table>
          <thead><tr><th scope="col">Key</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Status</th><th scope="col"><span class="skip">Actions</span></th></tr></thead>
          <tbody>
            ${data.results.map(
              (k) => html`<tr data-key-id=${k.id}>
                <td><code>${k.prefix ? `${k.prefix}…` : k.id}</code></td>
                <td>${when(k.created_at)}</td>
                <td>${when(k.last_used_at)}</td>
                <td>${k.revoked_at ? html`<span class="pill">Revoked ${when(k.revoked_at)}</span>` : html`<span class="pill">Active</span>`}</td>
                <td>${!k.revoked_at && html`<button type="button" class="danger" aria-label=${`Revoke key ${k.prefix ?? k.id}`} onClick=${() => revoke(k)}>Revoke</button>`}</td>
              </tr>`,
            )}
          </tbody>
        </table></div>`}
  </section>`;
}
