import type { Companion } from '../accounts/caller.repository.js';
import { jobsKeys } from './jobs.keys.js';
import type { Job } from './model.js';

/** A job read in the same BatchGetItem as the caller's key record (accounts/caller.repository.ts). */
export const jobCompanion = (jobId: string): Companion<Job> => ({ table: 'jobs', key: jobsKeys.job(jobId), decode: (item) => item as unknown as Job });
