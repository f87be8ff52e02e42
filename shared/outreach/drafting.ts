import type { SQSRecord } from 'aws-lambda';
import { release, settleCharged } from '../accounts/ledger.repository.js';
import { serviceClock, type Clock } from '../core/clock.js';
import { optionalEnv, requireEnv } from '../core/env.js';
import { BedrockRuntimeClient, ConverseCommand, type ConverseCommandInput } from '@aws-sdk/client-bedrock-runtime';
import { QUEUES } from '../catalog/queues.js';
import { awsScheduler, scheduleName, type Scheduler } from '../adapters/scheduler.js';
import { BedrockDrafter, ComposerDrafter, DraftFailedError, type Drafter } from './drafter.js';
import { getEmail, transition, transitionOrCurrent } from './emails.repository.js';
import type { EmailRecord } from './model.js';
import { DRAFT_PRICE } from './create-email.js';
import { scheduleSend } from './sending-schedule.js';
import { logger } from '../core/logger.js';
import { messages } from '../catalog/messages.js';

/**
 * The drafting worker: write the copy, then `drafting` → `pending_review` (review window 7 days, its
 * expiry a one-time schedule) or, with review `none`, straight to `queued` at an automatic send time.
 * 2 credits are kept only when a draft succeeds; a failed draft, or a cancel while drafting, costs nothing.
 * Redelivery is safe: the transition out of `drafting` happens once, and settling is conditional.
 */
export const REVIEW_WINDOW_MS = 7 * 24 * 3600 * 1000;

let drafter: Drafter | undefined;
/** The built-in composer by default; Amazon Bedrock (Converse API) with DRAFTER=bedrock and BEDROCK_MODEL_ID. */
export function defaultDrafter(): Drafter {
  if (!drafter) {
    if (optionalEnv('DRAFTER') === 'bedrock') {
      const client = new BedrockRuntimeClient({});
      drafter = new BedrockDrafter({ modelId: requireEnv('BEDROCK_MODEL_ID'), send: (input) => client.send(new ConverseCommand(input as ConverseCommandInput)) as never });
    } else {
      drafter = new ComposerDrafter();
    }
  }
  return drafter;
}

export const reviewScheduleName = (emailId: string) => scheduleName('review', emailId);

/**
 * The email left `drafting` without this delivery: a concurrent delivery wrote the draft (it keeps its
 * charge: `drafted_at` is set in the same write as the status), or it was cancelled mid-draft (released).
 * Both settles are conditional, so whichever delivery gets here first decides, once.
 */
async function settleMovedOn(email: EmailRecord, clock: Clock): Promise<void> {
  if (email.drafted_at) await settleCharged(email.account_id, email.charge_id, DRAFT_PRICE, clock);
  else await release(email.account_id, email.charge_id, clock);
}

export async function draftEmail(accountId: string, emailId: string, record: SQSRecord | null, deps: { clock?: Clock; drafter?: Drafter; scheduler?: Scheduler } = {}): Promise<void> {
  const clock = deps.clock ?? serviceClock;
  const scheduler = deps.scheduler ?? awsScheduler;
  const email = await getEmail(accountId, emailId);
  if (!email) return;
  if (email.status !== 'drafting') return settleMovedOn(email, clock);

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
    const failed = await transition(accountId, emailId, ['drafting'], {
      status: 'failed',
      updated_at: clock.now().toISOString(),
      error: { code: 'draft_failed', message: e instanceof DraftFailedError ? e.message : 'Drafting failed; nothing was charged.' },
    });
    if (failed) await release(accountId, email.charge_id, clock);
    return;
  }

  const now = clock.now();
  const base = { subject: draft.subject, body_plain: draft.body_plain, body_html: draft.body_html, drafted_at: now.toISOString(), updated_at: now.toISOString() };
  if (email.review === 'none') {
    const r = await transitionOrCurrent(accountId, emailId, ['drafting'], { ...base, status: 'queued' });
    if (!r.moved) return r.current ? settleMovedOn(r.current, clock) : undefined;
    await settleCharged(accountId, email.charge_id, DRAFT_PRICE, clock);
    await scheduleSend(r.email, 'best_time', undefined, { clock, scheduler });
    return;
  }
  const expires = new Date(now.getTime() + REVIEW_WINDOW_MS);
  const r = await transitionOrCurrent(accountId, emailId, ['drafting'], { ...base, status: 'pending_review', review_expires_at: expires.toISOString() });
  if (!r.moved) return r.current ? settleMovedOn(r.current, clock) : undefined;
  await settleCharged(accountId, email.charge_id, DRAFT_PRICE, clock);
  await scheduler.scheduleAt(reviewScheduleName(emailId), expires, messages.reviewExpired(accountId, emailId));
}
