import type { SQSRecord } from 'aws-lambda';
import { serviceClock, type Clock } from '../core/clock.js';
import { pendingSettleWrites } from '../accounts/ledger.repository.js';
import { sendFirstDelivery } from './queue-delivery.js';
import { finishJob, getJob, markRunning, type JobFinish } from './jobs.repository.js';
import { countJobEnded } from './job-metrics.js';
import { TERMINAL, type Job } from './model.js';
import { FAILURE_MESSAGES } from '../webhooks/events.js';
import { isSearchJobKind, type SearchJobKind } from '../catalog/messages.js';

/**
 * The common course of a job worker, safe under redelivery and after a crash at any step:
 * 1. a finished job only makes sure its first webhook delivery is on its way;
 * 2. `pending` → `running` (from then on the job is due at its deadline, see DEADLINES.JOB_MS);
 * 3. the job's own work computes an outcome (deterministic, so a retry computes the same one);
 * 4. one transaction finishes the job, settles its reservation (charged for the outcome, or released on
 *    failure) and queues its webhook, so no crash can leave one without the others;
 * 5. the first delivery message is sent (the sweeper sends it again if it is lost).
 * An error on the last delivery attempt fails the job with code `error` rather than leaving it running.
 */
export type JobOutcome =
  | { status: 'completed'; event_type: string; result: Record<string, unknown>; leads_returned: number; charge: number; extra?: Record<string, unknown> }
  | { status: 'failed'; event_type: string; code: 'invalid_input' | 'error'; message: string; extra?: Record<string, unknown> };

/** Record a job's outcome, its charge and its queued webhook in one transaction, then send the delivery. */
export async function endJob(job: Job, outcome: JobOutcome, clock: Clock = serviceClock): Promise<void> {
  const now = clock.now();
  const settle =
    outcome.status === 'completed'
      ? await pendingSettleWrites(job.account_id, job.charge_id, outcome.charge === 0 ? 'zero_result' : 'charged', outcome.charge, now)
      : await pendingSettleWrites(job.account_id, job.charge_id, 'released', 0, now);
  const finish: JobFinish = {
    status: outcome.status,
    now: now.toISOString(),
    result: outcome.status === 'completed' ? outcome.result : null,
    error: outcome.status === 'failed' ? { code: outcome.code, message: outcome.message } : null,
    leads_returned: outcome.status === 'completed' ? outcome.leads_returned : 0,
    event_type: outcome.event_type,
    extra: outcome.extra,
  };
  if (await finishJob(job.id, finish, settle)) countJobEnded(job, outcome.status, { at: now, leads: finish.leads_returned, result: finish.result });
  const finished = await getJob(job.id);
  if (finished) await sendFirstDelivery(finished);
}

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
  if (TERMINAL.includes(job.status)) return sendFirstDelivery(job);
  if (job.status === 'pending') await markRunning(job, clock.now().toISOString());

  let outcome: JobOutcome;
  try {
    outcome = await work(job);
  } catch (e) {
    const receives = Number(record?.attributes.ApproximateReceiveCount ?? 1);
    if (receives < opts.maxReceiveCount) throw e;
    outcome = onCrash(job);
  }
  await endJob(job, outcome, clock);
}

/**
 * The outcome of a job whose run was lost (its message dead-lettered, or its deadline passed with the job
 * still unfinished): `failed` with code `error`, so its reservation is released and its webhook says so.
 */
const LOST_JOB: Record<SearchJobKind, { event_type: string; message: string }> = {
  people_search: { event_type: 'search.failed', message: FAILURE_MESSAGES.search.error },
  phone_enrich: { event_type: 'phone_enrich.failed', message: FAILURE_MESSAGES.phone_enrich.error },
  deep_search: { event_type: 'deep_search.failed', message: FAILURE_MESSAGES.deep_search.error },
  // Never used to end one (endLostJob of workers/sweep-job.ts completes it with its items instead); here for the record's completeness.
  bulk_enrich: { event_type: 'bulk_enrich.failed', message: 'bulk enrichment failed, retry' },
};

export function lostJobOutcome(job: Job): JobOutcome {
  const lost = isSearchJobKind(job.tier) ? LOST_JOB[job.tier] : { event_type: `${job.tier}.failed`, message: 'the job failed, retry' };
  return { status: 'failed', event_type: lost.event_type, code: 'error', message: lost.message };
}
