import { useState } from 'preact/hooks';
import { api } from '../session.js';
import { html, Loading, useLoad, when } from '../ui.js';
import { toCsv, type Column } from '../csv.js';
import { download } from '../download.js';
import { ImportContacts, type ContactIn } from './import-contacts.js';

/** Contacts handed to a new sequence from another page (a job's result), read once by the new-sequence page. */
export const PENDING_CONTACTS_KEY = 'app.pendingContacts';

interface SequenceRow {
  id: string;
  name?: string | null;
  status: string;
  created_at: string;
  total_emails?: number;
}

interface StepEmail {
  id: string;
  step: number;
  status: string;
  subject?: string | null;
  scheduled_for?: string | null;
  sent_at?: string | null;
  opened_at?: string | null;
  replied_at?: string | null;
}

interface Enrollment {
  contact: { email: string; name?: string | null };
  status: string;
  emails: StepEmail[];
}

interface Sequence extends SequenceRow {
  instructions?: string;
  steps?: number;
  drafted?: number;
  failed?: number;
  /** One page of enrollments; `next_cursor` reads the next one (null on the last). */
  enrollments: Enrollment[];
  next_cursor: string | null;
}

interface Reply {
  email_id: string;
  from_email: string;
  from_name?: string | null;
  subject: string;
  body_plain: string;
  classification: string;
  received_at: string;
}

interface SequencePage {
  /** Exact when `count_exact`; otherwise at least this many (the service counts at most 10,000). */
  count: number;
  count_exact: boolean;
  page: number;
  total_pages: number;
  results: SequenceRow[];
  next_cursor: string | null;
}

function SequenceList() {
  const [page, setPage] = useState(1);
  const list = useLoad(() => api<SequencePage>('GET', `sequences/?page=${page}&page_size=25`));
  const go = (p: number) => {
    setPage(p);
    list.reload();
  };
  return html`<section aria-labelledby="sequences-title">
    <h2 id="sequences-title">Sequences</h2>
    <p><a class="button" href="#/sequences/new">New sequence</a></p>
    ${!list.data
      ? html`<${Loading} error=${list.error} />`
      : html`<div class="table-wrap"><table data-testid="sequences">
            <thead><tr><th scope="col">Name</th><th scope="col">Status</th><th scope="col">Emails</th><th scope="col">Created</th></tr></thead>
            <tbody>
              ${list.data.results.length === 0 && html`<tr><td colspan="4" class="muted">No sequences yet.</td></tr>`}
              ${list.data.results.map(
                (s) => html`<tr><td><a href=${`#/sequences/${s.id}`}>${s.name || s.id}</a></td><td>${s.status}</td><td>${s.total_emails ?? '—'}</td><td>${when(s.created_at)}</td></tr>`,
              )}
            </tbody>
          </table></div>
          <div class="row">
            <button type="button" class="secondary" disabled=${page <= 1} onClick=${() => go(page - 1)}>Previous</button>
            <span class="muted">Page ${list.data.page} of ${Math.max(list.data.total_pages, 1)}${list.data.count_exact ? '' : '+'}</span>
            <button type="button" class="secondary" disabled=${!list.data.next_cursor} onClick=${() => go(page + 1)}>Next</button>
          </div>`}
  </section>`;
}

