import { DeleteMessageBatchCommand, ReceiveMessageCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { workerFunctionName } from '../catalog/functions.js';
import type { QueueKey } from '../catalog/queues.js';
import { runAsFunction } from './function-context.js';

/**
 * Plays Lambda's SQS event source mapping locally: long-polls each queue, hands batches to the worker
 * handler, deletes what succeeded and leaves reported failures (or a whole thrown or timed-out batch) to
 * reappear after the visibility timeout; the queue's redrive policy moves a message to its DLQ after
 * maxReceiveCount.
 */
export type SqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | void>;

export interface RunnerQueue {
  key: string;
  url: string;
  arn: string;
  batchSize: number;
  /** The function's timeout: a batch still running after it has failed, every message of it. */
  timeoutMs: number;
  /** The consuming function in the catalogue (shared/catalog/functions.ts), whose grants the batch runs with; `<key>-worker` when absent. */
  functionName?: string;
  handler: () => Promise<SqsHandler>;
}

export interface EventSourceRunner {
  /** Batches being handled right now. */
  busy(): number;
  stop(): Promise<void>;
}

export function lambdaContext(functionName: string, deadline = Date.now() + 30_000): Context {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId: crypto.randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
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
    messageAttributes: Object.fromEntries(
      Object.entries(m.MessageAttributes ?? {}).map(([name, v]) => [
        name,
        { dataType: v.DataType ?? 'String', ...(v.StringValue !== undefined ? { stringValue: v.StringValue } : {}), stringListValues: [], binaryListValues: [] },
      ]),
    ),
    md5OfBody: m.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: q.arn,
    awsRegion: 'us-east-1',
  };
}

export class FunctionTimeoutError extends Error {
  constructor(timeoutMs: number) {
    super(`Task timed out after ${(timeoutMs / 1000).toFixed(2)} seconds`);
    this.name = 'FunctionTimeoutError';
  }
}

/**
 * Lambda ends an invocation at its timeout and the batch counts as failed. A local handler cannot be
 * stopped, so it runs on unobserved (its messages stay undeleted, so anything it still does is a duplicate
 * the next delivery must tolerate, as with a Lambda that timed out after writing) while the batch fails.
 */
export async function withinTimeout<T>(timeoutMs: number, run: (deadline: number) => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const invocation = Promise.resolve().then(() => run(Date.now() + timeoutMs));
  invocation.catch(() => undefined);
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new FunctionTimeoutError(timeoutMs)), timeoutMs);
  });
  try {
    return await Promise.race([invocation, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export function startEventSourceRunner(sqs: SQSClient, queues: RunnerQueue[], opts: { onError?: (q: string, e: unknown) => void } = {}): EventSourceRunner {
  let stopped = false;
  let busy = 0;
  const loops = queues.map(async (q) => {
    while (!stopped) {
      let messages: Message[] = [];
      try {
        const out = await sqs.send(
          new ReceiveMessageCommand({ QueueUrl: q.url, MaxNumberOfMessages: q.batchSize, WaitTimeSeconds: 1, AttributeNames: ['All'], MessageAttributeNames: ['All'] }),
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
          const name = q.functionName ?? workerFunctionName(q.key as QueueKey);
          const res = await withinTimeout(q.timeoutMs, (deadline) => runAsFunction(name, () => handler(event, lambdaContext(name, deadline))));
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
