import type { LocalStack } from '../../shared/local/stack.js';
import { newTenant, startTestServices, type TestServices } from '../support/local.js';
import { drainQueue } from '../support/probes.js';
import { advanceServiceClock } from '../../shared/core/clock.js';
import { DEADLINES } from '../../shared/catalog/deadlines.js';
import { getJob } from '../../shared/jobs/jobs.repository.js';
import { eventBody } from '../../shared/jobs/job-webhooks.js';
import { sweep } from '../../shared/workers/sweep.js';

/**
 * docs/decisions.md#polling-envelope: the polling envelope's `result` is the webhook body without `id` and `event_type`, so a failed
 * job's is `{error}`, for every job kind. Workers do not run: the jobs are accepted over HTTP, never run, and
 * failed by the sweeper past their deadline (the same end as a crashed run); each is then polled over HTTP.
 */
let stack: LocalStack;
let services: TestServices | undefined;
beforeAll(async () => {
  services = await startTestServices({ workers: false, throttleMultiplier: 100, directory: { people: 50, seed: 3, load: 'process' } });
  stack = services.stack;
}, 120_000);
afterAll(async () => services?.stop());

test('a failed people search, deep search and phone enrichment poll with result {error}, the webhook body without id and event_type', async () => {
  const t = await newTenant(stack, { credits: 1000 }, { webhookSecret: true });
  const webhook_url = 'http://127.0.0.1:9/hook';
  const jobs = [
    ['search', await t.client.api('POST', 'search/', { query: 'marketing managers', max_results: 25, webhook_url })],
    ['deep-search', await t.client.api('POST', 'deep-search/', { query: 'marketing managers', webhook_url })],
    ['enrich/phone', await t.client.api('POST', 'enrich/phone/', { email: 'jane.doe@acme.test', webhook_url })],
  ] as const;
  expect(jobs.map(([, r]) => r.status)).toEqual([202, 202, 202]);
  await drainQueue(stack, 'search');
  advanceServiceClock(DEADLINES.JOB_MS / 1000 + 1);
  await sweep();
  for (const [path, accepted] of jobs) {
    const poll = await t.client.api('GET', `${path}/${accepted.body.id}/`);
    expect(poll.status).toBe(200);
    expect(poll.body.status).toBe('failed');
    expect(poll.body.error).toEqual({ code: 'error', message: expect.stringMatching(/failed, retry$/) });
    expect(poll.body.result).toEqual({ error: poll.body.error });
    const { id, event_type, ...webhookRest } = eventBody((await getJob(accepted.body.id))!);
    expect([id, event_type]).toEqual([accepted.body.id, expect.stringMatching(/\.failed$/)]);
    expect(poll.body.result).toEqual(webhookRest);
  }
}, 120_000);
