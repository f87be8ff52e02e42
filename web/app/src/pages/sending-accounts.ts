import { useState } from 'preact/hooks';
import { api } from '../session.js';
import { html, Loading, useLoad } from '../ui.js';

interface SendingAccount {
  id: string;
  email: string;
  type: string;
  connected: boolean;
  sending_enabled: boolean;
  daily_limit: number;
  sent_today: number;
  health: string;
  signature_html: string;
}

function SendingAccountEditor({ account, onSaved }: { account: SendingAccount; onSaved: (message: string) => void }) {
  const [limit, setLimit] = useState(String(account.daily_limit));
  const [signature, setSignature] = useState(account.signature_html);
  const [error, setError] = useState<string | null>(null);
  const patch = async (change: Record<string, unknown>, done: string) => {
    setError(null);
    try {
      await api('PATCH', `sending-accounts/${account.id}/`, change);
      onSaved(done);
    } catch (e) {
      setError((e as Error).message);
    }
  };
  const save = (e: Event) => {
    e.preventDefault();
    void patch({ daily_limit: Number(limit), signature_html: signature }, `Saved ${account.email}.`);
  };
  const id = account.id;
  return html`<article class="card" aria-labelledby=${`${id}-title`} data-sending-account=${id}>
    <h3 id=${`${id}-title`}>${account.email} <span class="pill">${account.type}</span></h3>
    <p>
      Health: <strong>${account.health}</strong> · ${account.connected ? 'Connected' : 'Needs reconnecting'} ·
      ${account.sending_enabled ? 'Sending' : 'Paused'} · sent today ${account.sent_today} of ${account.daily_limit}
    </p>
    <button type="button" class="secondary" onClick=${() => patch({ sending_enabled: !account.sending_enabled }, `${account.email} ${account.sending_enabled ? 'paused' : 'resumed'}.`)}>
      ${account.sending_enabled ? 'Pause sending' : 'Resume sending'}
    </button>
    <form onSubmit=${save}>
      <div class="field"><label for=${`${id}-limit`}>Daily limit</label>
        <input id=${`${id}-limit`} type="number" min="0" max="10000" required value=${limit} onInput=${(e: Event) => setLimit((e.target as HTMLInputElement).value)} /></div>
      <div class="field"><label for=${`${id}-signature`}>Signature (HTML)</label>
        <textarea id=${`${id}-signature`} rows="4" cols="40" maxlength="10000" value=${signature} onInput=${(e: Event) => setSignature((e.target as HTMLTextAreaElement).value)}></textarea></div>
      <button type="submit">Save</button>
      ${error && html`<p class="error" role="alert">${error}</p>`}
    </form>
  </article>`;
}

export function SendingAccountsPage() {
  const { data, error, reload } = useLoad(() => api<{ results: SendingAccount[] }>('GET', 'sending-accounts/'));
  const [message, setMessage] = useState<string | null>(null);
  const saved = (m: string) => {
    setMessage(m);
    reload();
  };
  return html`<section aria-labelledby="ea-title">
    <h2 id="ea-title">Sending accounts</h2>
    ${message && html`<p role="status">${message}</p>`}
    ${!data
      ? html`<${Loading} error=${error} />`
      : data.results.length === 0
        ? html`<p class="muted">No sending account is connected yet.</p>`
        : html`<div class="cards">${data.results.map((a) => html`<${SendingAccountEditor} key=${`${a.id}-${a.daily_limit}-${a.sending_enabled}`} account=${a} onSaved=${saved} />`)}</div>`}
  </section>`;
}
