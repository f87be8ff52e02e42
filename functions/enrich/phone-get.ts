import { publicRoute } from '../../shared/http/handler.js';
import { pollJob } from '../../shared/jobs/poll-job.js';

/** GET /enrich/phone/{job_id}/: the polling fallback. */
export const handler = publicRoute({}, async ({ account, params }) => ({ status: 200, body: await pollJob(account.id, params.job_id!, 'phone_enrich') }));
