import { publicRoute } from '../../shared/http/handler.js';
import { jobCompanion } from '../../shared/jobs/jobs.companion.js';
import { pollJob, pollReadsJob } from '../../shared/jobs/poll-job.js';

/** GET /enrich/bulk/{job_id}/: the polling envelope of a bulk enrichment (free). */
export const handler = publicRoute({ companion: (params) => (pollReadsJob(params.job_id!) ? jobCompanion(params.job_id!) : null) }, async ({ accountId, params, preloaded }) => ({
  status: 200,
  body: await pollJob(accountId, params.job_id!, 'bulk_enrich', preloaded),
}));
