import { userRoute } from '../../shared/http/handler.js';
import { accountJobView } from '../../shared/jobs/account-jobs.js';

/** GET /api/app/v1/jobs/{job_id}/: the job as the public polling envelope. */
export const handler = userRoute({}, async ({ accountId, params }) => ({ status: 200, body: await accountJobView(accountId, params.job_id!) }));
