import { queueWorker } from '../../shared/workers/dispatch.js';
import { webhooksHandlers } from '../../shared/workers/registry.js';

export const handler = queueWorker(webhooksHandlers);
