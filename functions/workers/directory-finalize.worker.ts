import { queueWorker } from '../../shared/workers/dispatch.js';
import { directoryFinalizeHandlers } from '../../shared/workers/directory-import.handlers.js';

export const handler = queueWorker('directory-finalize', directoryFinalizeHandlers);
