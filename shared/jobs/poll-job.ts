import { NotFoundError } from '../core/errors.js';
import { getJob } from './jobs.repository.js';
import { FinishedJobs } from './finished-jobs.js';
import { pollingView, type Job, type JobTier } from './model.js';

const finishedJobs = new FinishedJobs(1_000);

/** Whether a poll of this job must read it: not when this process already holds it finished. */
export const pollReadsJob = (jobId: string): boolean => !finishedJobs.has(jobId);

/**
 * Polling is free. The job is a finished one this process already holds, or arrives read already in the
 * caller's key round trip (`preloaded`: null when it does not exist), or is read here. Someone else's
 * job, or another kind's, is a 404 like a missing one.
 */
export async function pollJob(accountId: string, jobId: string, tier: JobTier, preloaded?: Job | null) {
  const job = finishedJobs.get(jobId) ?? (preloaded === undefined ? await getJob(jobId) : preloaded);
  if (job) finishedJobs.offer(job);
  if (!job || job.account_id !== accountId || job.tier !== tier) throw new NotFoundError('Job not found.');
  return pollingView(job);
}
