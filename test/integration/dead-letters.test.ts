import { GetQueueAttributesCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { QUEUES } from '../../shared/catalog/queues.js';
import type { LocalStack } from '../../shared/local/stack.js';
import { newTenant, startTestStack } from '../support/local.js';

const seen = globalThis as { hangingWorkerCalls?: SQSEvent[]; deadLetterEvents?: SQSEvent[] };

async function waitFor<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function depth(stack: LocalStack, queue: string): Promise<number> {
  const a = await stack.sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: stack.queueUrls[queue]!, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }),
  );
  return Number(a.Attributes?.ApproximateNumberOfMessages ?? 0) + Number(a.Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0);
}

test('a worker that outlives its timeout fails its batch until the redrive moves the message to the DLQ, whose runner hands it to the dead-letter consumer', async () => {
  const workerTimeoutMs = 300;
  const stack = await startTestStack({
    gateway: false,
    visibilityTimeoutSeconds: 1,
    workerTimeoutMs: { webhooks: workerTimeoutMs },
    workerModules: { webhooks: 'test/support/hanging.worker.ts', 'dead-letters': 'test/support/recording-dead-letters.worker.ts' },
  });
  try {
    const dlqArn = (await stack.sqs.send(new GetQueueAttributesCommand({ QueueUrl: stack.queueUrls['webhooks-dlq']!, AttributeNames: ['QueueArn'] }))).Attributes!.QueueArn!;
    const body = JSON.stringify({ kind: 'deliver_job_event', job_id: `dj_${'0'.repeat(26)}`, attempt: 1 });
    const sent = await stack.sqs.send(new SendMessageCommand({ QueueUrl: stack.queueUrls.webhooks!, MessageBody: body }));

    const record = await waitFor(
      'the dead-letter consumer to be given the message',
      () => seen.deadLetterEvents?.flatMap((e) => e.Records).find((r) => r.body === body),
      30_000,
    );
    expect(record.eventSourceARN).toBe(dlqArn);
    expect(record.eventSourceARN.split(':').pop()).toBe('local-webhooks-dlq');
    expect(record.messageId).toBe(sent.MessageId);

    // Each delivery to the hanging worker timed out, until maxReceiveCount was spent.
    const receiveCounts = (seen.hangingWorkerCalls ?? []).flatMap((e) => e.Records).filter((r) => r.body === body).map((r) => Number(r.attributes.ApproximateReceiveCount));
    expect(receiveCounts).toEqual(Array.from({ length: QUEUES.webhooks.maxReceiveCount }, (_, i) => i + 1));

    // The consumer reported no failure, so the runner deleted the message from the DLQ.
    await waitFor('the DLQ to be empty', async () => ((await depth(stack, 'webhooks-dlq')) === 0 ? true : undefined), 10_000);
    expect(await depth(stack, 'webhooks')).toBe(0);
    expect(await stack.settle(10_000)).toBe(true);
  } finally {
    await stack.stop();
  }
}, 90_000);

test('a job whose worker times out on every receive reaches the DLQ and the real dead-letter consumer fails it and releases its credits', async () => {
  const stack = await startTestStack({
    visibilityTimeoutSeconds: 1,
    throttleMultiplier: 100,
    workerTimeoutMs: { search: 300 },
    workerModules: { search: 'test/support/hanging.worker.ts' },
  });
  try {
    const t = await newTenant(stack, { credits: 100 }, { webhookSecret: true });
    const accepted = await t.client.api('POST', 'enrich/phone/', { email: 'someone@prospect.test', webhook_url: 'http://127.0.0.1:9/hook' });
    expect(accepted.status).toBe(202);
    expect((await t.admin.console('GET', `accounts/${t.accountId}/`)).body.balance).toBe(50); // reserved

    const job = await waitFor(
      'the job to be ended by the dead-letter consumer',
      async () => {
        const r = await t.client.api('GET', `enrich/phone/${accepted.body.id}/`);
        return r.body.status === 'failed' ? r.body : undefined;
      },
      60_000,
    );
    expect(job.error).toEqual({ code: 'error', message: 'phone enrichment failed, retry' });
    const receives = (seen.hangingWorkerCalls ?? []).flatMap((e) => e.Records).filter((r) => r.body.includes(accepted.body.id));
    expect(receives).toHaveLength(QUEUES.search.maxReceiveCount);
    const charges = (await t.admin.console('GET', `accounts/${t.accountId}/charges/`)).body;
    const charge = charges.results.find((c: { reference: string }) => c.reference === accepted.body.id);
    expect([charge.charge_status, charge.charged]).toEqual(['released', 0]);
    expect((await t.admin.console('GET', `accounts/${t.accountId}/`)).body.balance).toBe(100);
    await waitFor('the search DLQ to be empty', async () => ((await depth(stack, 'search-dlq')) === 0 ? true : undefined), 10_000);
  } finally {
    await stack.stop();
  }
}, 120_000);
