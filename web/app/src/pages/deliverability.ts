import { useState } from 'preact/hooks';
import { api } from '../session.js';
import { html, Loading, useLoad } from '../ui.js';

/** The counters of one UTC day, as GET sending-accounts/{ea_id}/deliverability/ answers them. */
interface Day {
  date: string;
  sent: number;
  delivered: number;
  bounced_hard: number;
  bounced_soft: number;
  complained: number;
  opened: number;
  replied: number;
  unsubscribed: number;
}

interface Account {
  id: string;
  email: string;
  daily_limit: number;
  configured_daily_limit: number;
  sent_today: number;
  health: string;
  warmup: { started_at: string; day: number; ramp_limit: number | null; complete: boolean };
  engagement: { window_days: number; sent: number; bounced_hard: number; complained: number; bounce_rate: number; complaint_rate: number };
}

interface DeliverabilityRecord {
  account: Account;
  days: Day[];
  next_cursor: string | null;
}

interface ListedAccount {
  id: string;
  email: string;
  type: string;
  daily_limit: number;
  health: string;
}

/** The table's columns, in order: the counter and its header. */
const COLUMNS: { key: Exclude<keyof Day, 'date'>; label: string }[] = [
  { key: 'sent', label: 'Sent' },
  { key: 'delivered', label: 'Delivered' },
  { key: 'bounced_hard', label: 'Hard bounces' },
  { key: 'bounced_soft', label: 'Soft bounces' },
  { key: 'complained', label: 'Complaints' },
  { key: 'opened', label: 'Opens' },
  { key: 'replied', label: 'Replies' },
  { key: 'unsubscribed', label: 'Unsubscribes' },
];

/** The chart's series: bars per day, side by side (bounces are hard and soft together). */
const SERIES: { key: string; label: string; word: string; of: (d: Day) => number }[] = [
  { key: 'sent', label: 'Sent', word: 'sent', of: (d) => d.sent },
  { key: 'bounced', label: 'Bounced (hard and soft)', word: 'bounced', of: (d) => d.bounced_hard + d.bounced_soft },
  { key: 'complained', label: 'Complaints', word: 'complained', of: (d) => d.complained },
  { key: 'replied', label: 'Replies', word: 'replied', of: (d) => d.replied },
];

const PAGE_SIZES = [7, 14, 30];
const percent = (rate: number) => rate.toLocaleString('en', { style: 'percent', maximumFractionDigits: 1 });
const nextDay = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);

/** Why today's limit is what it is, in words, from the health the route reports and the numbers behind it. */
function healthReason(a: Account): string {
  const e = a.engagement;
  switch (a.health) {
    case 'paused_complaints':
      return `Sending is paused: ${e.complained} complaints in the last ${e.window_days} days (${percent(e.complaint_rate)} of sends). It resumes when they leave the window.`;
    case 'throttled_bounces':
      return `The limit is halved: ${e.bounced_hard} hard bounces in the last ${e.window_days} days (${percent(e.bounce_rate)} of sends). It lifts when they leave the window.`;
    case 'warming_up':
      return `Warming up: day ${a.warmup.day} of the ramp allows ${a.warmup.ramp_limit ?? a.daily_limit} a day, below the configured ${a.configured_daily_limit}.`;
    case 'healthy':
      return `Nothing holds the limit below the configured ${a.configured_daily_limit} a day.`;
    case 'reauth_required':
      return 'The mailbox must be reconnected (Sending accounts page) before it can send.';
    default:
      return `The mailbox is ${a.health.replace(/_/g, ' ')}: it does not send until that changes.`;
  }
}

/** Every day from the page's oldest to its newest, oldest first; a day the record lacks had no event (all 0). */
function chartDays(days: Day[]): Day[] {
  if (days.length === 0) return [];
  const byDate = new Map(days.map((d) => [d.date, d]));
  const out: Day[] = [];
  const last = days[0]!.date;
  for (let day = days[days.length - 1]!.date; day <= last && out.length < 400; day = nextDay(day)) {
    out.push(byDate.get(day) ?? { date: day, sent: 0, delivered: 0, bounced_hard: 0, bounced_soft: 0, complained: 0, opened: 0, replied: 0, unsubscribed: 0 });
  }
  return out;
}

