import type * as z from 'zod';
import { pendingSettleWrites } from '../accounts/ledger.repository.js';
import { PRICES } from '../accounts/prices.js';
import { awsScheduler, type Scheduler } from '../adapters/scheduler.js';
import { DEADLINES, after } from '../catalog/deadlines.js';
import { serviceClock, type Clock } from '../core/clock.js';
import { ConflictError, NotFoundError } from '../core/errors.js';
import { getEmails, transition } from '../outreach/emails.repository.js';
import type { EmailRecord } from '../outreach/model.js';
import { scheduleSend } from '../outreach/schedule-send.js';
import { cancelUnsentSteps } from './cadence.js';
import { closePass, enrollmentsOf, getSequence, querySequences, repliesOf, transitionEnrollment, transitionSequence } from './sequences.repository.js';
import { sequenceListItem, sequenceView, TERMINAL_ENROLLMENT, TERMINAL_SEQUENCE, type EnrollmentRecord, type ListSequencesQuerySchema, type SequenceRecord } from './model.js';

/**
 * Reading, approving and cancelling sequences (SPEC.md "Sequences"). Another tenant's or an unknown id is 404;
 * a wrong state is 409 and costs nothing. Approve and cancel return the sequence with its enrollments.
 */
const CONCURRENCY = 8;

async function requireSequence(accountId: string, id: string): Promise<SequenceRecord> {
  const s = await getSequence(accountId, id);
  if (!s) throw new NotFoundError('Sequence not found.');
  return s;
}

async function inBatches<T>(items: T[], fn: (item: T) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += CONCURRENCY) await Promise.all(items.slice(i, i + CONCURRENCY).map(fn));
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

/**
 * Activate one drafted enrollment: every step `queued` (step 0 asking for its best time, due within the grace
 * so the sweeper books it after a crash; later steps resting until the step before them is sent), then the
 * enrollment `active`, then step 0's slot. A step moved meanwhile is left as it is.
 */
async function activateEnrollment(e: EnrollmentRecord, deps: { clock: Clock; scheduler: Scheduler }): Promise<void> {
  const now = deps.clock.now();
  const iso = now.toISOString();
  let first: EmailRecord | null = null;
  for (const [step, id] of e.email_ids.entries()) {
    const moved =
      step === 0
        ? await transition(e.account_id, id, ['pending_review'], { status: 'queued', updated_at: iso, send_request: { mode: 'best_time', send_at: null } }, [], { due: after(now, DEADLINES.DISPATCH_GRACE_MS) })
        : await transition(e.account_id, id, ['pending_review'], { status: 'queued', updated_at: iso }, [], { due: null });
    if (step === 0) first = moved;
  }
  await transitionEnrollment(e.account_id, e.contact.email, e.sequence_id, ['pending_review'], { status: 'active', updated_at: iso });
  if (first) await scheduleSend(first, 'best_time', undefined, deps);
}

/** POST /sequences/{id}/approve/: every drafted enrollment goes live; 409 while drafting and once ended. */
export async function approveSequence(accountId: string, id: string, deps: { clock?: Clock; scheduler?: Scheduler } = {}) {
  const clock = deps.clock ?? serviceClock;
  const scheduler = deps.scheduler ?? awsScheduler;
  const s = await requireSequence(accountId, id);
  if (s.status === 'drafting') throw new ConflictError('The sequence is still drafting; approve it once drafting has finished.');
  if (TERMINAL_SEQUENCE.includes(s.status)) throw new ConflictError(`Cannot approve a ${s.status} sequence.`);
  const waiting = (await enrollmentsOf(s)).filter((e) => e.status === 'pending_review');
  await inBatches(waiting, (e) => activateEnrollment(e, { clock, scheduler }));
  const now = clock.now().toISOString();
  const current = s.status === 'pending_review' ? ((await transitionSequence(accountId, id, ['pending_review'], 'active', now)) ?? (await requireSequence(accountId, id))) : await requireSequence(accountId, id);
  return viewOf(current);
}

/**
 * POST /sequences/{id}/cancel/: the sequence `cancelled` first (an open pass is closed with it: its drafts so
 * far charged, the rest released), then every non-terminal enrollment `cancelled` with its unsent steps
 * (schedules deleted, slots released). Sent steps stay as they are; nothing is refunded.
 */
export async function cancelSequence(accountId: string, id: string, deps: { clock?: Clock; scheduler?: Scheduler } = {}) {
  const clock = deps.clock ?? serviceClock;
  const scheduler = deps.scheduler ?? awsScheduler;
  let s = await requireSequence(accountId, id);
  for (let attempt = 0; ; attempt++) {
    if (TERMINAL_SEQUENCE.includes(s.status)) throw new ConflictError(`Cannot cancel a ${s.status} sequence.`);
    const now = clock.now();
    if (s.pass) {
      const drafted = s.pass_drafted ?? 0;
      const settle = await pendingSettleWrites(accountId, s.pass.charge_id, drafted > 0 ? 'charged' : 'released', PRICES.sequence_per_draft * drafted, now);
      if (await closePass(s, 'cancelled', now.toISOString(), settle)) break;
    } else if (await transitionSequence(accountId, id, [s.status], 'cancelled', now.toISOString())) break;
    if (attempt >= 10) throw new ConflictError('The sequence is changing; try again.');
    s = await requireSequence(accountId, id);
  }
  const iso = clock.now().toISOString();
  const live = (await enrollmentsOf(s)).filter((e) => !TERMINAL_ENROLLMENT.includes(e.status));
  await inBatches(live, async (e) => {
    await transitionEnrollment(accountId, e.contact.email, id, ['drafting', 'pending_review', 'active'], { status: 'cancelled', updated_at: iso });
    await cancelUnsentSteps(accountId, e.email_ids, 'sequence_cancelled', clock, scheduler);
  });
  return viewOf(await requireSequence(accountId, id));
}
