import { userRoute } from '../../shared/http/handler.js';
import { redeliverJobEvent } from '../../shared/jobs/queue-delivery.js';

/** POST /api/app/v1/jobs/{job_id}/webhook-deliveries/redeliver/: queue one more delivery of the job's event (202). */
export const handler = userRoute({}, async ({ accountId, params }) => ({ status: 202, body: await redeliverJobEvent(accountId, params.job_id!) }));
