import { publicRoute } from '../../shared/http/handler.js';
import { jobCompanion } from '../../shared/accounts/caller.repository.js';
import { pollJob } from '../../shared/jobs/poll-job.js';

/** GET /enrich/phone/{job_id}/: the polling fallback; the job is read with the caller's key, in one round trip. */
export const handler = publicRoute({ companion: (params) => jobCompanion(params.job_id!) }, async ({ accountId, params, preloaded }) => ({
  status: 200,
  body: await pollJob(accountId, params.job_id!, 'phone_enrich', preloaded),
}));
