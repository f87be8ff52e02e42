import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LocalStack } from '../../shared/local/stack.js';
import { ROOT, newTenant, startTestStack } from '../support/local.js';
import { drainQueue } from '../support/probes.js';
import { advanceServiceClock } from '../../shared/core/clock.js';
import { DEADLINES } from '../../shared/catalog/deadlines.js';
import { getAccount, listCharges } from '../../shared/accounts/accounts.repository.js';
import { getJob, markRunning } from '../../shared/jobs/jobs.repository.js';
import { readDirectoryFile } from '../../shared/directory/file.js';
import { startServices } from '../../shared/local/services.js';
import type { Person } from '../../shared/directory/types.js';
import { planBulkItem } from '../../shared/enrichment/bulk.schema.js';
import { runBulkEnrichJob, runItem } from '../../shared/enrichment/bulk-job.js';
import { saveItems, type BulkJob } from '../../shared/enrichment/bulk-progress.js';
import { sweep } from '../../shared/workers/sweep.js';

/**
 * A bulk enrichment that crashes mid-run resumes at its checkpoint and charges every item once: the test
 * leaves a run as a crash after its first chunk leaves it (the first ten items checkpointed with their
 * charges, nothing after), then redelivers the message twice at once and once more after it finished. A run
 * lost for good (past its deadline) completes with its undone items `failed` and released. Workers do not
 * run: the test plays the queue by hand.
 */
let stack: LocalStack;
const people: Person[] = [];
const dir = mkdtempSync(join(tmpdir(), 'bulk-recovery-'));
const START = 5000;

beforeAll(async () => {
  stack = await startTestStack({ workers: false, throttleMultiplier: 100 });
  const file = join(dir, 'directory.jsonl');
  await startServices({ root: ROOT, stack, dataDir: null, directory: { file, people: 300, seed: 5 } });
  for await (const r of readDirectoryFile(file)) if (r.type === 'person') people.push(r);
}, 120_000);
afterAll(async () => {
  await stack?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** 25 items: the four kinds in turn, every fifth a miss, one invalid. */
function items() {
  return Array.from({ length: 25 }, (_, i) => {
    const p = people[i * 3]!;
    const url = i % 5 === 0 ? `linkedin.com/in/nobody-${i}` : p.professional_url;
    if (i === 7) return { kind: 'email' };
    return [{ kind: 'email', professional_url: url }, { kind: 'professional_url', email: p.work_email ?? `n${i}@nowhere.example` }, { kind: 'professional_profile', professional_url: url }, { kind: 'phone', professional_url: url }][i % 4];
  });
}

async function accepted() {
  const t = await newTenant(stack, { credits: START }, { webhookSecret: true });
  const r = await t.client.api('POST', 'enrich/bulk/', { items: items(), webhook_url: 'http://127.0.0.1:9/hook' });
  expect(r.status).toBe(202);
  expect(await drainQueue(stack, 'search')).toEqual([{ kind: 'bulk_enrich', job_id: r.body.id }]);
  return { ...t, jobId: r.body.id as string };
}

/** What a crash right after the first chunk's checkpoint leaves: ten items saved and settled, the rest not run. */
async function crashAfterFirstChunk(jobId: string) {
  const job = (await getJob(jobId)) as unknown as BulkJob;
  await markRunning(job as never, new Date().toISOString());
  const first = (job.request.items as unknown[]).slice(0, 10).map(planBulkItem);
  expect(await saveItems({ ...job, status: 'running' } as BulkJob, 0, await Promise.all(first.map(runItem)))).toBe(true);
  expect((await getJob(jobId))!.bulk_next).toBe(10);
}

const itemCharges = async (accountId: string, jobId: string) => (await listCharges(accountId)).filter((c) => c.reference === jobId && c.operation !== 'bulk_enrich');

test('a crash after the first chunk resumes there; redeliveries, concurrent or late, charge every item once', async () => {
  const t = await accepted();
  await crashAfterFirstChunk(t.jobId);
  const reserved = START - (await getAccount(t.accountId))!.balance;

  await Promise.all([runBulkEnrichJob(t.jobId, null), runBulkEnrichJob(t.jobId, null)]);
  const done = await getJob(t.jobId);
  await runBulkEnrichJob(t.jobId, null);
  const again = await getJob(t.jobId);
  expect([again!.status, again!.completed_at, again!.event_type]).toEqual(['completed', done!.completed_at, 'bulk_enrich.completed']);

  const results = (again!.result as { results: { index: number; status: string; credits_charged: number }[] }).results;
  expect(results.map((r) => r.index)).toEqual([...Array(25).keys()]);
  expect(results[7]!.status).toBe('invalid_input');
  expect(new Set(results.map((r) => r.status))).toEqual(new Set(['found', 'not_found', 'invalid_input']));
  // One record per item, each settled once; the balance moved by exactly what the results say was charged.
  const charged = results.reduce((n, r) => n + r.credits_charged, 0);
  const records = await itemCharges(t.accountId, t.jobId);
  expect(records).toHaveLength(25);
  expect(records.reduce((n, c) => n + c.charged, 0)).toBe(charged);
  expect(records.every((c) => c.charge_status !== 'pending')).toBe(true);
  expect((await getAccount(t.accountId))!.balance).toBe(START - charged);
  expect(charged).toBeLessThan(reserved);
  expect((await listCharges(t.accountId)).filter((c) => c.operation === 'bulk_enrich').map((c) => [c.charge_status, c.reserved, c.charged])).toEqual([['released', 0, 0]]);
  // The results are held once: the checkpoint's copy is gone from the finished job.
  expect(again!.bulk_results).toBeNull();
}, 120_000);

test('a run lost past its deadline completes with what it has; undone items are failed and released', async () => {
  const t = await accepted();
  await crashAfterFirstChunk(t.jobId);
  const firstTen = (await itemCharges(t.accountId, t.jobId)).reduce((n, c) => n + c.charged, 0);
  advanceServiceClock(DEADLINES.JOB_MS / 1000 + 60);
  await sweep();
  const job = await getJob(t.jobId);
  expect([job!.status, job!.event_type, job!.webhook_status]).toEqual(['completed', 'bulk_enrich.completed', 'queued']);
  const results = (job!.result as { results: { status: string; credits_charged: number; error: { code: string } | null }[] }).results;
  expect(results).toHaveLength(25);
  expect(results.slice(10).every((r) => r.status === 'failed' && r.credits_charged === 0 && r.error?.code === 'error')).toBe(true);
  const records = await itemCharges(t.accountId, t.jobId);
  expect(records).toHaveLength(25);
  expect(records.filter((c) => c.charge_status === 'released').length).toBeGreaterThanOrEqual(15);
  expect((await getAccount(t.accountId))!.balance).toBe(START - firstTen);
  // A late redelivery of the lost run's message changes nothing.
  await runBulkEnrichJob(t.jobId, null);
  expect((await getAccount(t.accountId))!.balance).toBe(START - firstTen);
  expect(await itemCharges(t.accountId, t.jobId)).toHaveLength(25);
}, 120_000);
