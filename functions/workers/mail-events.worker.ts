import { queueWorker } from '../../shared/workers/dispatch.js';
import { mailEventHandlers } from '../../shared/workers/mail-events.handlers.js';

export const handler = queueWorker('mail-events', mailEventHandlers);
