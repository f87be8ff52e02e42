import { queueWorker } from '../../shared/workers/dispatch.js';
import { searchHandlers } from '../../shared/workers/search.handlers.js';

export const handler = queueWorker('search', searchHandlers);