/**
 * Grouped bars per day in inline SVG (no chart library: the bundle stays small and the page's policy allows
 * no inline style, so colours come from app.css classes). The figure's text alternative sums the period; the
 * numbers of every day are in the table that follows it.
 */
function DeliverabilityChart({ days }: { days: Day[] }) {
  const all = chartDays(days);
  if (all.length === 0) return null;
  const w = 600;
  const h = 160;
  const max = Math.max(1, ...all.flatMap((d) => SERIES.map((s) => s.of(d))));
  const slot = Math.min(w / all.length, 80); // a few days do not stretch into slabs
  const bar = Math.max(1, (slot - 4) / SERIES.length);
  const totals = SERIES.map((s) => `${all.reduce((n, d) => n + s.of(d), 0)} ${s.word}`).join(', ');
  const summary = `From ${all[0]!.date} to ${all[all.length - 1]!.date}: ${totals}. Each day's numbers are in the table below.`;
  return html`<figure class="deliv-chart">
    <svg class="chart" viewBox="0 0 ${w} ${h + 20}" role="img" aria-labelledby="deliv-chart-title deliv-chart-desc">
      <title id="deliv-chart-title">Sends, bounces, complaints and replies per day</title>
      <desc id="deliv-chart-desc">${summary}</desc>
      ${all.map((d, i) =>
        SERIES.map((s, j) => {
          const v = s.of(d);
          const bh = (v / max) * h;
          return html`<rect class=${`s-${s.key}`} x=${i * slot + 2 + j * bar} y=${h - bh} width=${bar} height=${bh}><title>${d.date}: ${v} ${s.word}</title></rect>`;
        }),
      )}
      <line class="axis" x1="0" y1=${h} x2=${w} y2=${h} />
      <text x="0" y=${h + 14}>${all[0]!.date}</text>
      <text x=${w} y=${h + 14} text-anchor="end">${all[all.length - 1]!.date}</text>
      <text x=${w} y="10" text-anchor="end">${max}</text>
    </svg>
    <figcaption>
      <ul class="legend">${SERIES.map((s) => html`<li><span class=${`swatch s-${s.key}`} aria-hidden="true"></span>${s.label}</li>`)}</ul>
      <p class="muted" data-testid="deliv-chart-summary">${summary}</p>
    </figcaption>
  </figure>`;
}

function Summary({ a }: { a: Account }) {
  const stage = a.warmup.complete ? 'Complete' : `Day ${a.warmup.day}${a.warmup.ramp_limit !== null ? ` (the ramp allows ${a.warmup.ramp_limit} a day)` : ''}`;
  const e = a.engagement;
  return html`<dl class="facts" data-testid="deliv-summary">
    <dt>Health</dt><dd><strong data-testid="health">${a.health}</strong></dd>
    <dt>Why</dt><dd data-testid="health-reason">${healthReason(a)}</dd>
    <dt>Limit today</dt><dd><span data-testid="effective-limit">${a.daily_limit}</span> a day (configured <span data-testid="configured-limit">${a.configured_daily_limit}</span>); sent today ${a.sent_today}</dd>
    <dt>Warm-up</dt><dd data-testid="warmup-stage">${stage}</dd>
    <dt>Last ${e.window_days} days</dt><dd>${e.sent} sent, ${e.bounced_hard} hard bounces (${percent(e.bounce_rate)}), ${e.complained} complaints (${percent(e.complaint_rate)})</dd>
  </dl>`;
}

