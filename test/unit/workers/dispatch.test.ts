import type { Context, SQSRecord } from 'aws-lambda';
import { queueWorker, type MessageHandlers } from '../../../shared/workers/dispatch.js';
import { messages } from '../../../shared/catalog/messages.js';
import { localMetricLines, resetLocalMetrics } from '../../../shared/core/metrics.js';

const JOB = (n: number) => `dj_01jq4y8m2k3n4p5q6r7s8t9v${String(n).padStart(2, '0')}`;

function record(messageId: string, body: string): SQSRecord {
  return {
    messageId,
    receiptHandle: `rh-${messageId}`,
    body,
    attributes: { ApproximateReceiveCount: '1', SentTimestamp: '0', SenderId: 'x', ApproximateFirstReceiveTimestamp: '0' },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:local-search',
    awsRegion: 'us-east-1',
  };
}

const context = { functionName: 'test', awsRequestId: 'r', getRemainingTimeInMillis: () => 10_000 } as unknown as Context;

describe('queue worker', () => {
  it('runs each well-formed message by kind and fails a malformed one alone', async () => {
    const seen: string[] = [];
    const handlers: MessageHandlers<'search'> = {
      people_search: async (m) => void seen.push(`search ${m.job_id}`),
      phone_enrich: async (m) => void seen.push(`phone ${m.job_id}`),
      deep_search: async (m) => void seen.push(`deep ${m.job_id}`),
      bulk_enrich: async (m) => void seen.push(`bulk ${m.job_id}`),
      agentic_step: async (m) => void seen.push(`agentic ${m.job_id} step ${m.step}`),
    };
    const out = await queueWorker('search', handlers)(
      {
        Records: [
          record('1', JSON.stringify(messages.job('people_search', JOB(1)))),
          record('2', JSON.stringify({ kind: 'people_search', job_id: 'not-an-id' })),
          record('3', '{not json'),
          record('4', JSON.stringify({ kind: 'draft_email', account_id: 'acct_x', email_id: 'em_x' })),
          record('5', JSON.stringify(messages.job('phone_enrich', JOB(5)))),
          record('6', JSON.stringify(messages.agenticStep(JOB(6), 3))),
          record('7', JSON.stringify({ kind: 'agentic_step', job_id: JOB(7) })),
          record('8', JSON.stringify(messages.job('deep_search', JOB(8)))),
        ],
      },
      context,
    );
    expect(seen).toEqual([`search ${JOB(1)}`, `phone ${JOB(5)}`, `agentic ${JOB(6)} step 3`, `deep ${JOB(8)}`]);
    expect(out.batchItemFailures.map((f) => f.itemIdentifier).sort()).toEqual(['2', '3', '4', '7']);
  });

  it('reports a handler that throws as that message failing, and the others as done', async () => {
    const handlers: MessageHandlers<'search'> = {
      people_search: async (m) => {
        if (m.job_id === JOB(2)) throw new Error('transient');
      },
      phone_enrich: async () => undefined,
      deep_search: async () => undefined,
      bulk_enrich: async () => undefined,
      agentic_step: async () => undefined,
    };
    const out = await queueWorker('search', handlers)(
      { Records: [record('a', JSON.stringify(messages.job('people_search', JOB(1)))), record('b', JSON.stringify(messages.job('people_search', JOB(2))))] },
      context,
    );
    expect(out.batchItemFailures).toEqual([{ itemIdentifier: 'b' }]);
  });

  it('observes how long each record waited in its queue (SentTimestamp), and publishes what the batch counted once it is done', async () => {
    resetLocalMetrics();
    const sent = (id: string, ageMs: number) => ({ ...record(id, JSON.stringify(messages.job('people_search', JOB(9)))), attributes: { ...record(id, '').attributes, SentTimestamp: String(Date.now() - ageMs) } });
    const handlers: MessageHandlers<'search'> = { people_search: async () => undefined, phone_enrich: async () => undefined, deep_search: async () => undefined, bulk_enrich: async () => undefined, agentic_step: async () => undefined };
    await queueWorker('search', handlers)({ Records: [sent('a', 30_000), sent('b', 90_000)] }, context);
    const docs = localMetricLines().map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(docs).toHaveLength(1);
    expect(docs[0]).toMatchObject({ queue: 'search' });
    // Seconds, one value a record that carries its SentTimestamp.
    expect((docs[0]!.queue_age as number[]).map((s) => Math.round(s))).toEqual([30, 90]);
  });
});
