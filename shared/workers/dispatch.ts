import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { QueueKey } from '../catalog/queues.js';
import { MalformedMessageError, parseMessage, type KindOf, type MessageOf } from '../catalog/messages.js';
import { logger } from '../core/logger.js';
import { flushMetrics, observeMetric } from '../core/metrics.js';

/**
 * A worker is a table from message kind to use case, typed by its queue's message union
 * (shared/catalog/messages.ts). Every body is parsed with the queue's schema before any use case runs.
 * Failures are reported per message (Powertools BatchProcessor → `batchItemFailures`), so a malformed or
 * failing message is retried alone and reaches the DLQ after the queue's maxReceiveCount; the rest of its
 * batch completes. Use cases must be idempotent: a message can be delivered more than once.
 */
export type MessageHandlers<Q extends QueueKey> = {
  [K in KindOf<Q>]: (message: Extract<MessageOf<Q>, { kind: K }>, record: SQSRecord) => Promise<void>;
};

/** Run one record: parse it as a message of `queue` and hand it to the handler of its kind. */
export async function handleRecord<Q extends QueueKey>(queue: Q, handlers: MessageHandlers<Q>, r: SQSRecord): Promise<void> {
  let message: MessageOf<Q>;
  try {
    message = parseMessage(queue, r.body);
  } catch (e) {
    if (e instanceof MalformedMessageError) {
      logger.error('malformed message; it fails alone until the DLQ takes it', { queue, kind: e.kind, messageId: r.messageId, issues: e.issues, receiveCount: r.attributes.ApproximateReceiveCount });
    }
    throw e;
  }
  const handle = handlers[message.kind as KindOf<Q>] as (m: MessageOf<Q>, r: SQSRecord) => Promise<void>;
  try {
    await handle(message, r);
  } catch (e) {
    logger.warn('message failed; it will be retried', { queue, kind: message.kind, messageId: r.messageId, receiveCount: r.attributes.ApproximateReceiveCount, error: e as Error });
    throw e;
  }
}

/**
 * How long each record waited in its queue (SQS's SentTimestamp, retries included) when the worker took it: the
 * `queue_age` metric, by queue.
 */
export function countQueueAge(queue: QueueKey, records: readonly SQSRecord[], now = Date.now()): void {
  for (const r of records) {
    const sent = Number(r.attributes?.SentTimestamp);
    if (Number.isFinite(sent) && sent > 0) observeMetric('queue_age', Math.max(0, (now - sent) / 1000), { queue });
  }
}

/** The batch's records handled one by one; what the invocation counted is published once it is done, on every path. */
export function queueWorker<Q extends QueueKey>(queue: Q, handlers: MessageHandlers<Q>): (event: SQSEvent, context: Context) => Promise<SQSBatchResponse> {
  const processor = new BatchProcessor(EventType.SQS);
  return async (event, context) => {
    logger.addContext(context);
    countQueueAge(queue, event.Records ?? []);
    try {
      return await processPartialResponse(event, (r: SQSRecord) => handleRecord(queue, handlers, r), processor, { context });
    } finally {
      await flushMetrics();
    }
  };
}
