import { api } from '../session.js';
import { html, Loading, useLoad, when } from '../ui.js';
import type { Charge } from './credits.js';
import { operationName } from '../operations.js';

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
  // Plot area inside room for the axis labels: the y axis (credits) on the left, the x axis (UTC days) below.
  const left = 56;
  const w = 600;
  const h = 160;
  const top = 10;
  const plot = w - left;
  const bar = plot / days.length;
  return html`<figure>
    <svg class="chart" viewBox="0 0 ${w} ${top + h + 44}" role="img" aria-label="Credits charged per day over the last ${days.length} days">
      ${days.map(
        (d, i) => html`<rect x=${left + i * bar + 1} y=${top + h - (d.credits / max) * h} width=${Math.max(1, bar - 2)} height=${(d.credits / max) * h}><title>${d.day}: ${d.credits} credits</title></rect>`,
      )}
      <line x1=${left} y1=${top + h} x2=${w} y2=${top + h} stroke="#4a4a4a" stroke-width="1" />
      <line x1=${left} y1=${top} x2=${left} y2=${top + h} stroke="#4a4a4a" stroke-width="1" />
      <text x=${left - 6} y=${top + 4} text-anchor="end" dominant-baseline="hanging">${max}</text>
      <text x=${left - 6} y=${top + h} text-anchor="end">0</text>
      <text x=${left} y=${top + h + 16}>${days[0]?.day}</text>
      <text x=${w} y=${top + h + 16} text-anchor="end">${days[days.length - 1]?.day}</text>
      <text data-testid="x-axis-label" x=${left + plot / 2} y=${top + h + 38} text-anchor="middle">Day (UTC)</text>
      <text data-testid="y-axis-label" x="14" y=${top + h / 2} text-anchor="middle" transform=${`rotate(-90 14 ${top + h / 2})`}>Credits charged</text>
    </svg>
    <figcaption class="muted">Credits charged per day (UTC), highest ${max}.</figcaption>
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
          <tbody>${data.recent_charges.map((c) => html`<tr><td>${when(c.created_at)}</td><td>${operationName(c.operation)}</td><td>${c.charge_status}</td><td>${c.charged}</td></tr>`)}</tbody>
        </table></div>`}
  </section>`;
}
