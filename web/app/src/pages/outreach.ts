import { useState } from 'preact/hooks';
import { api } from '../session.js';
import { html, Loading, useLoad, when } from '../ui.js';

interface Email {
  id: string;
  status: string;
  to: { email: string; name?: string | null } | string;
  subject: string | null;
  /** Only on the single email (GET emails/{id}/): list items carry no bodies. */
  body_plain?: string | null;
  created_at: string;
  scheduled_for: string | null;
  sent_at: string | null;
  opened_at: string | null;
  replied_at: string | null;
  error: string | null;
}

interface EmailPage {
  /** Exact when `count_exact`; otherwise at least this many (the service counts at most 10,000). */
  count: number;
  count_exact: boolean;
  page: number;
  total_pages: number;
  results: Email[];
  next_cursor: string | null;
}

/** The review queue's views: each is one status of the public list's `status` filter. */
const VIEWS = [
  { status: 'pending_review', label: 'Drafts to review' },
  { status: 'queued', label: 'Scheduled' },
  { status: 'sent', label: 'Sent and opened' },
  { status: 'replied', label: 'Replied' },
  { status: 'cancelled', label: 'Cancelled' },
] as const;

const recipient = (to: Email['to']) => (typeof to === 'string' ? to : to.name ? `${to.name} <${to.email}>` : to.email);

/** The list leaves bodies out: the editor reads the whole email first. */
function DraftEditor({ email, onChanged }: { email: Email; onChanged: (message: string) => void }) {
  const full = useLoad(() => api<Email>('GET', `emails/${email.id}/`));
  return full.data ? html`<${DraftForm} email=${full.data} onChanged=${onChanged} />` : html`<${Loading} error=${full.error} />`;
}

/** A sent, queued or cancelled email's body, read when the reader opens it. */
function ReadEmail({ id }: { id: string }) {
  const [open, setOpen] = useState(false);
  return html`<details onToggle=${(e: Event) => setOpen((e.target as HTMLDetailsElement).open)}><summary>Read the email</summary>${open && html`<${EmailBody} id=${id} />`}</details>`;
}

function EmailBody({ id }: { id: string }) {
  const full = useLoad(() => api<Email>('GET', `emails/${id}/`));
  return full.data ? html`<pre class="email-body">${full.data.body_plain ?? ''}</pre>` : html`<${Loading} error=${full.error} />`;
}

function DraftForm({ email, onChanged }: { email: Email; onChanged: (message: string) => void }) {
  const [subject, setSubject] = useState(email.subject ?? '');
  const [body, setBody] = useState(email.body_plain ?? '');
  const [schedule, setSchedule] = useState<'now' | 'best_time' | 'at'>('now');
  const [sendAt, setSendAt] = useState('');
  const [error, setError] = useState<string | null>(null);
  const act = async (method: 'PATCH' | 'POST', path: string, change: Record<string, unknown> | undefined, done: string) => {
    setError(null);
    try {
      await api(method, path, change);
      onChanged(done);
    } catch (e) {
      setError((e as Error).message);
    }
  };
  const id = email.id;
  const save = (e: Event) => {
    e.preventDefault();
    void act('PATCH', `emails/${id}/`, { subject, body_plain: body }, `Saved the draft to ${recipient(email.to)}.`);
  };
  const approve = (e: Event) => {
    e.preventDefault();
    if (schedule === 'at' && !sendAt) return setError('Choose when to send it.');
    const choice = schedule === 'at' ? { schedule, send_at: new Date(sendAt).toISOString() } : { schedule };
    void act('POST', `emails/${id}/approve/`, choice, `Approved the email to ${recipient(email.to)}.`);
  };
  const cancel = () => {
    if (!confirm(`Cancel the email to ${recipient(email.to)}? It will not be sent.`)) return;
    void act('POST', `emails/${id}/cancel/`, undefined, `Cancelled the email to ${recipient(email.to)}.`);
  };
  return html`<div>
    <form onSubmit=${save} aria-label=${`Edit the draft to ${recipient(email.to)}`}>
      <div class="field"><label for=${`${id}-subject`}>Subject</label>
        <input id=${`${id}-subject`} class="wide" required maxlength="300" value=${subject} onInput=${(e: Event) => setSubject((e.target as HTMLInputElement).value)} /></div>
      <div class="field"><label for=${`${id}-body`}>Body</label>
        <textarea id=${`${id}-body`} class="wide" rows="8" required maxlength="50000" value=${body} onInput=${(e: Event) => setBody((e.target as HTMLTextAreaElement).value)}></textarea></div>
      <button type="submit" class="secondary">Save changes</button>
    </form>
    <form onSubmit=${approve} aria-label=${`Approve the draft to ${recipient(email.to)}`}>
      <div class="row">
        <div class="field"><label for=${`${id}-schedule`}>Send</label>
          <select id=${`${id}-schedule`} value=${schedule} onChange=${(e: Event) => setSchedule((e.target as HTMLSelectElement).value as typeof schedule)}>
            <option value="now">Now</option>
            <option value="best_time">At the recipient's best time</option>
            <option value="at">At a date and time</option>
          </select></div>
        ${schedule === 'at' &&
        html`<div class="field"><label for=${`${id}-send-at`}>Send at (your time)</label>
          <input id=${`${id}-send-at`} type="datetime-local" required value=${sendAt} onInput=${(e: Event) => setSendAt((e.target as HTMLInputElement).value)} /></div>`}
        <div class="field"><button type="submit">Approve</button></div>
        <div class="field"><button type="button" class="danger" onClick=${cancel}>Cancel email</button></div>
      </div>
    </form>
    ${error && html`<p class="error" role="alert">${error}</p>`}
  </div>`;
}

