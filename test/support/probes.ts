import type { SQSRecord } from 'aws-lambda';
import { DeleteMessageCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { documentClient } from '../../shared/adapters/aws.js';
import { parseMessage, type MessageOf } from '../../shared/catalog/messages.js';
import type { QueueKey } from '../../shared/catalog/queues.js';
import type { LocalStack } from '../../shared/local/stack.js';

/**
 * Probes the tests share: what DynamoDB calls an action makes, what messages sit on a queue, whether a
 * process is alive.
 */

/**
 * Counts the commands the shared document client sends (the gateway and every handler use it) while `fn`
 * runs. Install once per test file, after the stack has started.
 */
export function dynamoCallCounter(name: string): <T>(fn: () => Promise<T>) => Promise<{ calls: string[]; value: T }> {
  let counted: string[] | null = null;
  documentClient().middlewareStack.add(
    (next, context) => async (args) => {
      counted?.push(context.commandName ?? 'unknown');
      return next(args);
    },
    { step: 'initialize', name },
  );
  return async (fn) => {
    counted = [];
    try {
      const value = await fn();
      return { calls: counted, value };
    } finally {
      counted = null;
    }
  };
}

/** Every message now on `queue`, taken off it and parsed as its queue's message. */
export async function drainQueue<Q extends QueueKey>(stack: LocalStack, queue: Q): Promise<MessageOf<Q>[]> {
  const out: MessageOf<Q>[] = [];
  for (;;) {
    const r = await stack.sqs.send(new ReceiveMessageCommand({ QueueUrl: stack.queueUrls[queue], MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }));
    if (!r.Messages?.length) return out;
    for (const m of r.Messages) {
      out.push(parseMessage(queue, m.Body!));
      await stack.sqs.send(new DeleteMessageCommand({ QueueUrl: stack.queueUrls[queue], ReceiptHandle: m.ReceiptHandle! }));
    }
  }
}

/** An SQS record as Lambda's event source hands it over, of `message` received the `receiveCount`th time from the local queue `queueName`. */
export function sqsRecord(messageId: string, message: unknown, queueName: string, receiveCount = 1): SQSRecord {
  return {
    messageId,
    receiptHandle: 'r',
    body: JSON.stringify(message),
    attributes: { ApproximateReceiveCount: String(receiveCount), SentTimestamp: '0', SenderId: 'x', ApproximateFirstReceiveTimestamp: '0' },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: `arn:aws:sqs:us-east-1:000000000000:${queueName}`,
    awsRegion: 'us-east-1',
  };
}

export const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Whether `check` holds within `ms`, looking every `everyMs`. */
export async function until(check: () => boolean, ms: number, everyMs = 100): Promise<boolean> {
  for (const deadline = Date.now() + ms; Date.now() < deadline; await new Promise((r) => setTimeout(r, everyMs))) if (check()) return true;
  return check();
}
