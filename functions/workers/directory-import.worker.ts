import { queueWorker } from '../../shared/workers/dispatch.js';
import { directoryImportHandlers } from '../../shared/workers/directory-import.handlers.js';

export const handler = queueWorker('directory-import', directoryImportHandlers);
