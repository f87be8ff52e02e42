import { deadLetterHandler } from '../../shared/workers/dead-letters.js';

/** One event source per DLQ: a message that gave up ends its workflow cleanly (job failed, credits released). */
export const handler = deadLetterHandler;
