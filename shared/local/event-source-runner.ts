import { DeleteMessageBatchCommand, ReceiveMessageCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';

/**
 * Plays Lambda's SQS event source mapping locally: long-polls each queue, hands batches to the worker
 * handler, deletes what succeeded and leaves reported failures (or a whole thrown batch) to reappear after
 * the visibility timeout; the queue's redrive policy moves a message to its DLQ after maxReceiveCount.
 */
export type SqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | void>;

export interface RunnerQueue {
  key: string;
  url: string;
  arn: string;
  batchSize: number;
  handler: () => Promise<SqsHandler>;
}

export interface EventSourceRunner {
  /** Batches being handled right now. */
  busy(): number;
  stop(): Promise<void>;
}

export function lambdaContext(functionName: string): Context {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId: crypto.randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => 30_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

function toRecord(m: Message, q: RunnerQueue): SQSRecord {
  const a = m.Attributes ?? {};
  return {
    messageId: m.MessageId!,
    receiptHandle: m.ReceiptHandle!,
    body: m.Body ?? '',
    attributes: {
      ApproximateReceiveCount: a.ApproximateReceiveCount ?? '1',
      SentTimestamp: a.SentTimestamp ?? String(Date.now()),
      SenderId: a.SenderId ?? 'local',
      ApproximateFirstReceiveTimestamp: a.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
    },
    messageAttributes: {},
    md5OfBody: m.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: q.arn,
    awsRegion: 'us-east-1',
  };
}

export function startEventSourceRunner(sqs: SQSClient, queues: RunnerQueue[], opts: { onError?: (q: string, e: unknown) => void } = {}): EventSourceRunner {
  let stopped = false;
  let busy = 0;
  const loops = queues.map(async (q) => {
    while (!stopped) {
      let messages: Message[] = [];
      try {
        const out = await sqs.send(
          new ReceiveMessageCommand({ QueueUrl: q.url, MaxNumberOfMessages: q.batchSize, WaitTimeSeconds: 1, AttributeNames: ['All'] }),
        );
        messages = out.Messages ?? [];
      } catch (e) {
        if (stopped) break;
        opts.onError?.(q.key, e);
        await new Promise((r) => setTimeout(r, 250));
        continue;
      }
      if (!messages.length) continue;
      busy++;
      try {
        const handler = await q.handler();
        const event: SQSEvent = { Records: messages.map((m) => toRecord(m, q)) };
        let failed = new Set<string>();
        try {
          const res = await handler(event, lambdaContext(`${q.key}-worker`));
          failed = new Set((res?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
        } catch (e) {
          opts.onError?.(q.key, e);
          failed = new Set(messages.map((m) => m.MessageId!));
        }
        const done = messages.filter((m) => !failed.has(m.MessageId!));
        if (done.length) {
          await sqs.send(new DeleteMessageBatchCommand({ QueueUrl: q.url, Entries: done.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })) }));
        }
      } catch (e) {
        opts.onError?.(q.key, e);
      } finally {
        busy--;
      }
    }
  });
  return {
    busy: () => busy,
    stop: async () => {
      stopped = true;
      await Promise.allSettled(loops);
    },
  };
}
