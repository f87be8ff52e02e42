import { useEffect, useState } from 'preact/hooks';
import { api } from '../session.js';
import { html, Loading, useLoad, when } from '../ui.js';
import { resultColumns, toCsv } from '../csv.js';
import { download } from '../download.js';
import { PENDING_CONTACTS_KEY } from './sequences.js';
import type { ContactIn } from './import-contacts.js';

interface JobRow {
  id: string;
  tier: string;
  status: string;
  created_at: string;
  completed_at: string | null;
  leads_returned: number | null;
  query: string | null;
  has_webhook: boolean;
  webhook_status: string | null;
}

interface Job {
  id: string;
  tier: string;
  status: string;
  created_at: string;
  completed_at: string | null;
  leads_returned: number | null;
  result: ({ results?: Record<string, unknown>[]; phone?: string | null } & Record<string, unknown>) | null;
  error: { code: string; message: string } | null;
  /** What the job was started with: the query and its options. */
  request?: Record<string, unknown>;
}

interface Attempt {
  attempt: number;
  at: string;
  status: number | null;
  error: string | null;
  duration_ms: number;
  next_retry_at: string | null;
}

const TIERS: Record<string, string> = { people_search: 'People search', deep_search: 'Deep search', agentic_search: 'Agentic search', phone_enrich: 'Phone lookup', bulk_enrich: 'Bulk enrichment' };
const RUNNING = ['pending', 'running'];
// Polling backoff while a job runs: from 1 s, half as long again each time, never more than 15 s apart.
const FIRST_POLL_MS = 1_000;
const MAX_POLL_MS = 15_000;

