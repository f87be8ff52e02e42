import { queueWorker } from '../../shared/workers/dispatch.js';
import { sendingHandlers } from '../../shared/workers/sending.handlers.js';

export const handler = queueWorker('sending', sendingHandlers);
