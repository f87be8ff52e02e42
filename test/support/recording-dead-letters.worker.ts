import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { handler as deadLetters } from '../../functions/workers/dead-letters.worker.js';

const consume: (event: SQSEvent, context: Context) => Promise<SQSBatchResponse> = deadLetters;

/**
 * The real dead-letter consumer, with every event it is given kept on `globalThis.deadLetterEvents`, so a test
 * can see what the local DLQ runners hand it (loaded through the local stack's `workerModules` option).
 */
export const handler = (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
  const events = ((globalThis as { deadLetterEvents?: SQSEvent[] }).deadLetterEvents ??= []);
  events.push(event);
  return consume(event, context);
};
