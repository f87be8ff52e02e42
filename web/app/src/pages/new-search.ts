import { useState } from 'preact/hooks';
import { api } from '../session.js';
import { html, Loading, useLoad } from '../ui.js';

export interface Prices {
  people_search_per_lead: number;
  deep_search: { standard: number; extended: number };
  agentic_search: { base: number; per_lead: number };
  sequence_per_draft: number;
}

type Kind = 'people' | 'deep' | 'agentic';

const ROUTE: Record<Kind, string> = { people: 'search/', deep: 'deep-search/', agentic: 'agentic-search/' };
const WEBHOOK_KEY = 'app.lastWebhookUrl';

interface Form {
  kind: Kind;
  query: string;
  max_results: number;
  mode: 'standard' | 'extended';
  target_results: number;
  max_credits: number;
  webhook_url: string;
}

/** What the search will cost, from the price list, in the words docs/decisions.md's billing model uses. */
export function quote(f: Form, p: Prices): { reserved: number; text: string } {
  if (f.kind === 'people') {
    const most = f.max_results * p.people_search_per_lead;
    return { reserved: most, text: `${p.people_search_per_lead} credit per lead returned: at most ${most} credits (${most} reserved now, the rest released when fewer leads come back; no leads cost nothing).` };
  }
  if (f.kind === 'deep') {
    const price = p.deep_search[f.mode];
    return { reserved: price, text: `${price} credits for a successful ${f.mode} run, whatever it returns (reserved now; released if the run fails).` };
  }
  return {
    reserved: f.max_credits,
    text: `At most ${f.max_credits} credits (your cap, reserved now): ${p.agentic_search.base} for a completed run plus ${p.agentic_search.per_lead} per lead, never above the cap; the rest is released.`,
  };
}

/** Start a people, deep or agentic search: the form, then the price to confirm, then the job's page. */
export function NewSearchPage() {
  const prices = useLoad(() => api<Prices>('GET', 'prices/'));
  const [form, setForm] = useState<Form>({ kind: 'people', query: '', max_results: 25, mode: 'standard', target_results: 50, max_credits: 500, webhook_url: localStorage.getItem(WEBHOOK_KEY) ?? '' });
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  // One key per confirmed form: a double click or a retry after a lost answer starts (and charges) one job.
  const [idempotencyKey, setIdempotencyKey] = useState(() => crypto.randomUUID());
  if (!prices.data) return html`<${Loading} error=${prices.error} />`;
  const set = (k: keyof Form, numeric = false) => (e: Event) => {
    const v = (e.target as HTMLInputElement).value;
    setForm({ ...form, [k]: numeric ? Number(v) : v });
    setConfirming(false);
    setIdempotencyKey(crypto.randomUUID());
  };
  const q = quote(form, prices.data);
  const body = () => {
    const common = { query: form.query, webhook_url: form.webhook_url };
    if (form.kind === 'people') return { ...common, max_results: form.max_results };
    if (form.kind === 'deep') return { ...common, mode: form.mode };
    return { ...common, target_results: form.target_results, max_credits: form.max_credits };
  };
  const review = (e: Event) => {
    e.preventDefault();
    setError(null);
    setConfirming(true);
  };
  const start = async () => {
    setBusy(true);
    setError(null);
    try {
      const job = await api<{ id: string }>('POST', ROUTE[form.kind], body(), { 'idempotency-key': idempotencyKey });
      localStorage.setItem(WEBHOOK_KEY, form.webhook_url);
      location.hash = `#/jobs/${job.id}`;
    } catch (err) {
      setError((err as Error).message);
      setConfirming(false);
    } finally {
      setBusy(false);
    }
  };
  return html`<section aria-labelledby="new-search-title">
    <h2 id="new-search-title">New search</h2>
    <form onSubmit=${review}>
      <div class="field"><label for="s-kind">Kind</label>
        <select id="s-kind" value=${form.kind} onChange=${set('kind')}>
          <option value="people">People search — light, priced per lead</option>
          <option value="deep">Deep search — researched shortlist, fixed price</option>
          <option value="agentic">Agentic search — evidence per lead, capped</option>
        </select></div>
      <div class="field"><label for="s-query">Who are you looking for?</label>
        <textarea id="s-query" rows="3" required maxlength=${form.kind === 'agentic' ? 2000 : 500} value=${form.query} onInput=${set('query')}></textarea></div>
      ${form.kind === 'people' && html`<div class="field"><label for="s-max">Most leads (25 to 100)</label><input id="s-max" type="number" min="25" max="100" required value=${form.max_results} onInput=${set('max_results', true)} /></div>`}
      ${form.kind === 'deep' && html`<div class="field"><label for="s-mode">Mode</label>
        <select id="s-mode" value=${form.mode} onChange=${set('mode')}><option value="standard">Standard (~25 leads)</option><option value="extended">Extended (~100 leads)</option></select></div>`}
      ${form.kind === 'agentic' &&
      html`<div class="row">
        <div class="field"><label for="s-target">Target leads (1 to 50)</label><input id="s-target" type="number" min="1" max="50" required value=${form.target_results} onInput=${set('target_results', true)} /></div>
        <div class="field"><label for="s-cap">Credit cap (300 to 2,000)</label><input id="s-cap" type="number" min="300" max="2000" required value=${form.max_credits} onInput=${set('max_credits', true)} /></div>
      </div>`}
      <div class="field"><label for="s-webhook">Webhook URL for the result</label>
        <input id="s-webhook" type="url" required maxlength="2048" placeholder="https://example.com/hooks/search" value=${form.webhook_url} onInput=${set('webhook_url')} />
        <p class="muted">The result is also on the job's page here. Deliveries are signed with your active signing secret (Signing secrets page).</p></div>
      <p data-testid="search-price"><strong>Price:</strong> ${q.text}</p>
      ${!confirming && html`<button type="submit">Review price</button>`}
    </form>
    ${confirming &&
    html`<div class="confirm" role="group" aria-labelledby="confirm-search">
      <p id="confirm-search">Start this search? <strong>${q.reserved} credits</strong> are reserved now.</p>
      <div class="row">
        <button type="button" disabled=${busy} onClick=${start}>Start search (${q.reserved} credits reserved)</button>
        <button type="button" class="secondary" onClick=${() => setConfirming(false)}>Change</button>
      </div>
    </div>`}
    ${error && html`<p class="error" role="alert">${error}</p>`}
  </section>`;
}