function EmailCard({ email, onChanged }: { email: Email; onChanged: (message: string) => void }) {
  return html`<article class="card email" aria-labelledby=${`${email.id}-title`} data-email=${email.id}>
    <h3 id=${`${email.id}-title`}>${email.subject ?? '(no subject yet)'} <span class="pill">${email.status.replace('_', ' ')}</span></h3>
    <p>To ${recipient(email.to)} · created ${when(email.created_at)}
      ${email.scheduled_for && html` · scheduled for ${when(email.scheduled_for)}`}
      ${email.sent_at && html` · sent ${when(email.sent_at)}`}
      ${email.opened_at && html` · opened ${when(email.opened_at)}`}
      ${email.replied_at && html` · replied ${when(email.replied_at)}`}</p>
    ${email.error && html`<p class="error">${email.error}</p>`}
    ${email.status === 'pending_review'
      ? html`<${DraftEditor} email=${email} onChanged=${onChanged} />`
      : email.status !== 'drafting' && html`<${ReadEmail} id=${email.id} />`}
  </article>`;
}

function EmailList({ status, page, onPage, onChanged }: { status: string; page: number; onPage: (page: number) => void; onChanged: (message: string) => void }) {
  const { data, error, reload } = useLoad(() => api<EmailPage>('GET', `emails/?status=${status}&page=${page}&page_size=20`));
  const changed = (message: string) => {
    onChanged(message);
    reload();
  };
  if (!data) return html`<${Loading} error=${error} />`;
  if (data.results.length === 0) return html`<p class="muted">No emails here.</p>`;
  return html`<div>
    <p class="muted">${data.count}${data.count_exact ? '' : '+'} email${data.count === 1 && data.count_exact ? '' : 's'}</p>
    <div class="emails">${data.results.map((e) => html`<${EmailCard} key=${`${e.id}-${e.status}-${e.subject}`} email=${e} onChanged=${changed} />`)}</div>
    ${(page > 1 || data.next_cursor) &&
    html`<nav class="row" aria-label="Pages">
      <button type="button" class="secondary" disabled=${page <= 1} onClick=${() => onPage(page - 1)}>Newer</button>
      <span>Page ${page} of ${data.total_pages}${data.count_exact ? '' : '+'}</span>
      <button type="button" class="secondary" disabled=${!data.next_cursor} onClick=${() => onPage(page + 1)}>Older</button>
    </nav>`}
  </div>`;
}

export function OutreachPage() {
  const [status, setStatus] = useState<string>(VIEWS[0].status);
  const [page, setPage] = useState(1);
  const [message, setMessage] = useState<string | null>(null);
  const show = (s: string) => {
    setStatus(s);
    setPage(1);
    setMessage(null);
  };
  return html`<section aria-labelledby="outreach-title">
    <h2 id="outreach-title">Outreach review</h2>
    <div class="row" role="group" aria-label="Show emails">
      ${VIEWS.map((v) => html`<button type="button" class=${v.status === status ? '' : 'secondary'} aria-pressed=${v.status === status} onClick=${() => show(v.status)}>${v.label}</button>`)}
    </div>
    <p role="status">${message ?? ''}</p>
    <${EmailList} key=${`${status}-${page}`} status=${status} page=${page} onPage=${setPage} onChanged=${setMessage} />
  </section>`;
}
