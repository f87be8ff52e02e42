import type { SQSRecord } from 'aws-lambda';
import { sendMessage } from '../adapters/queue.js';
import { cancellationReasons, isTransactionCanceled } from '../adapters/dynamodb-errors.js';
import { awsScheduler, type Scheduler } from '../adapters/scheduler.js';
import { pendingSettleWrites, type TransactItem } from '../accounts/ledger.repository.js';
import { PRICES } from '../accounts/prices.js';
import { DEADLINES, after } from '../catalog/deadlines.js';
import { messages } from '../catalog/messages.js';
import { QUEUES } from '../catalog/queues.js';
import type { Clock } from '../core/clock.js';
import { logger } from '../core/logger.js';
import { countMetric } from '../core/metrics.js';
import { DraftFailedError, type Drafter } from '../outreach/drafter.js';
import { emailTransitionWrite, getEmail, getEmails, transition } from '../outreach/emails.repository.js';
import { REVIEW_WINDOW_MS, type EmailRecord } from '../outreach/model.js';
import { reviewScheduleName, scheduleSend } from '../outreach/schedule-send.js';
import { activateEnrollment } from './activate-enrollment.js';
import { closePass, countDraftsWrite, enrollmentEndWrites, enrollmentsOf, enrollmentTransitionWrite, getEnrollment, getSequenceHead, writeTogether } from './sequences.repository.js';
import { TERMINAL_ENROLLMENT, type EnrollmentRecord, type SequenceRecord, type SequenceStatus } from './model.js';
import { inBatches } from '../core/batches.js';

/**
 * Drafting the steps of a sequence (the drafting worker hands every email with a `sequence_id` here).
 * An enrollment's steps are drafted in order, each given the subject of the step before it, so a follow-up
 * stays in the thread (`Re:`) and refers back. Each outcome is one transaction with its count in the pass:
 *
 * - a draft: with review `required` the step waits in `pending_review` and every drafted step of the
 *   enrollment gets the same review window, 7 days from this draft (review-window.ts), due then; with review
 *   `none` it rests `queued` off the due index. The next step becomes due within the dispatch grace (so a
 *   lost message is re-driven); the last step moves the enrollment to `pending_review`, or to `active` with
 *   step 0 given its best-time request (review `none`);
 * - a failure (a draft that cannot be written, or the drafting deadline passed): every step still `drafting`
 *   `failed` (not charged) and counted, the enrollment `failed`; the steps drafted before are cancelled
 *   (their drafts stay charged, as a cancelled email's do).
 *
 * Every step of an enrollment has the same drafting deadline (its creation + DEADLINES.DRAFT_MS). Past it
 * nothing more of the enrollment is drafted, whoever gets there first: the drafting worker (a backlog longer
 * than the deadline), the sweeper (each step is due by its deadline), or the sequence's own sweep. So every
 * step ends, drafted or failed, and each is counted exactly once, in the transaction that moves it out of
 * `drafting`. When the pass has counted every email it closes (closePassIfDone): its reservation is settled
 * (2 credits per drafted email, the rest released) and the sequence moves on, in one transaction.
 */
export interface StepDeps {
  clock: Clock;
  scheduler: Scheduler;
  drafter: Drafter;
}

const bestTime = { mode: 'best_time' as const, send_at: null };
const CONFLICT_ATTEMPTS = 10;
/** Enrollments approved at once when a pass with review `none` closes (distinct items: they never contend). */
const APPROVE_CONCURRENCY = 8;

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

/** When drafting of a step (and of its whole enrollment: the steps are created together) must have ended. */
export const draftDeadline = (email: Pick<EmailRecord, 'created_at'>) => after(email.created_at, DEADLINES.DRAFT_MS);
const DEADLINE_MESSAGE = 'The draft was not written within the drafting deadline; nothing was charged.';

