import { useState } from 'preact/hooks';
import { api } from '../session.js';
import { html, Loading, useLoad, when } from '../ui.js';
import { OPERATION_NAMES, operationName, STATUS_MEANING } from '../operations.js';

export interface Charge {
  id: string;
  operation: string;
  reference: string;
  reserved: number;
  charged: number;
  charge_status: string;
  created_at: string;
  settled_at: string | null;
  reason?: string;
}

const OPERATIONS = ['', ...Object.keys(OPERATION_NAMES)];
const STATUSES = ['', 'pending', 'charged', 'zero_result', 'released', 'lost_released'];

interface Filters {
  operation: string;
  status: string;
  from: string;
  to: string;
}

function queryOf(f: Filters, cursor: string | null): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(f)) if (v) q.set(k, v);
  if (cursor) q.set('cursor', cursor);
  const s = q.toString();
  return s ? `?${s}` : '';
}

export function CreditsPage() {
  const account = useLoad(() => api<{ balance: number; auto_recharge: boolean }>('GET', 'account/'));
  const [filters, setFilters] = useState<Filters>({ operation: '', status: '', from: '', to: '' });
  const [applied, setApplied] = useState<Filters>(filters);
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const page = cursors[cursors.length - 1] ?? null;
  const ledger = useLoad(() => api<{ results: Charge[]; next_cursor: string | null }>('GET', `charges/${queryOf(applied, page)}`));
  const [message, setMessage] = useState<string | null>(null);

  const toggle = async () => {
    try {
      await api('PATCH', 'account/', { auto_recharge: !account.data!.auto_recharge });
      setMessage(`Auto-recharge turned ${account.data!.auto_recharge ? 'off' : 'on'}.`);
      account.reload();
    } catch (e) {
      setMessage((e as Error).message);
    }
  };
  const apply = (e: Event) => {
    e.preventDefault();
    setApplied(filters);
    setCursors([null]);
    ledger.reload();
  };
  const set = (k: keyof Filters) => (e: Event) => setFilters({ ...filters, [k]: (e.target as HTMLInputElement).value });
  const go = (next: (string | null)[]) => {
    setCursors(next);
    ledger.reload();
  };

  return html`<section aria-labelledby="credits-title">
    <h2 id="credits-title">Credits</h2>
    ${!account.data
      ? html`<${Loading} error=${account.error} />`
      : html`<div class="cards">
          <div class="card"><div class="muted">Balance</div><div class="value">${account.data.balance.toLocaleString()}</div></div>
          <div class="card">
            <div class="muted" id="recharge-label">Auto-recharge</div>
            <p>When a call needs more than the balance, buy what it needs instead of refusing it (402).</p>
            <button type="button" role="switch" aria-checked=${account.data.auto_recharge ? 'true' : 'false'} aria-labelledby="recharge-label" onClick=${toggle}>
              ${account.data.auto_recharge ? 'On — turn off' : 'Off — turn on'}
            </button>
          </div>
        </div>`}
    ${message && html`<p role="status">${message}</p>`}
    <h3>Charge ledger</h3>
    <form class="row" onSubmit=${apply} aria-label="Filter the ledger">
      <div class="field"><label for="f-op">Operation</label>
        <select id="f-op" value=${filters.operation} onChange=${set('operation')}>${OPERATIONS.map((o) => html`<option value=${o}>${o ? operationName(o) : 'Any'}</option>`)}</select></div>
      <div class="field"><label for="f-status">Status</label>
        <select id="f-status" value=${filters.status} onChange=${set('status')}>${STATUSES.map((s) => html`<option value=${s}>${s || 'Any'}</option>`)}</select></div>
      <div class="field"><label for="f-from">From</label><input id="f-from" type="date" value=${filters.from} onInput=${set('from')} /></div>
      <div class="field"><label for="f-to">To</label><input id="f-to" type="date" value=${filters.to} onInput=${set('to')} /></div>
      <div class="field"><button type="submit">Apply</button></div>
    </form>
    ${!ledger.data
      ? html`<${Loading} error=${ledger.error} />`
      : html`<div class="table-wrap"><table data-testid="ledger">
            <thead><tr><th scope="col">When</th><th scope="col">Operation</th><th scope="col">Reference</th><th scope="col">Status</th><th scope="col">Reserved</th><th scope="col">Charged</th><th scope="col">Why</th></tr></thead>
            <tbody>
              ${ledger.data.results.length === 0 && html`<tr><td colspan="7" class="muted">No charges match.</td></tr>`}
              ${ledger.data.results.map(
                (c) => html`<tr><td>${when(c.created_at)}</td><td>${operationName(c.operation)}</td><td><code>${c.reference}</code></td><td>${c.charge_status}</td><td>${c.reserved}</td><td>${c.charged}</td><td class="reason">${c.reason ?? STATUS_MEANING[c.charge_status] ?? ''}</td></tr>`,
              )}
            </tbody>
          </table></div>
          <div class="row">
            <button type="button" class="secondary" disabled=${cursors.length < 2} onClick=${() => go(cursors.slice(0, -1))}>Newer</button>
            <button type="button" class="secondary" disabled=${!ledger.data.next_cursor} onClick=${() => go([...cursors, ledger.data!.next_cursor])}>Older</button>
          </div>`}
  </section>`;
}
