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
      ${account.sending_enabled ? 'Sending' : 'Paused'} · sent today ${account.sent_today} of ${account.daily_limit} ·
      <a href=${`#/deliverability/${id}`}>Deliverability</a>
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

/** What the OAuth callback's `error=` means to the user (the callback logs the details for operators). */
const CONNECT_ERRORS: Record<string, string> = {
  invalid_state: 'That connection link has expired or was already used. Start again.',
  browser_mismatch: 'The connection was finished in a different browser from the one that started it. Start again here.',
  access_denied: 'Access to the mailbox was not granted.',
  invalid_grant: 'The provider refused the authorization. Start again.',
  unavailable: 'Connecting this kind of mailbox is not available.',
};

/**
 * The outcome the OAuth callback put in the page's query (`sending_account=ea_…` or `error=…`), read once and
 * removed from the address bar so a reload does not show it again.
 */
function takeConnectOutcome(): { connected: string | null; error: string | null } {
  const query = new URLSearchParams(location.search);
  const connected = query.get('sending_account');
  const error = query.get('error');
  if (connected || error) history.replaceState(null, '', `${location.pathname}${location.hash}`);
  return { connected, error: error ? (CONNECT_ERRORS[error] ?? 'The mailbox could not be connected. Start again.') : null };
}

function ConnectButtons() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const connect = async (type: 'google' | 'microsoft') => {
    setBusy(true);
    setError(null);
    try {
      // The answer also sets the cookie that binds this consent to this browser; the provider sends it back here.
      const { authorization_url } = await api<{ authorization_url: string }>('POST', 'sending-accounts/connect/', { type });
      location.assign(authorization_url);
    } catch (e) {
      setError((e as Error).message);
      setBusy(false);
    }
  };
  return html`<div class="row">
    <button type="button" disabled=${busy} onClick=${() => connect('google')}>Connect Google</button>
    <button type="button" disabled=${busy} onClick=${() => connect('microsoft')}>Connect Microsoft</button>
    ${error && html`<p class="error" role="alert">${error}</p>`}
  </div>`;
}

export function SendingAccountsPage() {
  const { data, error, reload } = useLoad(() => api<{ results: SendingAccount[] }>('GET', 'sending-accounts/'));
  const [outcome] = useState(takeConnectOutcome);
  const [message, setMessage] = useState<string | null>(null);
  const saved = (m: string) => {
    setMessage(m);
    reload();
  };
  const connected = outcome.connected ? data?.results.find((a) => a.id === outcome.connected) : undefined;
  return html`<section aria-labelledby="ea-title">
    <h2 id="ea-title">Sending accounts</h2>
    <${ConnectButtons} />
    ${connected && !message && html`<p role="status">Connected ${connected.email}.</p>`}
    ${outcome.error && html`<p class="error" role="alert">${outcome.error}</p>`}
    ${message && html`<p role="status">${message}</p>`}
    ${!data
      ? html`<${Loading} error=${error} />`
      : data.results.length === 0
        ? html`<p class="muted">No sending account is connected yet.</p>`
        : html`<div class="cards">${data.results.map((a) => html`<${SendingAccountEditor} key=${`${a.id}-${a.daily_limit}-${a.sending_enabled}`} account=${a} onSaved=${saved} />`)}</div>`}
  </section>`;
}
