/**
 * Putting a job's webhook delivery on the queue (docs/decisions.md#decisions-the-contract-leaves-open), apart from the delivery itself
 * (job-webhooks.ts): the job workers, the agentic cancel, the sweeper and the redeliver route queue an attempt
 * without loading the signing secrets' decryption, the Scheduler client, the signer and the HTTP delivery
 * (`npm run bench`: the agentic cancel 437 → 368 KB).
 */
import { sendMessage } from '../adapters/queue.js';
import { messages } from '../catalog/messages.js';
import { ConflictError } from '../core/errors.js';
import { serviceClock } from '../core/clock.js';
import { reopenWebhookDelivery } from './jobs.repository.js';
import { assertRedeliverable, requireAccountJob } from './account-jobs.js';
import type { Job } from './model.js';

/** Longer than the 15 s delivery timeout, so a live attempt always holds its lease to the end. */
export const WEBHOOK_LEASE_MS = 60_000;

/**
 * After a job finishes (its `webhook_status` set to `queued` in the same write): put its first delivery on
 * the webhooks queue. Sending it twice is harmless (an attempt is leased and recorded once), so a
 * redelivered job message, or the sweeper after a lost one, simply sends it again.
 */
export async function sendFirstDelivery(job: Job): Promise<void> {
  if (job.webhook_status !== 'queued' || (job.webhook_attempts?.length ?? 0) > 0) return;
  await sendMessage('webhooks', messages.deliverJobEvent(job.id, 1));
}

/**
 * The web app's "redeliver": one more delivery of a finished job's event, as attempt n+1 of the same
 * machinery (signed, logged, retried on failure like any other). 409 when the job has no webhook, has not
 * finished, or a delivery is already queued (including a redeliver that raced this one).
 */
export async function redeliverJobEvent(accountId: string, jobId: string, now: Date = serviceClock.now()) {
  const job = await requireAccountJob(accountId, jobId);
  assertRedeliverable(job);
  const attempts = job.webhook_attempts?.length ?? 0;
  if (!(await reopenWebhookDelivery(job.id, attempts, now))) throw new ConflictError('A delivery of this job is already queued.');
  await sendMessage('webhooks', messages.deliverJobEvent(job.id, attempts + 1));
  return { job_id: job.id, attempt: attempts + 1, status: 'queued' as const };
}
