import type * as z from '../core/zod.js';
import { NotFoundError } from '../core/errors.js';
import { getEmails } from '../outreach/emails.repository.js';
import { enrollmentsOf, getSequence, querySequences, repliesOf } from './sequences.repository.js';
import { sequenceListItem, sequenceView, type SequenceRecord } from './model.js';
import type { ListSequencesQuerySchema } from './schemas.js';

/**
 * Reading sequences (SPEC.md "Sequences"): another tenant's or an unknown id is 404. Apart from the actions
 * so the read functions bundle neither the scheduler nor the send-time machinery.
 */
export async function requireSequence(accountId: string, id: string): Promise<SequenceRecord> {
  const s = await getSequence(accountId, id);
  if (!s) throw new NotFoundError('Sequence not found.');
  return s;
}

/** The sequence with every enrollment and every step, as GET /sequences/{id}/ shows it. */
export async function viewOf(s: SequenceRecord) {
  const enrollments = await enrollmentsOf(s);
  const emails = await getEmails(s.account_id, enrollments.flatMap((e) => e.email_ids));
  return sequenceView(s, enrollments, new Map(emails.map((e) => [e.id, e])));
}

export async function getOwnSequence(accountId: string, id: string) {
  return viewOf(await requireSequence(accountId, id));
}

/** GET /sequences/: newest first, paged like GET /emails/ (DESIGN.md §3 "lists"), without enrollments. */
export async function listSequences(accountId: string, q: z.output<typeof ListSequencesQuerySchema>) {
  const all = await querySequences(accountId);
  const start = (q.page - 1) * q.page_size;
  return { count: all.length, page: q.page, page_size: q.page_size, total_pages: Math.ceil(all.length / q.page_size), results: all.slice(start, start + q.page_size).map(sequenceListItem) };
}

export async function sequenceReplies(accountId: string, id: string) {
  await requireSequence(accountId, id);
  const replies = await repliesOf(accountId, id);
  return { replies: replies.map((r) => ({ email_id: r.email_id, from_email: r.from_email, from_name: r.from_name, subject: r.subject, body_plain: r.body_plain, classification: r.classification, received_at: r.received_at })) };
}

