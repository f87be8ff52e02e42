import { userRoute } from '../../shared/http/handler.js';
import { webhookDeliveryLog } from '../../shared/jobs/delivery-log.js';

/** GET /api/app/v1/jobs/{job_id}/webhook-deliveries/: the job's delivery log. */
export const handler = userRoute({}, async ({ accountId, params }) => ({ status: 200, body: await webhookDeliveryLog(accountId, params.job_id!) }));