export async function draftStep(email: EmailRecord, record: SQSRecord | null, deps: StepDeps): Promise<void> {
  if (email.status !== 'drafting') return;
  const ids = email.step_ids!;
  const step = email.step!;
  // Past the deadline nothing more is drafted: the enrollment ends here as the sweeper would end it.
  if (deps.clock.now().getTime() >= draftDeadline(email).getTime()) {
    await failStep(email, DEADLINE_MESSAGE, deps.clock, deps.scheduler);
    return;
  }
  const enrollment = await getEnrollment(email.account_id, email.contact.email, email.sequence_id!);
  // The enrollment ended while this step waited (another step failed, a cancel): the step ends with it.
  if (enrollment && enrollment.status !== 'drafting') {
    await failStep(email, 'Another step of this enrollment could not be drafted; nothing was charged.', deps.clock, deps.scheduler);
    return;
  }
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
    await failStep(email, e instanceof DraftFailedError ? e.message : 'Drafting failed; nothing was charged.', deps.clock, deps.scheduler);
    return;
  }

  const now = deps.clock.now();
  const iso = now.toISOString();
  const autoApproved = s.pass.review === 'none';
  const lastStep = step === ids.length - 1;
  // One review window for the enrollment: 7 days from its latest draft, on every step drafted so far.
  const expires = autoApproved ? null : after(now, REVIEW_WINDOW_MS);
  const writes: TransactItem[] = [
    emailTransitionWrite(
      email.account_id,
      email.id,
      ['drafting'],
      { status: autoApproved ? 'queued' : 'pending_review', subject: draft.subject, body_plain: draft.body_plain, body_html: draft.body_html, drafted_at: iso, updated_at: iso, review_expires_at: expires?.toISOString() ?? null },
      [],
      expires,
    ),
    countDraftsWrite(email.account_id, s.id, s.pass.id, 'drafted', 1),
  ];
  if (expires) writes.push(...ids.slice(0, step).map((id) => emailTransitionWrite(email.account_id, id, ['pending_review'], { review_expires_at: expires.toISOString() }, [], expires)));
  if (!lastStep) writes.push(emailTransitionWrite(email.account_id, ids[step + 1]!, ['drafting'], { updated_at: iso }, [], after(now, DEADLINES.DISPATCH_GRACE_MS)));
  else {
    writes.push(enrollmentTransitionWrite(email.account_id, email.contact.email, s.id, ['drafting'], { status: autoApproved ? 'active' : 'pending_review', updated_at: iso }));
    // Auto-approved: step 0 asks for its best time now, due within the grace so the sweeper books it after a crash.
    if (autoApproved) writes.push(emailTransitionWrite(email.account_id, ids[0]!, ['queued'], { send_request: bestTime, updated_at: iso }, [], after(now, DEADLINES.DISPATCH_GRACE_MS)));
  }
  if (!(await writeOutcome(writes))) {
    // Someone moved the step, the enrollment or the pass first (a redelivery, a cancel, a failure of
    // another step at the deadline): theirs stands, and a step left drafting by an ended enrollment ends too.
    const ended = await getEnrollment(email.account_id, email.contact.email, email.sequence_id!);
    if (ended && ended.status !== 'drafting') await failStep(email, 'Another step of this enrollment could not be drafted; nothing was charged.', deps.clock, deps.scheduler);
    return;
  }
  countMetric('drafts');
  // The window's one-time schedule, one per enrollment (named by step 0); the due index backs it up.
  if (expires) await deps.scheduler.scheduleAt(reviewScheduleName(ids[0]!), expires, messages.reviewExpired(email.account_id, ids[0]!));
  if (!lastStep) await sendMessage('drafting', messages.draftEmail(email.account_id, ids[step + 1]!));
  else if (autoApproved) {
    const first = await getEmail(email.account_id, ids[0]!);
    if (first?.status === 'queued' && !first.scheduled_for) await scheduleSend(first, 'best_time', undefined, { clock: deps.clock, scheduler: deps.scheduler });
  }
  await closePassIfDone(email.account_id, s.id, deps.clock, deps.scheduler);
}

/**
 * End an enrollment's drafting: every one of its steps still `drafting` `failed` (or `cancelled` when the
 * enrollment was cancelled), counted into the open pass, and the enrollment `failed` unless it has ended
 * already, in one transaction; a lost race (a step drafted meanwhile) is judged again. Then the steps drafted
 * before are cancelled and the pass closes if that was its last email. `email` is the step that failed (its
 * error is `message`). True when this call ended a step.
 */
export async function failStep(email: EmailRecord, message: string, clock: Clock, scheduler: Scheduler = awsScheduler): Promise<boolean> {
  const ids = email.step_ids!;
  const failed = { code: 'draft_failed', message };
  const other = { code: 'draft_failed', message: 'Another step of this enrollment could not be drafted; nothing was charged.' };
  const cancelled = { code: 'sequence_cancelled', message: 'The sequence was cancelled.' };
  let ended = false;
  let s: SequenceRecord | null = null;
  for (let attempt = 0; attempt < CONFLICT_ATTEMPTS; attempt++) {
    const [head, enrollment, steps] = await Promise.all([getSequenceHead(email.account_id, email.sequence_id!), getEnrollment(email.account_id, email.contact.email, email.sequence_id!), getEmails(email.account_id, ids)]);
    s = head;
    const drafting = ids.filter((id) => steps.find((m) => m.id === id)?.status === 'drafting');
    if (drafting.length === 0 && enrollment?.status !== 'drafting') break;
    const iso = clock.now().toISOString();
    const byCancel = enrollment?.status === 'cancelled';
    const writes: TransactItem[] = drafting.map((id) =>
      emailTransitionWrite(email.account_id, id, ['drafting'], byCancel ? { status: 'cancelled', updated_at: iso, error: cancelled } : { status: 'failed', updated_at: iso, error: id === email.id ? failed : other }),
    );
    if (enrollment?.status === 'drafting') writes.push(...enrollmentEndWrites(email.account_id, email.contact.email, email.sequence_id!, ['drafting'], { status: 'failed', updated_at: iso }));
    // Counted only while the enrollment's pass is open; after a cancel the pass has settled already.
    if (drafting.length > 0 && s?.pass && s.status === 'drafting' && (!enrollment || enrollment.pass_id === s.pass.id)) writes.push(countDraftsWrite(email.account_id, s.id, s.pass.id, 'failed', drafting.length));
    if (await writeOutcome(writes)) {
      ended = drafting.length > 0;
      if (!byCancel) countMetric('drafts_failed', drafting.length);
      break;
    }
  }
  const enrollment = await getEnrollment(email.account_id, email.contact.email, email.sequence_id!);
  if (enrollment?.status === 'failed') await cancelDraftedSteps(enrollment, clock);
  if (s) await closePassIfDone(email.account_id, s.id, clock, scheduler);
  return ended;
}