function JobList() {
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const cursor = cursors[cursors.length - 1] ?? null;
  const list = useLoad(() => api<{ results: JobRow[]; next_cursor: string | null }>('GET', `jobs/${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ''}`));
  const go = (next: (string | null)[]) => {
    setCursors(next);
    list.reload();
  };
  return html`<section aria-labelledby="jobs-title">
    <h2 id="jobs-title">Search jobs</h2>
    <p><a class="button" href="#/search">New search</a></p>
    ${!list.data
      ? html`<${Loading} error=${list.error} />`
      : html`<div class="table-wrap"><table data-testid="jobs">
            <thead><tr><th scope="col">Started</th><th scope="col">Kind</th><th scope="col">Query</th><th scope="col">Status</th><th scope="col">Results</th><th scope="col">Webhook</th></tr></thead>
            <tbody>
              ${list.data.results.length === 0 && html`<tr><td colspan="6" class="muted">No jobs yet.</td></tr>`}
              ${list.data.results.map(
                (j) => html`<tr>
                  <td><a href=${`#/jobs/${j.id}`}>${when(j.created_at)}</a></td>
                  <td>${TIERS[j.tier] ?? j.tier}</td>
                  <td>${j.query ?? html`<span class="muted">—</span>`}</td>
                  <td>${j.status}</td>
                  <td>${j.leads_returned ?? '—'}</td>
                  <td>${j.has_webhook ? (j.webhook_status ?? 'waiting') : html`<span class="muted">none</span>`}</td>
                </tr>`,
              )}
            </tbody>
          </table></div>
          <div class="row">
            <button type="button" class="secondary" disabled=${cursors.length < 2} onClick=${() => go(cursors.slice(0, -1))}>Newer</button>
            <button type="button" class="secondary" disabled=${!list.data.next_cursor} onClick=${() => go([...cursors, list.data!.next_cursor])}>Older</button>
          </div>`}
  </section>`;
}

/** The job, polled with backoff while it runs. */
function useJob(id: string): { job: Job | null; error: string | null } {
  const [job, setJob] = useState<Job | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async (wait: number) => {
      try {
        const next = await api<Job>('GET', `jobs/${id}/`);
        if (!live) return;
        setJob(next);
        setError(null);
        if (RUNNING.includes(next.status)) timer = setTimeout(() => poll(Math.min(wait * 1.5, MAX_POLL_MS)), wait);
      } catch (e) {
        if (live) setError((e as Error).message);
      }
    };
    void poll(FIRST_POLL_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [id]);
  return { job, error };
}

/** A profile URL as a link: results carry the bare-host form (docs/decisions.md), which a browser needs a scheme for. */
const profileLink = (url: unknown) => {
  if (typeof url !== 'string' || !url) return '';
  const href = /^https?:\/\//.test(url) ? url : `https://${url}`;
  return html`<a href=${href} rel="noopener noreferrer" target="_blank">${url}</a>`;
};

/** The result's people with an email, as contacts for a new sequence. */
function contactsOf(rows: Record<string, unknown>[]): ContactIn[] {
  return rows
    .filter((r) => typeof r.email === 'string' && r.email)
    .map((r) => {
      const [first = '', ...rest] = String(r.full_name ?? '').trim().split(/\s+/);
      const company = r.company as { name?: string } | undefined;
      const c: ContactIn = { email: String(r.email), first_name: String(r.first_name ?? first) };
      const last = String(r.last_name ?? rest.join(' '));
      if (last) c.last_name = last;
      if (company?.name) c.company_name = company.name;
      if (typeof r.professional_url === 'string' && r.professional_url) c.professional_url = r.professional_url;
      return c;
    });
}

function Results({ job }: { job: Job }) {
  if (job.error) return html`<p class="error" role="alert">${job.error.code}: ${job.error.message}</p>`;
  if (job.tier === 'phone_enrich') return html`<p>Phone: <strong>${job.result?.phone ?? 'no number found'}</strong></p>`;
  const rows = job.result?.results ?? [];
  const exportCsv = () => download(`${job.id}-${job.tier}.csv`, toCsv(resultColumns(job.tier, rows), rows));
  const contacts = contactsOf(rows);
  const toSequence = () => {
    sessionStorage.setItem(PENDING_CONTACTS_KEY, JSON.stringify(contacts));
    location.hash = '#/sequences/new';
  };
  const hasEmail = rows.some((r) => 'email' in r);
  return html`<div class="row">
      <button type="button" class="secondary" disabled=${rows.length === 0} onClick=${exportCsv}>Export results (CSV)</button>
      ${contacts.length > 0 && html`<button type="button" class="secondary" onClick=${toSequence}>Start a sequence with these ${contacts.length} people</button>`}
    </div>
    <div class="table-wrap"><table data-testid="job-results">
    <caption>${rows.length} result${rows.length === 1 ? '' : 's'}</caption>
    <thead><tr><th scope="col">Name</th><th scope="col">Title</th><th scope="col">Company</th><th scope="col">Location</th>${hasEmail && html`<th scope="col">Email</th>`}<th scope="col">Profile</th></tr></thead>
    <tbody>
      ${rows.map((r) => {
        const company = r.company as { name?: string } | undefined;
        return html`<tr><td>${String(r.full_name ?? '')}</td><td>${String(r.current_job_title ?? '')}</td><td>${company?.name ?? ''}</td><td>${String(r.location ?? '')}</td>${hasEmail && html`<td>${String(r.email ?? '')}</td>`}<td>${profileLink(r.professional_url)}</td></tr>`;
      })}
    </tbody>
  </table></div>`;
}

function Deliveries({ job }: { job: Job }) {
  const log = useLoad(() => api<{ status: string | null; attempts: Attempt[] }>('GET', `jobs/${job.id}/webhook-deliveries/`));
  const [message, setMessage] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const queued = log.data?.status === 'queued';
  useEffect(() => {
    if (!queued) return;
    const timer = setTimeout(log.reload, 1_000);
    return () => clearTimeout(timer);
  }, [queued, log.data]);
  const redeliver = async () => {
    setBusy(true);
    try {
      const queuedAttempt = await api<{ attempt: number }>('POST', `jobs/${job.id}/webhook-deliveries/redeliver/`);
      setMessage(`Delivery ${queuedAttempt.attempt} queued.`);
      log.reload();
    } catch (e) {
      setMessage((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  if (!log.data) return html`<${Loading} error=${log.error} />`;
  const finished = !RUNNING.includes(job.status);
  return html`<div class="table-wrap"><table data-testid="deliveries">
      <thead><tr><th scope="col">Attempt</th><th scope="col">When</th><th scope="col">Status code</th><th scope="col">Error</th><th scope="col">Took</th><th scope="col">Next retry</th></tr></thead>
      <tbody>
        ${log.data.attempts.length === 0 && html`<tr><td colspan="6" class="muted">${log.data.status ? 'No attempt yet.' : 'This job has no webhook.'}</td></tr>`}
        ${log.data.attempts.map(
          (a) => html`<tr><td>${a.attempt}</td><td>${when(a.at)}</td><td>${a.status ?? '—'}</td><td>${a.error ?? ''}</td><td>${a.duration_ms} ms</td><td>${when(a.next_retry_at)}</td></tr>`,
        )}
      </tbody>
    </table></div>
    <p class="muted">Delivery status: <span data-testid="delivery-status">${log.data.status ?? 'none'}</span></p>
    ${log.data.status && finished && html`<button type="button" disabled=${busy || queued} onClick=${redeliver}>Redeliver the ${job.status} event</button>`}
    ${message && html`<p role="status">${message}</p>`}`;
}

function JobDetail({ id }: { id: string }) {
  const { job, error } = useJob(id);
  return html`<section aria-labelledby="job-title">
    <p><a href="#/jobs">← All jobs</a></p>
    <h2 id="job-title">Job <code>${id}</code></h2>
    ${!job
      ? html`<${Loading} error=${error} />`
      : html`<dl class="facts">
            <dt>Kind</dt><dd>${TIERS[job.tier] ?? job.tier}</dd>
            <dt>Status</dt><dd data-testid="job-status">${job.status}</dd>
            <dt>Started</dt><dd>${when(job.created_at)}</dd>
            <dt>Finished</dt><dd>${when(job.completed_at)}</dd>
            ${typeof job.request?.query === 'string' && html`<dt>Query</dt><dd data-testid="job-query">${job.request.query}</dd>`}
            ${job.request?.max_results !== undefined && html`<dt>Most leads</dt><dd>${String(job.request.max_results)}</dd>`}
            ${job.request?.mode !== undefined && html`<dt>Mode</dt><dd>${String(job.request.mode)}</dd>`}
            ${job.request?.max_credits !== undefined && html`<dt>Credit cap</dt><dd>${String(job.request.max_credits)}</dd>`}
          </dl>
          ${RUNNING.includes(job.status)
            ? html`<p aria-live="polite"><label for="job-progress">Running — the page checks again on its own</label> <progress id="job-progress"></progress></p>`
            : html`<h3>Results</h3><${Results} job=${job} /><h3>Webhook deliveries</h3><${Deliveries} job=${job} />`}`}
  </section>`;
}

export function JobsPage({ rest }: { rest?: string }) {
  return rest ? html`<${JobDetail} id=${rest} />` : html`<${JobList} />`;
}
