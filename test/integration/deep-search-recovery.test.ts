import type { SQSEvent, SQSRecord } from 'aws-lambda';
import type { LocalStack } from '../../shared/local/stack.js';
import { newTenant, startTestServices, type TestServices } from '../support/local.js';
import { drainQueue, sqsRecord } from '../support/probes.js';
import { advanceServiceClock, serviceClock } from '../../shared/core/clock.js';
import { DEADLINES } from '../../shared/catalog/deadlines.js';
import { QUEUES } from '../../shared/catalog/queues.js';
import { getAccount, listCharges } from '../../shared/accounts/accounts.repository.js';
import { getJob, markRunning } from '../../shared/jobs/jobs.repository.js';
import { runDeepSearchJob } from '../../shared/search/deep-search.js';
import { sweep } from '../../shared/workers/sweep.js';
import { deadLetterHandler } from '../../shared/workers/dead-letters.js';
import { lambdaContext } from '../../shared/local/event-source-runner.js';

/**
 * A deep search whose run is lost or crashes ends like a people search's: the sweeper re-sends a lost
 * dispatch and fails a job past its deadline, the dead-letter consumer fails a dead-lettered one, and a run
 * that throws on its last receive fails with code `error`; each failure releases the reservation in full and
 * queues `deep_search.failed`. Workers do not run: the test plays the queues by hand.
 */
let stack: LocalStack;
let services: TestServices | undefined;
beforeAll(async () => {
  services = await startTestServices({ workers: false, throttleMultiplier: 100, directory: { people: 500, seed: 5, load: 'process' } });
  stack = services.stack;
}, 120_000);
afterAll(async () => services?.stop());

async function accepted(mode: 'standard' | 'extended' = 'standard') {
  const t = await newTenant(stack, { credits: 1000 }, { webhookSecret: true });
  const r = await t.client.api('POST', 'deep-search/', { query: 'marketing managers', mode, webhook_url: 'http://127.0.0.1:9/hook' });
  expect(r.status).toBe(202);
  return { ...t, jobId: r.body.id as string };
}

async function expectReleasedFailure(accountId: string, jobId: string) {
  const job = await getJob(jobId);
  expect([job!.status, job!.error, job!.event_type, job!.webhook_status]).toEqual(['failed', { code: 'error', message: 'deep search failed, retry' }, 'deep_search.failed', 'queued']);
  expect((await listCharges(accountId)).filter((c) => c.reference === jobId).map((c) => [c.charge_status, c.charged])).toEqual([['released', 0]]);
  expect((await getAccount(accountId))!.balance).toBe(1000);
}

test('a lost dispatch is sent again by the sweeper as a deep_search message, once past the grace', async () => {
  const t = await accepted();
  expect(await drainQueue(stack, 'search')).toEqual([{ kind: 'deep_search', job_id: t.jobId }]);
  expect((await sweep()).redriven).toBe(0);
  advanceServiceClock(DEADLINES.DISPATCH_GRACE_MS / 1000 + 1);
  expect((await sweep()).redriven).toBeGreaterThanOrEqual(1);
  expect((await drainQueue(stack, 'search')).filter((m) => m.job_id === t.jobId)).toEqual([{ kind: 'deep_search', job_id: t.jobId }]);
  await runDeepSearchJob(t.jobId, null);
  const job = await getJob(t.jobId);
  expect(job!.status).toBe('completed');
  expect((await listCharges(t.accountId)).filter((c) => c.reference === t.jobId).map((c) => [c.charge_status, c.charged])).toEqual([['charged', 200]]);
}, 120_000);

test('a deep search never dispatched, or stuck running, past its deadline is failed and released by the sweeper', async () => {
  const never = await accepted('extended');
  const stuck = await accepted();
  await drainQueue(stack, 'search');
  await markRunning((await getJob(stuck.jobId))!, serviceClock.now().toISOString());
  advanceServiceClock(DEADLINES.JOB_MS / 1000 + 1);
  await sweep();
  await expectReleasedFailure(never.accountId, never.jobId);
  await expectReleasedFailure(stuck.accountId, stuck.jobId);
  expect((await drainQueue(stack, 'webhooks')).map((m) => m.job_id)).toEqual(expect.arrayContaining([never.jobId, stuck.jobId]));
}, 120_000);

test('a dead-lettered deep search is failed and released; a second copy changes nothing', async () => {
  const t = await accepted();
  await drainQueue(stack, 'search');
  const record = sqsRecord('dead-deep-1', { kind: 'deep_search', job_id: t.jobId }, 'local-search-dlq');
  const event: SQSEvent = { Records: [record, { ...record, messageId: 'dead-deep-2' }] };
  expect((await deadLetterHandler(event, lambdaContext('dead-letters'))).batchItemFailures).toEqual([]);
  await expectReleasedFailure(t.accountId, t.jobId);
}, 120_000);

test('a run whose research fails is retried by the queue, and fails with code error (released) on its last receive', async () => {
  const t = await accepted();
  await drainQueue(stack, 'search');
  const failing = { workEmail: async () => Promise.reject(new Error('directory unavailable')) };
  const receive = (n: number) => ({ attributes: { ApproximateReceiveCount: String(n) } }) as unknown as SQSRecord;
  await expect(runDeepSearchJob(t.jobId, receive(1), failing)).rejects.toThrow('directory unavailable');
  expect((await getJob(t.jobId))!.status).toBe('running');
  expect((await listCharges(t.accountId)).find((c) => c.reference === t.jobId)!.charge_status).toBe('pending');
  await runDeepSearchJob(t.jobId, receive(QUEUES.search.maxReceiveCount), failing);
  await expectReleasedFailure(t.accountId, t.jobId);
  // A late redelivery of a finished job only makes sure its webhook is on its way: nothing is charged again.
  await runDeepSearchJob(t.jobId, receive(1));
  await expectReleasedFailure(t.accountId, t.jobId);
}, 120_000);
