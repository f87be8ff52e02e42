import type { SQSRecord } from 'aws-lambda';
import { sendMessage } from '../adapters/queue.js';
import { cancellationReasons, isTransactionCanceled } from '../adapters/dynamodb-errors.js';
import type { Scheduler } from '../adapters/scheduler.js';
import { pendingSettleWrites, type TransactItem } from '../accounts/ledger.repository.js';
import { PRICES } from '../accounts/prices.js';
import { DEADLINES, after } from '../catalog/deadlines.js';
import { messages } from '../catalog/messages.js';
import { QUEUES } from '../catalog/queues.js';
import type { Clock } from '../core/clock.js';
import { logger } from '../core/logger.js';
import { DraftFailedError, type Drafter } from '../outreach/drafter.js';
import { emailTransitionWrite, getEmail, transition } from '../outreach/emails.repository.js';
import type { EmailRecord } from '../outreach/model.js';
import { scheduleSend } from '../outreach/schedule-send.js';
import { closePass, countDraftsWrite, enrollmentEndWrites, enrollmentsOf, enrollmentTransitionWrite, getSequenceHead, writeTogether } from './sequences.repository.js';
import { TERMINAL_ENROLLMENT, type SequenceRecord, type SequenceStatus } from './model.js';

/**
 * Drafting the steps of a sequence (the drafting worker hands every email with a `sequence_id` here).
 * An enrollment's steps are drafted in order, each given the subject of the step before it, so a follow-up
 * stays in the thread (`Re:`) and refers back. Each outcome is one transaction with its count in the pass:
 *
 * - a draft: the step rests (`pending_review`, or `queued` with review `none`) off the due index; the next
 *   step becomes due within the dispatch grace (so a lost message is re-driven); the last step moves the
 *   enrollment to `pending_review`, or to `active` with step 0 given its best-time request (review `none`);
 * - a failure: this and every later step `failed` (not charged), the enrollment `failed`; the steps drafted
 *   before it are cancelled (their drafts stay charged, as a cancelled email's do).
 *
 * When the pass has counted every email it closes (closePassIfDone): its reservation is settled (2 credits
 * per drafted email, the rest released) and the sequence moves on, in one transaction.
 */
export interface StepDeps {
  clock: Clock;
  scheduler: Scheduler;
  drafter: Drafter;
}

const bestTime = { mode: 'best_time' as const, send_at: null };
const CONFLICT_ATTEMPTS = 10;

/**
 * One transaction of a step's outcome. Every step of a pass counts into the same sequence item, so parallel
 * drafts collide (TransactionConflict): those are tried again after a jittered wait. True when it was
 * written; false when a condition failed (someone moved the step, the enrollment or the pass first).
 */
async function writeOutcome(writes: TransactItem[]): Promise<boolean> {
  for (let attempt = 0; ; attempt++) {
    try {
      await writeTogether(writes);
      return true;
    } catch (e) {
      if (!isTransactionCanceled(e)) throw e;
      const reasons = cancellationReasons(e);
      if (reasons.some((r) => r.Code === 'ConditionalCheckFailed') || attempt >= CONFLICT_ATTEMPTS) {
        if (reasons.some((r) => r.Code === 'ConditionalCheckFailed')) return false;
        throw e;
      }
      await new Promise((r) => setTimeout(r, Math.random() * Math.min(500, 10 * 2 ** attempt)));
    }
  }
}

export async function draftStep(email: EmailRecord, record: SQSRecord | null, deps: StepDeps): Promise<void> {
  if (email.status !== 'drafting') return;
  const ids = email.step_ids!;
  const step = email.step!;
  const previous = step > 0 ? await getEmail(email.account_id, ids[step - 1]!) : null;
  // The step before has not been drafted yet: its own draft starts this one.
  if (previous?.status === 'drafting') return;
  const s = await getSequenceHead(email.account_id, email.sequence_id!);
  if (!s?.pass || s.status !== 'drafting') return;

  let draft;
  try {
    draft = await deps.drafter.draft({ contact: email.contact, instructions: email.instructions, sender: { email: email.from_email }, step, totalSteps: ids.length, previousSubject: previous?.subject });
  } catch (e) {
    const last = Number(record?.attributes.ApproximateReceiveCount ?? 1) >= QUEUES.drafting.maxReceiveCount;
    if (!(e instanceof DraftFailedError) && !last) throw e;
    logger.warn('sequence step draft failed', { emailId: email.id, error: e as Error });
    await failStep(email, e instanceof DraftFailedError ? e.message : 'Drafting failed; nothing was charged.', deps.clock);
    return;
  }

  const now = deps.clock.now();
  const iso = now.toISOString();
  const autoApproved = s.pass.review === 'none';
  const lastStep = step === ids.length - 1;
  const writes: TransactItem[] = [
    emailTransitionWrite(email.account_id, email.id, ['drafting'], { status: autoApproved ? 'queued' : 'pending_review', subject: draft.subject, body_plain: draft.body_plain, body_html: draft.body_html, drafted_at: iso, updated_at: iso }, [], null),
    countDraftsWrite(email.account_id, s.id, s.pass.id, 'drafted', 1),
  ];
  if (!lastStep) writes.push(emailTransitionWrite(email.account_id, ids[step + 1]!, ['drafting'], { updated_at: iso }, [], after(now, DEADLINES.DISPATCH_GRACE_MS)));
  else {
    writes.push(enrollmentTransitionWrite(email.account_id, email.contact.email, s.id, ['drafting'], { status: autoApproved ? 'active' : 'pending_review', updated_at: iso }));
    // Auto-approved: step 0 asks for its best time now, due within the grace so the sweeper books it after a crash.
    if (autoApproved) writes.push(emailTransitionWrite(email.account_id, ids[0]!, ['queued'], { send_request: bestTime, updated_at: iso }, [], after(now, DEADLINES.DISPATCH_GRACE_MS)));
  }
  // Someone moved the step, the enrollment or the pass first (a redelivery, a cancel): theirs stands.
  if (!(await writeOutcome(writes))) return;
  if (!lastStep) await sendMessage('drafting', messages.draftEmail(email.account_id, ids[step + 1]!));
  else if (autoApproved) {
    const first = await getEmail(email.account_id, ids[0]!);
    if (first?.status === 'queued' && !first.scheduled_for) await scheduleSend(first, 'best_time', undefined, { clock: deps.clock, scheduler: deps.scheduler });
  }
  await closePassIfDone(email.account_id, s.id, deps.clock);
}

