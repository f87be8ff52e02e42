import { queueWorker } from '../../shared/workers/dispatch.js';
import { webhooksHandlers } from '../../shared/workers/webhooks.handlers.js';

export const handler = queueWorker('webhooks', webhooksHandlers);
