import { consoleRoute } from '../../shared/http/handler.js';
import { webhookDeliveryLog } from '../../shared/jobs/delivery-log.js';

export const handler = consoleRoute({}, async ({ params }) => ({ status: 200, body: await webhookDeliveryLog(params.id!, params.job_id!) }));
