import type { SQSRecord } from 'aws-lambda';
import { pendingSettleWrites } from '../accounts/ledger.repository.js';
import { DEADLINES, after } from '../catalog/deadlines.js';
import { PRICES } from '../accounts/prices.js';
import { serviceClock, type Clock } from '../core/clock.js';
import { optionalEnv, requireEnv } from '../core/env.js';
import { QUEUES } from '../catalog/queues.js';
import { awsScheduler, type Scheduler } from '../adapters/scheduler.js';
import { bedrockDrafter } from './bedrock-drafter.js';
import { ComposerDrafter } from './composer/composer-drafter.js';
import { decoratedDrafter, DraftFailedError, type Drafter } from './drafter.js';
import { getEmail, transition, transitionOrCurrent } from './emails.repository.js';
import { REVIEW_WINDOW_MS, type EmailRecord } from './model.js';
import { reviewScheduleName, scheduleSend } from './schedule-send.js';
import { logger } from '../core/logger.js';
import { countMetric } from '../core/metrics.js';
import { messages } from '../catalog/messages.js';
import { draftStep, failStep } from '../sequences/step-drafting.js';

/**
 * The drafting worker: write the copy, then `drafting` → `pending_review` (review window 7 days, its
 * expiry a one-time schedule) or, with review `none`, straight to `queued` at an automatic send time.
 * 2 credits are kept only when a draft succeeds; a failed draft, or a cancel while drafting, costs nothing.
 * Redelivery is safe: the transition out of `drafting` happens once, in one transaction with settling the
 * reservation, and the next step is due on the email (DUE_INDEX) so the sweeper finishes what a crash left.
 */

let drafter: Drafter | undefined;
/** The built-in composer by default; Amazon Bedrock (Converse API) with DRAFTER=bedrock and BEDROCK_MODEL_ID. */
export function defaultDrafter(): Drafter {
  drafter ??= decoratedDrafter(optionalEnv('DRAFTER') === 'bedrock' ? bedrockDrafter(requireEnv('BEDROCK_MODEL_ID')) : new ComposerDrafter());
  return drafter;
}

/**
 * The email left `drafting` without this delivery: a concurrent delivery wrote the draft, or it was
 * cancelled or failed. Each of those settled the reservation in the same transaction, so nothing is left to
 * settle here; a draft waiting for review only needs its expiry schedule, which this makes sure of (a
 * schedule's name makes that idempotent; the sweeper expires it on time even without one).
 */
async function movedOn(email: EmailRecord, scheduler: Scheduler): Promise<void> {
  if (email.status === 'pending_review' && email.review_expires_at) {
    await scheduler.scheduleAt(reviewScheduleName(email.id), new Date(email.review_expires_at), messages.reviewExpired(email.account_id, email.id));
  }
}

/** A draft that cannot be written: `failed`, its reservation released in the same transaction. */
export async function failDraft(email: EmailRecord, message: string, clock: Clock, scheduler: Scheduler = awsScheduler): Promise<boolean> {
  // A sequence step's credits belong to its pass, and its failure ends its enrollment.
  if (email.sequence_id) return failStep(email, message, clock, scheduler);
  const now = clock.now();
  const release = await pendingSettleWrites(email.account_id, email.charge_id, 'released', 0, now);
  const failed = await transition(email.account_id, email.id, ['drafting'], { status: 'failed', updated_at: now.toISOString(), error: { code: 'draft_failed', message } }, [], { with: release });
  if (failed) countMetric('drafts_failed');
  return failed !== null;
}

export async function draftEmail(accountId: string, emailId: string, record: SQSRecord | null, deps: { clock?: Clock; drafter?: Drafter; scheduler?: Scheduler } = {}): Promise<void> {
  const clock = deps.clock ?? serviceClock;
  const scheduler = deps.scheduler ?? awsScheduler;
  const email = await getEmail(accountId, emailId);
  if (!email) return;
  if (email.sequence_id) return draftStep(email, record, { clock, scheduler, drafter: deps.drafter ?? defaultDrafter() });
  if (email.status !== 'drafting') return movedOn(email, scheduler);

  let draft;
  try {
    draft = await (deps.drafter ?? defaultDrafter()).draft({
      contact: email.contact,
      instructions: email.instructions,
      sender: { email: email.from_email },
      step: email.step,
    });
  } catch (e) {
    const last = Number(record?.attributes.ApproximateReceiveCount ?? 1) >= QUEUES.drafting.maxReceiveCount;
    if (!(e instanceof DraftFailedError) && !last) throw e; // transient: let the queue retry
    logger.warn('draft failed', { emailId, error: e as Error });
    await failDraft(email, e instanceof DraftFailedError ? e.message : 'Drafting failed; nothing was charged.', clock, scheduler);
    return;
  }

  // The draft, its charge and its next step's due time are one transaction.
  const now = clock.now();
  const charge = await pendingSettleWrites(accountId, email.charge_id, 'charged', PRICES.outreach_email, now);
  const base = { subject: draft.subject, body_plain: draft.body_plain, body_html: draft.body_html, drafted_at: now.toISOString(), updated_at: now.toISOString() };
  if (email.review === 'none') {
    const sendRequest = { mode: 'best_time' as const, send_at: null };
    const r = await transitionOrCurrent(accountId, emailId, ['drafting'], { ...base, status: 'queued', send_request: sendRequest }, [], { with: charge, due: after(now, DEADLINES.DISPATCH_GRACE_MS) });
    if (!r.moved) return r.current ? movedOn(r.current, scheduler) : undefined;
    countMetric('drafts');
    await scheduleSend(r.email, sendRequest.mode, undefined, { clock, scheduler });
    return;
  }
  const expires = new Date(now.getTime() + REVIEW_WINDOW_MS);
  // Due when the window closes: the sweeper expires it then even if its schedule was never created.
  const r = await transitionOrCurrent(accountId, emailId, ['drafting'], { ...base, status: 'pending_review', review_expires_at: expires.toISOString() }, [], { with: charge, due: expires });
  if (!r.moved) return r.current ? movedOn(r.current, scheduler) : undefined;
  countMetric('drafts');
  await scheduler.scheduleAt(reviewScheduleName(emailId), expires, messages.reviewExpired(accountId, emailId));
}
