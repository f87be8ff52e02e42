import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { sqsClient } from './sqs-client.js';
import { queueUrl } from '../catalog/resource-names.js';
import type { QueueKey } from '../catalog/queues.js';
import { QUEUE_MESSAGES, type MessageOf } from '../catalog/messages.js';

/**
 * Send one message to a catalogue queue, optionally delayed (SQS allows up to 900 s). The message is
 * checked against its queue's schema before it leaves, so a producer bug fails at the producer, not as a
 * poison message in a worker.
 */
export async function sendMessage<Q extends QueueKey>(key: Q, message: MessageOf<Q>, delaySeconds = 0): Promise<void> {
  const body = QUEUE_MESSAGES[key].parse(message);
  await sqsClient().send(
    new SendMessageCommand({ QueueUrl: queueUrl(key), MessageBody: JSON.stringify(body), DelaySeconds: Math.max(0, Math.min(900, Math.round(delaySeconds))) }),
  );
}
