import { NotFoundError } from '../core/errors.js';
import { getOwnJob } from './jobs.repository.js';
import { pollingView, type JobTier } from './model.js';

/** Polling is free: one read after auth; someone else's job (or another kind's) is a 404. */
export async function pollJob(accountId: string, jobId: string, tier: JobTier) {
  const job = await getOwnJob(accountId, jobId, tier);
  if (!job) throw new NotFoundError('Job not found.');
  return pollingView(job);
}