function AccountDeliverability({ id }: { id: string }) {
  const [form, setForm] = useState({ from: '', to: '', limit: '30' });
  const [applied, setApplied] = useState(form);
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const cursor = cursors[cursors.length - 1] ?? null;
  const query = () => {
    const q = new URLSearchParams();
    if (applied.from) q.set('from', applied.from);
    if (applied.to) q.set('to', applied.to);
    q.set('limit', applied.limit);
    if (cursor) q.set('cursor', cursor);
    return `?${q}`;
  };
  const record = useLoad(() => api<DeliverabilityRecord>('GET', `sending-accounts/${encodeURIComponent(id)}/deliverability/${query()}`));
  const go = (next: (string | null)[]) => {
    setCursors(next);
    record.reload();
  };
  const apply = (e: Event) => {
    e.preventDefault();
    setApplied(form);
    setCursors([null]);
    record.reload();
  };
  const set = (k: keyof typeof form) => (e: Event) => setForm({ ...form, [k]: (e.target as HTMLInputElement).value });
  const data = record.data;
  return html`<section aria-labelledby="deliv-title">
    <p><a href="#/deliverability">All sending accounts</a></p>
    <h2 id="deliv-title">Deliverability${data ? html` — ${data.account.email}` : ''}</h2>
    ${data && html`<${Summary} a=${data.account} />`}
    <form class="row" onSubmit=${apply} aria-label="Days shown">
      <div class="field"><label for="d-from">From (UTC day)</label><input id="d-from" type="date" value=${form.from} onInput=${set('from')} /></div>
      <div class="field"><label for="d-to">To (UTC day)</label><input id="d-to" type="date" value=${form.to} onInput=${set('to')} /></div>
      <div class="field"><label for="d-limit">Days per page</label>
        <select id="d-limit" value=${form.limit} onChange=${set('limit')}>${PAGE_SIZES.map((n) => html`<option value=${String(n)}>${n}</option>`)}</select></div>
      <div class="field"><button type="submit">Show</button></div>
    </form>
    <p class="muted">Without dates: the 30 days that end today (UTC).</p>
    ${!data
      ? html`<${Loading} error=${record.error} />`
      : html`${record.error && html`<p class="error" role="alert">${record.error}</p>`}
          <${DeliverabilityChart} days=${data.days} />
          <p class="muted">A day without any send or event is not listed (all its numbers are 0).</p>
          <div class="table-wrap"><table class="deliv-days" data-testid="deliverability-days">
            <caption class="muted">Per UTC day, newest first</caption>
            <thead><tr><th scope="col">Day</th>${COLUMNS.map((c) => html`<th scope="col">${c.label}</th>`)}</tr></thead>
            <tbody>
              ${data.days.length === 0 && html`<tr><td colspan=${COLUMNS.length + 1} class="muted">No sends or events in these days.</td></tr>`}
              ${data.days.map((d) => html`<tr data-day=${d.date}><th scope="row">${d.date}</th>${COLUMNS.map((c) => html`<td data-counter=${c.key}>${d[c.key]}</td>`)}</tr>`)}
            </tbody>
          </table></div>
          <div class="row">
            <button type="button" class="secondary" disabled=${cursors.length < 2} onClick=${() => go(cursors.slice(0, -1))}>Newer</button>
            <button type="button" class="secondary" disabled=${!data.next_cursor} onClick=${() => go([...cursors, data.next_cursor])}>Older</button>
          </div>`}
  </section>`;
}

function AccountList() {
  const { data, error } = useLoad(() => api<{ results: ListedAccount[] }>('GET', 'sending-accounts/'));
  return html`<section aria-labelledby="deliv-list-title">
    <h2 id="deliv-list-title">Deliverability</h2>
    <p>Per sending account: today's limit and why, and each day's sends, bounces, complaints, opens, replies and unsubscribes.</p>
    ${!data
      ? html`<${Loading} error=${error} />`
      : data.results.length === 0
        ? html`<p class="muted">No sending account is connected yet.</p>`
        : html`<div class="table-wrap"><table data-testid="deliv-accounts">
            <thead><tr><th scope="col">Mailbox</th><th scope="col">Health</th><th scope="col">Limit today</th></tr></thead>
            <tbody>${data.results.map((a) => html`<tr><td><a href=${`#/deliverability/${a.id}`}>${a.email}</a> <span class="pill">${a.type}</span></td><td>${a.health}</td><td>${a.daily_limit}</td></tr>`)}</tbody>
          </table></div>`}
  </section>`;
}

/** `#/deliverability` lists the sending accounts; `#/deliverability/<ea_id>` shows one account's record. */
export function DeliverabilityPage({ rest }: { rest?: string }) {
  return rest ? html`<${AccountDeliverability} key=${rest} id=${rest} />` : html`<${AccountList} />`;
}
