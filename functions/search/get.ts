import { publicRoute } from '../../shared/http/handler.js';
import { jobCompanion } from '../../shared/jobs/jobs.companion.js';
import { pollJob, pollReadsJob } from '../../shared/jobs/poll-job.js';

/** GET /search/{job_id}/: the polling fallback: one round trip, the caller's key record with the job (only the key once the job has finished). */
export const handler = publicRoute({ companion: (params) => (pollReadsJob(params.job_id!) ? jobCompanion(params.job_id!) : null) }, async ({ accountId, params, preloaded }) => ({
  status: 200,
  body: await pollJob(accountId, params.job_id!, 'people_search', preloaded),
}));