/**
 * A step that cannot be drafted: it and every later step `failed`, counted, and the enrollment `failed`, in
 * one transaction; then the steps drafted before it are cancelled. True when this call failed it.
 */
export async function failStep(email: EmailRecord, message: string, clock: Clock): Promise<boolean> {
  const s = await getSequenceHead(email.account_id, email.sequence_id!);
  const now = clock.now();
  const iso = now.toISOString();
  const ids = email.step_ids!;
  const step = email.step!;
  const error = { code: 'draft_failed', message };
  const later = { code: 'draft_failed', message: 'An earlier step of this enrollment could not be drafted; nothing was charged.' };
  const writes: TransactItem[] = [
    emailTransitionWrite(email.account_id, email.id, ['drafting'], { status: 'failed', updated_at: iso, error }),
    ...ids.slice(step + 1).map((id) => emailTransitionWrite(email.account_id, id, ['drafting'], { status: 'failed', updated_at: iso, error: later })),
    ...enrollmentEndWrites(email.account_id, email.contact.email, email.sequence_id!, ['drafting'], { status: 'failed', updated_at: iso }),
  ];
  // Counted only while the pass is open; after a cancel the pass has settled already.
  if (s?.pass && s.status === 'drafting') writes.push(countDraftsWrite(email.account_id, s.id, s.pass.id, 'failed', ids.length - step));
  if (!(await writeOutcome(writes))) return false;
  for (const id of ids.slice(0, step)) {
    await transition(email.account_id, id, ['pending_review', 'queued'], { status: 'cancelled', updated_at: iso, error: { code: 'enrollment_failed', message: 'A later step could not be drafted, so the enrollment cannot run.' } });
  }
  if (s) await closePassIfDone(email.account_id, s.id, clock);
  return true;
}

/** Where the sequence goes when its pass closes. */
async function nextStatus(s: SequenceRecord): Promise<SequenceStatus> {
  const pass = s.pass!;
  if (pass.prior_status === null) {
    const enrollments = await enrollmentsOf(s);
    if (enrollments.every((e) => e.status === 'failed')) return 'failed';
    return pass.review === 'none' ? 'active' : 'pending_review';
  }
  if (pass.prior_status === 'completed') {
    const enrollments = await enrollmentsOf(s);
    return enrollments.every((e) => TERMINAL_ENROLLMENT.includes(e.status)) ? 'completed' : 'active';
  }
  return pass.prior_status;
}

/**
 * Close the open pass once every one of its emails is counted (drafted or failed) and its enrollments are
 * all written: settle its reservation (2 credits per drafted email) and move the sequence on, together. A
 * lost race (a count moved meanwhile) is judged again. True when the pass is closed (by this call or not).
 */
export async function closePassIfDone(accountId: string, sequenceId: string, clock: Clock): Promise<boolean> {
  for (let attempt = 0; attempt < CONFLICT_ATTEMPTS; attempt++) {
    if (attempt > 0) await new Promise((r) => setTimeout(r, Math.random() * Math.min(500, 10 * 2 ** attempt)));
    const s = await getSequenceHead(accountId, sequenceId);
    if (!s?.pass || s.status !== 'drafting') return true;
    const drafted = s.pass_drafted ?? 0;
    if ((s.pending_count ?? 0) > 0 || drafted + (s.pass_failed ?? 0) < s.pass.total) return false;
    const now = clock.now();
    const settle = await pendingSettleWrites(accountId, s.pass.charge_id, drafted > 0 ? 'charged' : 'released', PRICES.sequence_per_draft * drafted, now);
    if (await closePass(s, await nextStatus(s), now.toISOString(), settle)) return true;
  }
  return false;
}
