import { useState } from 'preact/hooks';
import { api } from '../session.js';
import { html, Loading, useLoad, when } from '../ui.js';

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
  scheduled_at?: string | null;
  sent_at?: string | null;
}

interface Enrollment {
  contact: { email: string; name?: string | null };
  status: string;
  emails: StepEmail[];
}

interface Sequence extends SequenceRow {
  instructions?: string;
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
  count: number;
  page: number;
  total_pages: number;
  results: SequenceRow[];
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
            <span class="muted">Page ${list.data.page} of ${Math.max(list.data.total_pages, 1)}</span>
            <button type="button" class="secondary" disabled=${page >= list.data.total_pages} onClick=${() => go(page + 1)}>Next</button>
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
          <h3>Enrollments</h3>
          <div class="table-wrap"><table data-testid="enrollments">
            <thead><tr><th scope="col">Contact</th><th scope="col">Status</th><th scope="col">Steps</th></tr></thead>
            <tbody>
              ${enrollments.length === 0 && html`<tr><td colspan="3" class="muted">No enrollments.</td></tr>`}
              ${enrollments.map(
                (e) => html`<tr>
                  <td>${e.contact.name ? html`${e.contact.name} <span class="muted">${e.contact.email}</span>` : e.contact.email}</td>
                  <td>${e.status}</td>
                  <td><ol class="steps">${[...e.emails].sort((a, b) => a.step - b.step).map((m) => html`<li>Step ${m.step + 1}: ${m.status}${m.sent_at ? ` (sent ${when(m.sent_at)})` : m.scheduled_at ? ` (due ${when(m.scheduled_at)})` : ''}</li>`)}</ol></td>
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

export function SequencesPage({ rest }: { rest?: string }) {
  return rest ? html`<${SequenceDetail} id=${rest} />` : html`<${SequenceList} />`;
}
