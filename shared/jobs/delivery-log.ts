import { NotFoundError } from '../core/errors.js';
import { getJob } from './jobs.repository.js';
import type { WebhookAttempt } from './model.js';
import { isDeliveryErrorClass } from '../webhooks/delivery-errors.js';

/**
 * An attempt as served: its error is a class (delivery-errors.ts). An attempt stored before errors were
 * classified may hold a socket message naming an address and port; it is served as `other`.
 */
export function servedAttempt(a: WebhookAttempt): WebhookAttempt {
  return { ...a, error: a.error === null || a.error === undefined ? null : isDeliveryErrorClass(a.error) ? a.error : 'other' };
}

/**
 * The delivery log of a job's webhook (console GET accounts/{id}/jobs/{job_id}/webhook-deliveries/):
 * each attempt's time, status code or error class, and the next retry. A job of another account is a 404.
 */
export async function webhookDeliveryLog(accountId: string, jobId: string) {
  const job = await getJob(jobId);
  if (!job || job.account_id !== accountId) throw new NotFoundError('Job not found.');
  return { job_id: job.id, event_type: job.event_type ?? null, status: job.webhook_status ?? null, attempts: (job.webhook_attempts ?? []).map(servedAttempt) };
}
