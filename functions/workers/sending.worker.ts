import { queueWorker } from '../../shared/workers/dispatch.js';
import { sendingHandlers } from '../../shared/workers/registry.js';

export const handler = queueWorker(sendingHandlers);
