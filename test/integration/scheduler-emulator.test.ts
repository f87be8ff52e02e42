import type { Server } from 'node:http';
import {
  CreateScheduleCommand,
  GetScheduleCommand,
  SchedulerClient,
  UpdateScheduleCommand,
  ValidationException,
  type CreateScheduleCommandInput,
} from '@aws-sdk/client-scheduler';
import { CreateQueueCommand, DeleteMessageCommand, GetQueueAttributesCommand, ReceiveMessageCommand, SQSClient, type Message } from '@aws-sdk/client-sqs';
import { createSqsServer } from 'local-aws-sqs';
import { freePort } from '../../shared/local/processes.js';
import { startSchedulerEmulator, type SchedulerEmulator } from '../../shared/local/scheduler-emulator.js';

const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
const region = 'us-east-1';

let sqsServer: Server;
let sqs: SQSClient;
let emulator: SchedulerEmulator;
let scheduler: SchedulerClient;
let nowMs = Date.parse('2026-11-23T10:00:00Z');
const clock = { now: () => new Date(nowMs) };
let targetArn: string;
let dlqUrl: string;
let dlqArn: string;

async function createQueue(name: string): Promise<{ url: string; arn: string }> {
  const url = (await sqs.send(new CreateQueueCommand({ QueueName: name }))).QueueUrl!;
  const arn = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }))).Attributes!.QueueArn!;
  return { url, arn };
}

beforeAll(async () => {
  const sqsPort = await freePort();
  sqsServer = await createSqsServer({ port: sqsPort, hostname: '127.0.0.1', emulateQueueCreationLifecycle: false });
  sqs = new SQSClient({ endpoint: `http://127.0.0.1:${sqsPort}`, region, credentials });
  ({ arn: targetArn } = await createQueue('emulator-target'));
  ({ url: dlqUrl, arn: dlqArn } = await createQueue('emulator-target-dlq'));
  // Ticks are driven by the test through fireDue(); the timer only needs to be out of the way.
  emulator = await startSchedulerEmulator({ port: 0, file: null, clock, sqs, tickMs: 3_600_000 });
  scheduler = new SchedulerClient({ endpoint: `http://127.0.0.1:${emulator.port}`, region, credentials });
});

afterAll(async () => {
  scheduler.destroy();
  await emulator.stop();
  sqs.destroy();
  await new Promise<void>((r) => {
    sqsServer.closeAllConnections?.();
    sqsServer.close(() => r());
  });
});

/** What the DLQ holds, taken off it. */
async function drainDlq(): Promise<Message[]> {
  const got = (await sqs.send(new ReceiveMessageCommand({ QueueUrl: dlqUrl, MaxNumberOfMessages: 10, MessageAttributeNames: ['All'], WaitTimeSeconds: 1 }))).Messages ?? [];
  for (const m of got) await sqs.send(new DeleteMessageCommand({ QueueUrl: dlqUrl, ReceiptHandle: m.ReceiptHandle! }));
  return got;
}

function input(name: string, target: Partial<CreateScheduleCommandInput['Target']>, dueInMs = 60_000): CreateScheduleCommandInput {
  return {
    Name: name,
    GroupName: 'emulator',
    ScheduleExpression: `at(${new Date(nowMs + dueInMs).toISOString().slice(0, 19)})`,
    ScheduleExpressionTimezone: 'UTC',
    FlexibleTimeWindow: { Mode: 'OFF' },
    ActionAfterCompletion: 'DELETE',
    Target: { Arn: targetArn, RoleArn: 'arn:aws:iam::000000000000:role/local-scheduler', Input: '{"n":1}', ...target },
  };
}

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected the call to be refused');
}

describe('RetryPolicy and DeadLetterConfig are validated like the real API', () => {
  test.each([
    [{ MaximumEventAgeInSeconds: 59 }, /maximumEventAgeInSeconds.*greater than or equal to 60/],
    [{ MaximumEventAgeInSeconds: 86_401 }, /maximumEventAgeInSeconds.*less than or equal to 86400/],
    [{ MaximumRetryAttempts: -1 }, /maximumRetryAttempts.*greater than or equal to 0/],
    [{ MaximumRetryAttempts: 186 }, /maximumRetryAttempts.*less than or equal to 185/],
    [{ MaximumRetryAttempts: 1.5 }, /maximumRetryAttempts.*integer/],
  ])('RetryPolicy %j is refused', async (policy, message) => {
    const e = await rejection(scheduler.send(new CreateScheduleCommand(input(`bad-retry-${Math.random()}`, { RetryPolicy: policy }))));
    expect(e).toBeInstanceOf(ValidationException);
    expect((e as Error).message).toMatch(message);
  });

  test.each([
    ['an SNS topic', 'arn:aws:sns:us-east-1:000000000000:topic'],
    ['not an ARN', 'not-an-arn'],
    ['over 1,600 characters', `arn:aws:sqs:us-east-1:000000000000:${'q'.repeat(1600)}`],
  ])('a DeadLetterConfig ARN that is %s is refused', async (_why, arn) => {
    const e = await rejection(scheduler.send(new CreateScheduleCommand(input(`bad-dlq-${Math.random()}`, { DeadLetterConfig: { Arn: arn } }))));
    expect(e).toBeInstanceOf(ValidationException);
    expect((e as Error).message).toMatch(/deadLetterConfig\.arn/);
  });

  test('the bounds themselves are accepted, stored and read back, and an update replaces them', async () => {
    const name = 'bounds';
    const farAhead = 365 * 24 * 3600 * 1000;
    await scheduler.send(new CreateScheduleCommand(input(name, { RetryPolicy: { MaximumEventAgeInSeconds: 60, MaximumRetryAttempts: 185 }, DeadLetterConfig: { Arn: dlqArn } }, farAhead)));
    let got = await scheduler.send(new GetScheduleCommand({ Name: name, GroupName: 'emulator' }));
    expect(got.Target).toMatchObject({ RetryPolicy: { MaximumEventAgeInSeconds: 60, MaximumRetryAttempts: 185 }, DeadLetterConfig: { Arn: dlqArn } });
    await scheduler.send(new UpdateScheduleCommand(input(name, { RetryPolicy: { MaximumEventAgeInSeconds: 86_400, MaximumRetryAttempts: 0 } }, farAhead)));
    got = await scheduler.send(new GetScheduleCommand({ Name: name, GroupName: 'emulator' }));
    expect(got.Target?.RetryPolicy).toEqual({ MaximumEventAgeInSeconds: 86_400, MaximumRetryAttempts: 0 });
    expect(got.Target?.DeadLetterConfig).toBeUndefined();
  });
});

