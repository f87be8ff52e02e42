import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { logger } from '../core/logger.js';

/**
 * Every queue carries JSON messages `{kind, ...}`; a worker is a table from kind to use case. Failures are
 * reported per message (Powertools BatchProcessor → `batchItemFailures`), so one bad message is retried
 * alone and reaches the DLQ after the queue's maxReceiveCount. Use cases must be idempotent: a message
 * can be delivered more than once.
 */
export interface QueueMessage {
  kind: string;
  [k: string]: unknown;
}

export type MessageHandler = (message: QueueMessage, record: SQSRecord) => Promise<void>;

export class UnknownMessageKindError extends Error {
  constructor(kind: string) {
    super(`no handler for message kind "${kind}"`);
    this.name = 'UnknownMessageKindError';
  }
}

export function queueWorker(handlers: Record<string, MessageHandler>): (event: SQSEvent, context: Context) => Promise<SQSBatchResponse> {
  const processor = new BatchProcessor(EventType.SQS);
  const record = async (r: SQSRecord) => {
    const message = JSON.parse(r.body) as QueueMessage;
    const handle = handlers[message.kind];
    if (!handle) throw new UnknownMessageKindError(String(message.kind));
    try {
      await handle(message, r);
    } catch (e) {
      logger.warn('message failed; it will be retried', { kind: message.kind, messageId: r.messageId, receiveCount: r.attributes.ApproximateReceiveCount, error: e as Error });
      throw e;
    }
  };
  return (event, context) => processPartialResponse(event, record, processor, { context });
}