/** The steps of a failed enrollment drafted before the failure: cancelled (their drafts stay charged). */
async function cancelDraftedSteps(e: EnrollmentRecord, clock: Clock): Promise<void> {
  const iso = clock.now().toISOString();
  for (const id of e.email_ids) {
    await transition(e.account_id, id, ['pending_review', 'queued'], { status: 'cancelled', updated_at: iso, error: { code: 'enrollment_failed', message: 'Another step could not be drafted, so the enrollment cannot run.' } });
  }
}

/**
 * Where the sequence goes when its pass closes, from its enrollments as they are then:
 * - none still running: `completed` when one of them had a step sent, `failed` when all failed, else
 *   `cancelled` (e.g. the earlier ones expired unapproved and the new ones failed);
 * - review `none` (every enrollment waiting for review was approved with the pass) or one running: `active`;
 * - else: `pending_review` for the first pass, and the status it had before for a later one (`active` for a
 *   `completed` one, which has enrollments to run again).
 */
function nextStatus(s: SequenceRecord, enrollments: Pick<EnrollmentRecord, 'status'>[]): SequenceStatus {
  const pass = s.pass!;
  const live = enrollments.filter((e) => !TERMINAL_ENROLLMENT.includes(e.status));
  if (live.length === 0) {
    if (enrollments.some((e) => ['completed', 'replied', 'bounced'].includes(e.status))) return 'completed';
    return enrollments.every((e) => e.status === 'failed') ? 'failed' : 'cancelled';
  }
  if (pass.review === 'none' || live.some((e) => e.status === 'active')) return 'active';
  if (pass.prior_status === null || pass.prior_status === 'pending_review') return 'pending_review';
  return 'active';
}

/**
 * Close the open pass once every one of its emails is counted (drafted or failed) and its enrollments are
 * all written: with review `none`, first approve every enrollment of the sequence still waiting for review
 * (docs/decisions.md#sequences: `none` auto-approves every pending enrollment once drafting finishes; each approval is guarded,
 * so a second run after a crash only finishes them); then settle its reservation (2 credits per drafted email)
 * and move the sequence on, together. A lost race (a count moved meanwhile) is judged again. True when the
 * pass is closed (by this call or not).
 */
export async function closePassIfDone(accountId: string, sequenceId: string, clock: Clock, scheduler: Scheduler = awsScheduler): Promise<boolean> {
  for (let attempt = 0; attempt < CONFLICT_ATTEMPTS; attempt++) {
    if (attempt > 0) await new Promise((r) => setTimeout(r, Math.random() * Math.min(500, 10 * 2 ** attempt)));
    const s = await getSequenceHead(accountId, sequenceId);
    if (!s?.pass || s.status !== 'drafting') return true;
    const drafted = s.pass_drafted ?? 0;
    if ((s.pending_count ?? 0) > 0 || drafted + (s.pass_failed ?? 0) < s.pass.total) return false;
    let enrollments = await enrollmentsOf(s);
    if (s.pass.review === 'none' && enrollments.some((e) => e.status === 'pending_review')) {
      const waiting = enrollments.filter((x) => x.status === 'pending_review');
      await inBatches(waiting, APPROVE_CONCURRENCY, (e) => activateEnrollment(e, { clock, scheduler }));
      enrollments = await enrollmentsOf(s);
    }
    const now = clock.now();
    const settle = await pendingSettleWrites(accountId, s.pass.charge_id, drafted > 0 ? 'charged' : 'released', PRICES.sequence_per_draft * drafted, now);
    if (await closePass(s, nextStatus(s, enrollments), now.toISOString(), settle)) return true;
  }
  return false;
}
