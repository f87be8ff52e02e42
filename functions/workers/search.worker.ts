import { queueWorker } from '../../shared/workers/dispatch.js';
import { searchHandlers } from '../../shared/workers/registry.js';

export const handler = queueWorker(searchHandlers);
