import { queueWorker } from '../../shared/workers/dispatch.js';
import { draftingHandlers } from '../../shared/workers/registry.js';

export const handler = queueWorker(draftingHandlers);
