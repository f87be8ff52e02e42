import { queueWorker } from '../../shared/workers/dispatch.js';
import { draftingHandlers } from '../../shared/workers/drafting.handlers.js';

export const handler = queueWorker('drafting', draftingHandlers);
