import { serviceClock, type Clock } from '../core/clock.js';
import { sendMessage } from '../adapters/queue.js';
import { isSearchJobKind, messages } from '../catalog/messages.js';
import { DEADLINES, after, nextLook, type SweepAction } from '../catalog/deadlines.js';
import { WEBHOOK_LEASE_MS } from '../jobs/queue-delivery.js';
import { clearJobDue, getJob, postponeJob } from '../jobs/jobs.repository.js';
import { endJob, lostJobOutcome } from '../jobs/run-job.js';
import { TERMINAL, type Job } from '../jobs/model.js';
import { endLostBulkJob } from '../enrichment/bulk-progress.js';
import { isAgenticJob } from '../agentic/model.js';
import { sweepAgenticJob } from '../agentic/sweep-agentic.js';

/**
 * A job found on the due index (its next step is overdue):
 * - `pending` within its deadline: its message was lost; send it again (running a job twice is harmless).
 * - `pending` or `running` past its deadline (DEADLINES.JOB_MS, longer than its queue retries it): ended
 *   `failed`, its reservation released and its webhook queued, all in one transaction.
 * - an agentic search still pending or running: its own rules (shared/agentic/sweep-agentic.ts).
 * - finished with its webhook `queued`: the delivery message (or the schedule of a long retry) was lost;
 *   send the next attempt again, unless a live attempt holds the lease.
 * - anything else has nothing left to do: off the index.
 */
export async function sweepJob(jobId: string, clock: Clock = serviceClock): Promise<SweepAction> {
  const job = await getJob(jobId);
  if (!job) return 'none';
  const now = clock.now();
  if (isAgenticJob(job) && (job.status === 'pending' || job.status === 'running')) return sweepAgenticJob(job, clock);
  if (job.status === 'pending' || job.status === 'running') {
    if (now.getTime() >= after(job.created_at, DEADLINES.JOB_MS).getTime()) {
      await endLostJob(job, clock);
      return 'ended';
    }
    if (job.status === 'running' || !isSearchJobKind(job.tier)) {
      await postponeJob(job.id, { status: job.status }, after(job.created_at, DEADLINES.JOB_MS));
      return 'postponed';
    }
    await sendMessage('search', messages.job(job.tier, job.id));
    await postponeJob(job.id, { status: 'pending' }, nextLook(now, job.created_at));
    return 'redriven';
  }
  if (TERMINAL.includes(job.status) && job.webhook_status === 'queued') {
    const attempts = job.webhook_attempts?.length ?? 0;
    const leased = job.webhook_lease && job.webhook_lease.attempt === attempts + 1 && job.webhook_lease.until_ms > Date.now();
    if (!leased) await sendMessage('webhooks', messages.deliverJobEvent(job.id, attempts + 1));
    await postponeJob(job.id, { attempts }, leased ? after(now, WEBHOOK_LEASE_MS) : nextLook(now, job.webhook_attempts?.at(-1)?.next_retry_at ?? job.completed_at ?? job.updated_at));
    return leased ? 'postponed' : 'redriven';
  }
  await clearJobDue(job.id);
  return 'cleared';
}

/**
 * End a job whose run was lost. A bulk enrichment completes with the results it has and its undone items
 * `failed` and released (its done items were charged and must stay visible); any other job fails.
 */
export async function endLostJob(job: Job, clock: Clock = serviceClock): Promise<void> {
  if (job.tier === 'bulk_enrich') return endLostBulkJob(job.id, clock);
  await endJob(job, lostJobOutcome(job), clock);
}
