import type { SQSRecord } from 'aws-lambda';
import { serviceClock, type Clock } from '../core/clock.js';
import { release, settleCharged } from '../accounts/ledger.repository.js';
import { enqueueJobWebhook } from '../webhooks/job-webhooks.js';
import { finishJob, getJob, markRunning } from './jobs.repository.js';
import { TERMINAL, type Job } from './model.js';

/**
 * The common course of a job worker, safe under redelivery:
 * 1. a finished job only makes sure its webhook is queued;
 * 2. `pending` → `running`;
 * 3. the job's own work computes an outcome (deterministic, so a retry computes the same one);
 * 4. the reservation is settled (charged for the outcome, or released on failure) — settle is conditional
 *    on the audit record being `pending`, so it happens once;
 * 5. the job is finished (conditional on not being finished) and its webhook queued.
 * An error on the last delivery attempt fails the job with code `error` rather than leaving it running.
 */
export type JobOutcome =
  | { status: 'completed'; event_type: string; result: Record<string, unknown>; leads_returned: number | null; charge: number; extra?: Record<string, unknown> }
  | { status: 'failed'; event_type: string; code: 'invalid_input' | 'error'; message: string };

export async function runJob(
  jobId: string,
  record: SQSRecord | null,
  work: (job: Job) => Promise<JobOutcome>,
  onCrash: (job: Job) => JobOutcome,
  opts: { maxReceiveCount: number; clock?: Clock },
): Promise<void> {
  const clock = opts.clock ?? serviceClock;
  const job = await getJob(jobId);
  if (!job) return;
  if (TERMINAL.includes(job.status)) {
    await enqueueJobWebhook(job);
    return;
  }
  if (job.status === 'pending') await markRunning(jobId, clock.now().toISOString());

  let outcome: JobOutcome;
  try {
    outcome = await work(job);
  } catch (e) {
    const receives = Number(record?.attributes.ApproximateReceiveCount ?? 1);
    if (receives < opts.maxReceiveCount) throw e;
    outcome = onCrash(job);
  }

  if (outcome.status === 'completed') await settleCharged(job.account_id, job.charge_id, outcome.charge, clock);
  else await release(job.account_id, job.charge_id, clock);

  await finishJob(jobId, {
    status: outcome.status,
    now: clock.now().toISOString(),
    result: outcome.status === 'completed' ? outcome.result : null,
    error: outcome.status === 'failed' ? { code: outcome.code, message: outcome.message } : null,
    leads_returned: outcome.status === 'completed' ? outcome.leads_returned : null,
    event_type: outcome.event_type,
    extra: outcome.status === 'completed' ? outcome.extra : undefined,
  });
  const finished = await getJob(jobId);
  if (finished) await enqueueJobWebhook(finished);
}
