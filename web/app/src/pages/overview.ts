import { api } from '../session.js';
import { html, Loading, useLoad, when } from '../ui.js';
import type { Charge } from './credits.js';

interface Overview {
  name: string;
  balance: number;
  auto_recharge: boolean;
  recent_charges: Charge[];
  credits_per_day: { day: string; credits: number }[];
}

/** Credits charged per day, as bars in inline SVG; the same numbers are in a table for screen readers. */
function CreditsChart({ days }: { days: Overview['credits_per_day'] }) {
  const max = Math.max(1, ...days.map((d) => d.credits));
  const w = 600;
  const h = 160;
  const bar = w / days.length;
  return html`<figure>
    <svg class="chart" viewBox="0 0 ${w} ${h + 20}" role="img" aria-label="Credits charged per day over the last ${days.length} days">
      ${days.map(
        (d, i) => html`<rect x=${i * bar + 1} y=${h - (d.credits / max) * h} width=${Math.max(1, bar - 2)} height=${(d.credits / max) * h}><title>${d.day}: ${d.credits} credits</title></rect>`,
      )}
      <line x1="0" y1=${h} x2=${w} y2=${h} stroke="#4a4a4a" stroke-width="1" />
      <text x="0" y=${h + 14}>${days[0]?.day}</text>
      <text x=${w} y=${h + 14} text-anchor="end">${days[days.length - 1]?.day}</text>
    </svg>
    <figcaption class="muted">Credits per day (UTC), highest ${max}.</figcaption>
  </figure>`;
}

export function OverviewPage() {
  const { data, error } = useLoad(() => api<Overview>('GET', 'account/'));
  if (!data) return html`<${Loading} error=${error} />`;
  return html`<section aria-labelledby="overview-title">
    <h2 id="overview-title">Overview — ${data.name}</h2>
    <div class="cards">
      <div class="card"><div class="muted">Balance</div><div class="value" data-testid="balance">${data.balance.toLocaleString()}</div><div class="muted">credits</div></div>
      <div class="card"><div class="muted">Auto-recharge</div><div class="value">${data.auto_recharge ? 'On' : 'Off'}</div></div>
    </div>
    <h3>Credits per day</h3>
    <${CreditsChart} days=${data.credits_per_day} />
    <h3>Recent charges</h3>
    ${data.recent_charges.length === 0
      ? html`<p class="muted">No charges yet.</p>`
      : html`<div class="table-wrap"><table>
          <thead><tr><th scope="col">When</th><th scope="col">Operation</th><th scope="col">Status</th><th scope="col">Credits</th></tr></thead>
          <tbody>${data.recent_charges.map((c) => html`<tr><td>${when(c.created_at)}</td><td>${c.operation}</td><td>${c.charge_status}</td><td>${c.charged}</td></tr>`)}</tbody>
        </table></div>`}
  </section>`;
}
