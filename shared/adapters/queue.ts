import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { sqsClient } from './sqs-client.js';
import { queueUrl } from '../core/env.js';
import type { QueueKey } from '../catalog/queues.js';

/** Send one JSON message to a catalogue queue, optionally delayed (SQS allows up to 900 s). */
export async function sendMessage(key: QueueKey, body: unknown, delaySeconds = 0): Promise<void> {
  await sqsClient().send(
    new SendMessageCommand({ QueueUrl: queueUrl(key), MessageBody: JSON.stringify(body), DelaySeconds: Math.max(0, Math.min(900, Math.round(delaySeconds))) }),
  );
}