describe('delivery that fails is retried per policy, then dead-lettered', () => {
  const missingTarget = 'arn:aws:sqs:us-east-1:000000000000:emulator-no-such-queue';

  async function fireAt(ms: number): Promise<number> {
    nowMs = ms;
    return emulator.fireDue();
  }

  test('after MaximumRetryAttempts retries the target input goes to the DLQ with the failure in its attributes', async () => {
    const start = nowMs;
    await scheduler.send(
      new CreateScheduleCommand(input('retries', { Arn: missingTarget, Input: '{"kind":"review_expired"}', RetryPolicy: { MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 3600 }, DeadLetterConfig: { Arn: dlqArn } })),
    );
    const pending = () => emulator.pending().find((s) => s.Name === 'retries');
    // Due at +60 s: the first attempt fails, then two retries with a growing backoff.
    expect(await fireAt(start + 60_000)).toBe(0);
    expect(pending()?.attempts).toBe(1);
    expect(await fireAt(start + 60_500)).toBe(0); // still backing off: not tried again
    expect(pending()?.attempts).toBe(1);
    await fireAt(start + 61_000);
    expect(pending()?.attempts).toBe(2);
    await fireAt(start + 63_000);
    expect(pending()).toBeUndefined();

    const got = await drainDlq();
    expect(got).toHaveLength(1);
    const [message] = got;
    expect(message!.Body).toBe('{"kind":"review_expired"}');
    const attributes = Object.fromEntries(Object.entries(message!.MessageAttributes ?? {}).map(([k, v]) => [k, v.StringValue]));
    expect(attributes).toMatchObject({
      EXHAUSTED_RETRY_CONDITION: 'MaximumRetryAttempts',
      RETRY_ATTEMPTS: '2',
      TARGET_ARN: missingTarget,
      SCHEDULE_ARN: 'arn:aws:scheduler:us-east-1:000000000000:schedule/emulator/retries',
    });
    expect(attributes.ERROR_MESSAGE).toBeTruthy();
  });

  test('an event older than MaximumEventAgeInSeconds is dead-lettered even with retries left', async () => {
    const start = nowMs;
    await scheduler.send(new CreateScheduleCommand(input('aged', { Arn: missingTarget, Input: '{"n":"aged"}', RetryPolicy: { MaximumRetryAttempts: 185, MaximumEventAgeInSeconds: 60 }, DeadLetterConfig: { Arn: dlqArn } })));
    await fireAt(start + 60_000);
    expect(emulator.pending().find((s) => s.Name === 'aged')?.attempts).toBe(1);
    await fireAt(start + 60_000 + 61_000);
    expect(emulator.pending().find((s) => s.Name === 'aged')).toBeUndefined();
    const got = await drainDlq();
    expect(got.map((m) => [m.Body, m.MessageAttributes?.EXHAUSTED_RETRY_CONDITION?.StringValue])).toEqual([['{"n":"aged"}', 'MaximumEventAgeInSeconds']]);
  });

  test('a target that comes back before the policy runs out gets the message, and the DLQ nothing', async () => {
    const start = nowMs;
    const name = 'emulator-late-queue';
    await scheduler.send(
      new CreateScheduleCommand(input('recovers', { Arn: `arn:aws:sqs:us-east-1:000000000000:${name}`, Input: '{"n":"late"}', RetryPolicy: { MaximumRetryAttempts: 5, MaximumEventAgeInSeconds: 3600 }, DeadLetterConfig: { Arn: dlqArn } })),
    );
    expect(await fireAt(start + 60_000)).toBe(0);
    const late = await createQueue(name);
    expect(await fireAt(start + 61_000)).toBe(1);
    const got = await sqs.send(new ReceiveMessageCommand({ QueueUrl: late.url, WaitTimeSeconds: 1 }));
    expect(got.Messages?.map((m) => m.Body)).toEqual(['{"n":"late"}']);
    expect(await drainDlq()).toEqual([]);
  });

  test('without a DLQ an exhausted event is dropped, as Scheduler does', async () => {
    const start = nowMs;
    await scheduler.send(new CreateScheduleCommand(input('dropped', { Arn: missingTarget, RetryPolicy: { MaximumRetryAttempts: 0, MaximumEventAgeInSeconds: 60 } })));
    await fireAt(start + 60_000);
    expect(emulator.pending().find((s) => s.Name === 'dropped')).toBeUndefined();
  });
});