function SequenceDetail({ id }: { id: string }) {
  const sequence = useLoad(() => api<Sequence>('GET', `sequences/${id}/`));
  const replies = useLoad(() => api<{ replies: Reply[] }>('GET', `sequences/${id}/replies/`));
  // Later pages of enrollments, appended by "Show more" (the first comes with the sequence).
  const [more, setMore] = useState<{ enrollments: Enrollment[]; next_cursor: string | null } | null>(null);
  const [moreError, setMoreError] = useState<string | null>(null);
  const s = sequence.data;
  const enrollments = s ? [...s.enrollments, ...(more?.enrollments ?? [])] : [];
  const cursor = more ? more.next_cursor : (s?.next_cursor ?? null);
  const showMore = async () => {
    setMoreError(null);
    try {
      const page = await api<Sequence>('GET', `sequences/${id}/?cursor=${encodeURIComponent(cursor!)}`);
      setMore({ enrollments: [...(more?.enrollments ?? []), ...page.enrollments], next_cursor: page.next_cursor });
    } catch (e) {
      setMoreError((e as Error).message);
    }
  };
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  const [adding, setAdding] = useState(false);
  const act = async (what: 'approve' | 'cancel') => {
    if (what === 'cancel' && !confirm('Cancel this sequence? Every unsent step of every contact is cancelled; nothing is refunded.')) return;
    setBusy(true);
    setMessage(null);
    try {
      await api('POST', `sequences/${id}/${what}/`);
      setMessage(what === 'approve' ? 'Approved: the intro emails are queued at their best send times.' : 'Cancelled: no further step is sent.');
      setMore(null);
      sequence.reload();
    } catch (e) {
      setMessage((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  const exportCsv = async () => {
    setBusy(true);
    try {
      const all = await allEnrollments(id);
      download(`${id}-enrollments.csv`, toCsv(enrollmentColumns(all), all));
    } catch (e) {
      setMessage((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  const terminal = s && ['completed', 'cancelled', 'failed'].includes(s.status);
  return html`<section aria-labelledby="sequence-title">
    <p><a href="#/sequences">← All sequences</a></p>
    <h2 id="sequence-title">${s?.name || html`Sequence <code>${id}</code>`}</h2>
    ${!s
      ? html`<${Loading} error=${sequence.error} />`
      : html`<dl class="facts">
            <dt>Status</dt><dd data-testid="sequence-status">${s.status}</dd>
            <dt>Created</dt><dd>${when(s.created_at)}</dd>
            <dt>Emails</dt><dd>${s.total_emails ?? 0} (${s.drafted ?? 0} drafted, ${s.failed ?? 0} failed)</dd>
          </dl>
          <div class="row">
            ${s.status === 'drafting' && html`<button type="button" class="secondary" onClick=${() => sequence.reload()}>Refresh (drafting…)</button>`}
            ${s.status === 'pending_review' && html`<button type="button" disabled=${busy} onClick=${() => act('approve')}>Approve and start sending</button>`}
            ${!terminal && s.status !== 'drafting' && html`<button type="button" class="secondary" onClick=${() => setAdding(!adding)}>Add contacts</button>`}
            <button type="button" class="secondary" disabled=${busy} onClick=${exportCsv}>Export enrollments (CSV)</button>
            ${!terminal && html`<button type="button" class="danger" disabled=${busy} onClick=${() => act('cancel')}>Cancel sequence</button>`}
          </div>
          ${message && html`<p role="status">${message}</p>`}
          ${adding && html`<h3>Add contacts</h3><${ImportContacts} sequenceId=${id} onDone=${() => (setAdding(false), setMore(null), sequence.reload())} />`}
          <h3>Enrollments</h3>
          <div class="table-wrap"><table data-testid="enrollments">
            <thead><tr><th scope="col">Contact</th><th scope="col">Status</th><th scope="col">Steps</th></tr></thead>
            <tbody>
              ${enrollments.length === 0 && html`<tr><td colspan="3" class="muted">No enrollments.</td></tr>`}
              ${enrollments.map(
                (e) => html`<tr>
                  <td>${e.contact.name ? html`${e.contact.name} <span class="muted">${e.contact.email}</span>` : e.contact.email}</td>
                  <td>${e.status}</td>
                  <td><ol class="steps">${[...e.emails].sort((a, b) => a.step - b.step).map((m) => html`<li value=${m.step}>Step ${m.step}${m.step === 0 ? ' (intro)' : ''}: ${m.status}${m.sent_at ? ` (sent ${when(m.sent_at)})` : m.scheduled_for ? ` (due ${when(m.scheduled_for)})` : ''}</li>`)}</ol></td>
                </tr>`,
              )}
            </tbody>
          </table></div>
          ${cursor && html`<div class="row"><button type="button" class="secondary" onClick=${showMore}>Show more enrollments</button></div>`}
          ${moreError && html`<p class="error" role="alert">${moreError}</p>`}`}
    <h3>Replies</h3>
    ${!replies.data
      ? html`<${Loading} error=${replies.error} />`
      : replies.data.replies.length === 0
        ? html`<p class="muted" data-testid="no-replies">No replies yet.</p>`
        : html`<ul class="replies" data-testid="replies">${replies.data.replies.map(
            (r) => html`<li><strong>${r.subject}</strong> — ${r.from_name ? `${r.from_name} <${r.from_email}>` : r.from_email}, ${r.classification}, ${when(r.received_at)}<p>${r.body_plain}</p></li>`,
          )}</ul>`}
  </section>`;
}

/** Every enrollment of the sequence, page after page. */
async function allEnrollments(id: string): Promise<Enrollment[]> {
  const out: Enrollment[] = [];
  let cursor: string | null = null;
  do {
    const page: Sequence = await api<Sequence>('GET', `sequences/${id}/?page_size=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    out.push(...page.enrollments);
    cursor = page.next_cursor;
  } while (cursor);
  return out;
}

/** One row per enrollment: the contact, its status, and each step's status and times (steps numbered from 0, as the API numbers them). */
function enrollmentColumns(all: Enrollment[]): Column<Enrollment>[] {
  const steps = Math.max(0, ...all.map((e) => e.emails.length));
  const step = (e: Enrollment, n: number) => e.emails.find((m) => m.step === n);
  return [
    { header: 'email', value: (e) => e.contact.email },
    { header: 'name', value: (e) => e.contact.name ?? '' },
    { header: 'enrollment_status', value: (e) => e.status },
    ...Array.from({ length: steps }, (_, n) => [
      { header: `step_${n}_status`, value: (e: Enrollment) => step(e, n)?.status ?? '' },
      { header: `step_${n}_subject`, value: (e: Enrollment) => step(e, n)?.subject ?? '' },
      { header: `step_${n}_sent_at`, value: (e: Enrollment) => step(e, n)?.sent_at ?? '' },
      { header: `step_${n}_opened_at`, value: (e: Enrollment) => step(e, n)?.opened_at ?? '' },
      { header: `step_${n}_replied_at`, value: (e: Enrollment) => step(e, n)?.replied_at ?? '' },
    ]).flat(),
  ];
}

/** A new sequence: its instructions, then its contacts from a CSV file (or a job's result), checked and priced. */
function NewSequence() {
  const [initial] = useState<ContactIn[] | undefined>(() => {
    const raw = sessionStorage.getItem(PENDING_CONTACTS_KEY);
    sessionStorage.removeItem(PENDING_CONTACTS_KEY);
    return raw ? (JSON.parse(raw) as ContactIn[]) : undefined;
  });
  const [name, setName] = useState('');
  const [instructions, setInstructions] = useState('');
  const [steps, setSteps] = useState(3);
  const settings = () => (instructions.trim() ? { name: name.trim() || undefined, instructions, steps } : 'Write the instructions first: what the emails should say.');
  return html`<section aria-labelledby="new-sequence-title">
    <p><a href="#/sequences">← All sequences</a></p>
    <h2 id="new-sequence-title">New sequence</h2>
    <div class="field"><label for="sq-name">Name (optional)</label><input id="sq-name" maxlength="200" value=${name} onInput=${(e: Event) => setName((e.target as HTMLInputElement).value)} /></div>
    <div class="field"><label for="sq-instructions">Instructions for the emails</label><textarea id="sq-instructions" rows="4" maxlength="2000" required value=${instructions} onInput=${(e: Event) => setInstructions((e.target as HTMLTextAreaElement).value)}></textarea></div>
    <div class="field"><label for="sq-steps">Steps, the intro included (1 to 4)</label>
      <select id="sq-steps" value=${String(steps)} onChange=${(e: Event) => setSteps(Number((e.target as HTMLSelectElement).value))}>${[1, 2, 3, 4].map((n) => html`<option value=${String(n)}>${n}</option>`)}</select></div>
    <p class="muted">Emails are drafted for your review; nothing is sent before you approve the sequence.</p>
    <h3>Contacts</h3>
    ${initial && html`<p>${initial.length} people from a search result.</p>`}
    <${ImportContacts} newSequence=${settings} initial=${initial} onDone=${(sid: string) => (location.hash = `#/sequences/${sid}`)} />
  </section>`;
}

export function SequencesPage({ rest }: { rest?: string }) {
  if (rest === 'new') return html`<${NewSequence} />`;
  return rest ? html`<${SequenceDetail} id=${rest} />` : html`<${SequenceList} />`;
}
