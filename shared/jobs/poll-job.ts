import { NotFoundError } from '../core/errors.js';
import { getOwnJob } from './jobs.repository.js';
import { pollingView, type Job, type JobTier } from './model.js';

/**
 * Polling is free. The job usually arrives read already, in the caller's key round trip (`preloaded`:
 * null when it does not exist); someone else's job, or another kind's, is a 404 like a missing one.
 */
export async function pollJob(accountId: string, jobId: string, tier: JobTier, preloaded?: Job | null) {
  const job = preloaded === undefined ? await getOwnJob(accountId, jobId, tier) : preloaded;
  if (!job || job.account_id !== accountId || job.tier !== tier) throw new NotFoundError('Job not found.');
  return pollingView(job);
}
