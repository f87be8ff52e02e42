import { publicRoute } from '../../shared/http/handler.js';
import { jobCompanion } from '../../shared/jobs/jobs.companion.js';
import { pollJob, pollReadsJob } from '../../shared/jobs/poll-job.js';
import { requireAgenticEnabled } from '../../shared/agentic/agentic-enabled.js';

/** GET /agentic-search/{job_id}/: the polling envelope (tier `agentic_search`); 404 for an account not enrolled. */
export const handler = publicRoute({ companion: (params) => (pollReadsJob(params.job_id!) ? jobCompanion(params.job_id!) : null) }, async ({ accountId, params, preloaded }) => {
  await requireAgenticEnabled(accountId);
  return { status: 200, body: await pollJob(accountId, params.job_id!, 'agentic_search', preloaded) };
});
