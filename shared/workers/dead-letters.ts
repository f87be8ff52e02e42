import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';

/** The dead-letter consumer (skeleton; the terminal-state logic follows in the next commit). */
export const deadLetterHandler = async (_event: SQSEvent): Promise<SQSBatchResponse> => ({ batchItemFailures: [] });
