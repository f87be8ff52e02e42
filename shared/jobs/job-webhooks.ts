import { activeWebhookSecrets } from '../accounts/accounts.repository.js';
import { sealContext, secretBox } from '../adapters/secret-box.js';
import { sendMessage } from '../adapters/queue.js';
import { awsScheduler, scheduleName, type Scheduler } from '../adapters/scheduler.js';
import { serviceClock, type Clock } from '../core/clock.js';
import { getJob, leaseWebhookAttempt, recordWebhookAttempt } from './jobs.repository.js';
import { jobResult, type Job } from './model.js';
import { deliverWebhook, nextRetryDelaySeconds, type DeliveryResult } from '../webhooks/deliver.js';
import { validateWebhookUrl, WEBHOOK_HOST_DOES_NOT_RESOLVE } from '../adapters/web-target.js';
import type { DeliveryErrorClass } from '../webhooks/delivery-errors.js';
import { signWebhook } from '../webhooks/sign.js';
import { webhookTargetPolicy } from '../adapters/webhook-targets.js';
import { logger } from '../core/logger.js';
import { countMetric } from '../core/metrics.js';
import { messages } from '../catalog/messages.js';
import { WEBHOOK_LEASE_MS } from './queue-delivery.js';

/**
 * Webhook delivery of a finished job's event (docs/decisions.md#events-and-webhooks, docs/decisions.md#decisions-the-contract-leaves-open).
 *
 * 1. The body is the job's stored result plus `id` and `event_type`; `webhook-id` is fixed per job, so a
 *    subscriber can deduplicate retries.
 * 2. The target is validated again at every attempt and the connection pinned to the checked address
 *    (no DNS rebinding). On the local twin only loopback addresses are ever contacted.
 * 3. Each attempt is logged once on the job (attempt number, status, error class, next retry). The error is a
 *    class (delivery-errors.ts), never a socket message: the log must not tell which addresses or ports answer.
 * 4. Failures retry after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h; the short wait rides on an SQS delay,
 *    the longer ones on a one-time Scheduler schedule (so the local service clock moves them too).
 */
export const SQS_DELAY_LIMIT_SECONDS = 60;

export function eventBody(job: Job): Record<string, unknown> {
  return { id: job.id, event_type: job.event_type, ...(jobResult(job) ?? {}) };
}

export const webhookMessageId = (jobId: string) => `msg_${jobId}`;

/** A redelivery found attempt n leased by a live (or not yet expired) attempt: retried after the visibility timeout. */
export class DeliveryInProgressError extends Error {
  constructor(jobId: string, attempt: number) {
    super(`webhook attempt ${attempt} of job ${jobId} is leased by another delivery`);
    this.name = 'DeliveryInProgressError';
  }
}

async function attemptDelivery(job: Job, body: string, clock: Clock): Promise<DeliveryResult> {
  const started = Date.now();
  const fail = (error: DeliveryErrorClass): DeliveryResult => ({ ok: false, status: null, error, durationMs: Date.now() - started });
  const policy = webhookTargetPolicy();
  let target;
  try {
    target = await validateWebhookUrl(job.request.webhook_url, { resolver: policy.resolver, allowLoopback: policy.allowLoopback });
  } catch (e) {
    // No longer a valid target (its host moved to an internal address, a refused port, …).
    return fail((e as Error).message === WEBHOOK_HOST_DOES_NOT_RESOLVE ? 'dns' : 'blocked_address');
  }
  if (policy.refuseConnection(target.address)) return fail('blocked_address');
  const sealed = await activeWebhookSecrets(job.account_id);
  if (!sealed.length) return fail('no_signing_secret'); // never sent unsigned
  const box = await secretBox();
  const secrets = await Promise.all(sealed.map((s) => box.open(s.sealed, sealContext.webhookSecret(job.account_id, s.id))));
  const headers = signWebhook({ secrets, msgId: webhookMessageId(job.id), timestamp: clock.now(), body });
  return deliverWebhook({ target, headers, body, timeoutMs: 15_000 });
}

export async function deliverJobEvent(jobId: string, attempt: number, deps: { clock?: Clock; scheduler?: Scheduler } = {}): Promise<void> {
  const clock = deps.clock ?? serviceClock;
  const scheduler = deps.scheduler ?? awsScheduler;
  const job = await getJob(jobId);
  if (!job || !job.event_type) return;
  if (job.webhook_status === 'delivered' || job.webhook_status === 'failed') return;
  if ((job.webhook_attempts?.length ?? 0) >= attempt) return; // this attempt already happened
  // A lease left by a crashed process expires; until then the message comes back later rather than being
  // consumed with the attempt never made.
  if (!(await leaseWebhookAttempt(jobId, attempt, Date.now(), WEBHOOK_LEASE_MS))) throw new DeliveryInProgressError(jobId, attempt);

  const result = await attemptDelivery(job, JSON.stringify(eventBody(job)), clock);
  await recordAttempt(jobId, attempt, result, { clock, scheduler });
}

/** Log attempt n once and plan the next one on the retry ladder (or give up after the last). */
async function recordAttempt(jobId: string, attempt: number, result: DeliveryResult, deps: { clock: Clock; scheduler: Scheduler }): Promise<void> {
  const { clock, scheduler } = deps;
  const delay = result.ok ? null : nextRetryDelaySeconds(attempt);
  const nextAt = delay === null ? null : new Date(clock.now().getTime() + delay * 1000);
  const recorded = await recordWebhookAttempt(
    jobId,
    { attempt, at: clock.now().toISOString(), status: result.status, error: result.error, duration_ms: result.durationMs, next_retry_at: nextAt?.toISOString() ?? null },
    result.ok ? 'delivered' : delay === null ? 'failed' : 'queued',
  );
  // Once per attempt: only the delivery that logs attempt n counts it.
  if (recorded) {
    countMetric('webhook_attempts');
    if (!result.ok) countMetric('webhook_failures');
  }
  if (!recorded || !nextAt || delay === null) {
    if (!result.ok && delay === null) logger.warn('webhook delivery gave up; the result stays pollable', { jobId, attempts: attempt });
    return;
  }
  if (delay <= SQS_DELAY_LIMIT_SECONDS) await sendMessage('webhooks', messages.deliverJobEvent(jobId, attempt + 1), delay);
  else await scheduler.scheduleAt(scheduleName('whretry', jobId, String(attempt + 1)), nextAt, messages.webhookRetry(jobId, attempt + 1));
}

/**
 * A delivery message that dead-lettered (its worker failed every time, e.g. timed out): attempt n is logged
 * as failed without a response, and the next attempt planned on the ladder as for any failure.
 */
export async function recordDeadAttempt(jobId: string, attempt: number, deps: { clock?: Clock; scheduler?: Scheduler } = {}): Promise<void> {
  const job = await getJob(jobId);
  if (!job || job.webhook_status !== 'queued' || (job.webhook_attempts?.length ?? 0) >= attempt) return;
  const result: DeliveryResult = { ok: false, status: null, error: 'other', durationMs: 0 };
  await recordAttempt(jobId, attempt, result, { clock: deps.clock ?? serviceClock, scheduler: deps.scheduler ?? awsScheduler });
}

/** Timer target: a long webhook wait is over; hand the attempt back to the webhooks queue. */
export async function webhookRetryDue(message: { job_id: string; attempt: number }): Promise<void> {
  await sendMessage('webhooks', messages.deliverJobEvent(message.job_id, message.attempt));
}
