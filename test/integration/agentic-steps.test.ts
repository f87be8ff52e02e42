import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LocalStack } from '../../shared/local/stack.js';
import { startServices } from '../../shared/local/services.js';
import { getJob } from '../../shared/jobs/jobs.repository.js';
import { runAgenticStep } from '../../shared/agentic/research-step.js';
import { failRun } from '../../shared/agentic/run-end.js';
import { deadLetterHandler } from '../../shared/workers/dead-letters.js';
import { messages } from '../../shared/catalog/messages.js';
import { markAgenticRunning } from '../../shared/agentic/agentic.repository.js';
import { acceptAgenticSearch, AdmissionFailedError } from '../../shared/agentic/accept-agentic.js';
import { AgenticSearchSchema, type AgenticJob } from '../../shared/agentic/model.js';
import { serviceClock } from '../../shared/core/clock.js';
import type { PageReader } from '../../shared/ports/page-reader.js';
import { parseCriteria } from '../../shared/understanding/criteria.js';
import { deterministicUnderstanding } from '../../shared/understanding/deterministic.js';
import type { Understanding } from '../../shared/understanding/port.js';
import { Client, ROOT, newTenant, startTestStack } from '../support/local.js';
import { drainQueue } from '../support/probes.js';

/**
 * The research loop step by step on the real local stack with no workers running: the test takes each
 * step's message off the search queue and runs it, so it can cancel, crash, race and move the clock
 * between steps. Pages come from the stack's sample web through the local page reader.
 */
let stack: LocalStack;
let admin: Client;
const dir = mkdtempSync(join(tmpdir(), 'agentic-steps-'));

beforeAll(async () => {
  stack = await startTestStack({ workers: false, throttleMultiplier: 1000 });
  await startServices({ root: ROOT, stack, dataDir: null, directory: { file: join(dir, 'directory.jsonl'), people: 3000, seed: 7 } });
  admin = new Client(stack);
}, 120_000);
afterAll(async () => {
  await stack?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const hook = 'http://127.0.0.1:9/hook';
/** No evidence check: every shortlisted software engineer qualifies, so each step delivers its whole slice. */
const BROAD = 'Software engineers';

async function tenant(account: Record<string, unknown> = {}) {
  const t = await newTenant(stack, { agentic_search: true, credits: 5000, ...account }, { webhookSecret: true });
  return t;
}

const charge = async (accountId: string, jobId: string) => ((await admin.console('GET', `accounts/${accountId}/charges/`)).body.results as any[]).find((c) => c.reference === jobId);
const balance = async (accountId: string) => (await admin.console('GET', `accounts/${accountId}/`)).body.balance as number;
const job = async (id: string) => (await getJob(id)) as AgenticJob;

/** The agentic steps now on the search queue, taken off it. */
async function steps(): Promise<{ job_id: string; step: number }[]> {
  return (await drainQueue(stack, 'search')).flatMap((m) => (m.kind === 'agentic_step' ? [{ job_id: m.job_id, step: m.step }] : []));
}

async function accept(client: Client, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  const r = await client.api('POST', 'agentic-search/', { webhook_url: hook, ...body }, headers);
  return r;
}

describe('agentic search, step by step', () => {
  test('cancel while pending: cancelled, the whole reservation released, the late first step does nothing; idempotent', async () => {
    const t = await tenant();
    const before = await balance(t.accountId);
    const r = await accept(t.client, { query: BROAD, max_credits: 400 });
    expect(r.status).toBe(202);
    expect(await balance(t.accountId)).toBe(before - 400);
    // A poller reads a count from the start: 0 leads so far, never null.
    expect((await t.client.api('GET', `agentic-search/${r.body.id}/`)).body).toMatchObject({ status: 'pending', leads_returned: 0 });
    const c = await t.client.api('POST', `agentic-search/${r.body.id}/cancel/`);
    expect(c.status).toBe(202);
    expect(c.body).toEqual({ id: r.body.id, status: 'cancelled', created_at: r.body.created_at });
    expect((await t.client.api('POST', `agentic-search/${r.body.id}/cancel/`)).body.status).toBe('cancelled');
    expect(await charge(t.accountId, r.body.id)).toMatchObject({ reserved: 400, charged: 0, charge_status: 'released' });
    expect(await balance(t.accountId)).toBe(before);
    for (const s of await steps()) await runAgenticStep(s.job_id, s.step);
    const poll = await t.client.api('GET', `agentic-search/${r.body.id}/`);
    expect(poll.body).toMatchObject({ status: 'cancelled', tier: 'agentic_search', result: null });
    expect(await balance(t.accountId)).toBe(before);
  }, 120_000);

  test('cancel while running: completed, partial, user_cancelled, the saved leads kept and billed; the next step does nothing', async () => {
    const t = await tenant();
    const before = await balance(t.accountId);
    const r = await accept(t.client, { query: BROAD, target_results: 50, max_credits: 2000 });
    const [first] = await steps();
    await runAgenticStep(first!.job_id, first!.step);
    const saved = await job(r.body.id);
    expect(saved.status).toBe('running');
    expect(saved.checkpoint).toMatchObject({ step: 1, leads: 25, charged: 350 });
    expect(await charge(t.accountId, r.body.id)).toMatchObject({ charged: 350, charge_status: 'pending' });
    const running = await t.client.api('GET', `agentic-search/${r.body.id}/`);
    expect(running.body).toMatchObject({ status: 'running', leads_returned: 25, result: null });

    const c = await t.client.api('POST', `agentic-search/${r.body.id}/cancel/`);
    expect(c.body).toEqual({ id: r.body.id, status: 'completed', created_at: r.body.created_at });
    for (const s of await steps()) await runAgenticStep(s.job_id, s.step);
    const poll = await t.client.api('GET', `agentic-search/${r.body.id}/`);
    expect(poll.body.result).toMatchObject({ partial: true, completion_reason: 'user_cancelled', total_returned: 25 });
    expect(poll.body.result.results).toHaveLength(25);
    expect(await charge(t.accountId, r.body.id)).toMatchObject({ reserved: 2000, charged: 350, charge_status: 'charged' });
    expect(await balance(t.accountId)).toBe(before - 350);
    // Terminal: a further cancel changes nothing and refunds nothing.
    expect((await t.client.api('POST', `agentic-search/${r.body.id}/cancel/`)).body.status).toBe('completed');
    expect(await balance(t.accountId)).toBe(before - 350);
  }, 120_000);

  test('cancel of a run that started but did no paid work yet: completed, user_cancelled, zero_result', async () => {
    const t = await tenant();
    const before = await balance(t.accountId);
    const r = await accept(t.client, { query: BROAD });
    await steps();
    // The first step's worker moved the job to running and crashed before evaluating anyone.
    expect(await markAgenticRunning(r.body.id, serviceClock.now())).toBe(true);
    expect((await t.client.api('POST', `agentic-search/${r.body.id}/cancel/`)).body.status).toBe('completed');
    const poll = await t.client.api('GET', `agentic-search/${r.body.id}/`);
    expect(poll.body.result).toEqual({ partial: true, completion_reason: 'user_cancelled', total_returned: 0, results: [], broadening: [] });
    expect(await charge(t.accountId, r.body.id)).toMatchObject({ charged: 0, charge_status: 'zero_result' });
    expect(await balance(t.accountId)).toBe(before);
  }, 120_000);

  test('budget: with a 300-credit cap the run stops at 20 leads (100 + 20 × 10), budget_exhausted, charged 300', async () => {
    const t = await tenant();
    const before = await balance(t.accountId);
    const r = await accept(t.client, { query: BROAD, target_results: 50, max_credits: 300 });
    for (let s = await steps(); s.length; s = await steps()) for (const m of s) await runAgenticStep(m.job_id, m.step);
    const poll = await t.client.api('GET', `agentic-search/${r.body.id}/`);
    expect(poll.body.status).toBe('completed');
    expect(poll.body.result).toMatchObject({ partial: true, completion_reason: 'budget_exhausted', total_returned: 20 });
    expect(await charge(t.accountId, r.body.id)).toMatchObject({ reserved: 300, charged: 300, charge_status: 'charged' });
    expect(await balance(t.accountId)).toBe(before - 300);
  }, 120_000);

  test('deadline: past AGENTIC_DEADLINE_SECONDS on the service clock the sweeper completes the run, deadline_exceeded, saved leads billed', async () => {
    const t = await tenant();
    const r = await accept(t.client, { query: BROAD, target_results: 50, max_credits: 2000 });
    const [first] = await steps();
    await runAgenticStep(first!.job_id, first!.step);
    const [second] = await steps();
    expect(second).toEqual({ job_id: r.body.id, step: 1 });
    const moved = await admin.console('POST', 'dev/clock/', { advance_seconds: 1201 });
    expect(moved.status).toBe(200);
    const poll = await t.client.api('GET', `agentic-search/${r.body.id}/`);
    expect(poll.body.status).toBe('completed');
    expect(poll.body.result).toMatchObject({ partial: true, completion_reason: 'deadline_exceeded', total_returned: 25 });
    // The step that was still on its way finds the job finished.
    await runAgenticStep(second!.job_id, second!.step);
    expect((await job(r.body.id)).result).toEqual(poll.body.result);
    expect(await charge(t.accountId, r.body.id)).toMatchObject({ charged: 350, charge_status: 'charged' });
  }, 120_000);

  test('crashes between steps: a redelivered step, a lost next step and racing duplicates never deliver or charge twice', async () => {
    const t = await tenant();
    const servedBefore = stack.sampleWeb.served.length;
    const r = await accept(t.client, { query: 'Software engineers. Ideally they spoke at a conference.', target_results: 50, max_credits: 2000 });
    const [first] = await steps();
    await runAgenticStep(first!.job_id, first!.step);
    const afterFirst = await job(r.body.id);
    // The worker crashed after saving step 0 and before its message was deleted: step 0 comes again.
    await runAgenticStep(r.body.id, 0);
    expect(await job(r.body.id)).toMatchObject({ checkpoint: afterFirst.checkpoint, leads_returned: afterFirst.leads_returned });
    // ...and the message for step 1 was lost with it: the sweeper sends it again once the step is overdue.
    expect(await steps()).toEqual([{ job_id: r.body.id, step: 1 }]);
    await admin.console('POST', 'dev/clock/', { advance_seconds: 6 * 60 });
    const resent = await steps();
    expect(resent).toEqual([{ job_id: r.body.id, step: 1 }]);
    // Two deliveries of step 1 race: one saves, the other loses the step guard.
    await Promise.all([runAgenticStep(r.body.id, 1), runAgenticStep(r.body.id, 1)]);
    for (let s = await steps(); s.length; s = await steps()) for (const m of s) await Promise.all([runAgenticStep(m.job_id, m.step), runAgenticStep(m.job_id, m.step)]);
    const done = await job(r.body.id);
    expect(done.status).toBe('completed');
    const results = (done.result as any).results as any[];
    expect(results).toHaveLength(50);
    expect(new Set(results.map((x) => x.professional_url)).size).toBe(50);
    expect(await charge(t.accountId, r.body.id)).toMatchObject({ charged: 600, charge_status: 'charged' });
    // Evidence cites only pages the sample web served during this job, and the job keeps no list of pages read.
    const served = new Set(stack.sampleWeb.served.slice(servedBefore));
    for (const x of results) for (const e of x.evidence) if (e.url) expect(served.has(e.url)).toBe(true);
    expect(Object.keys(done.checkpoint).sort()).toEqual(['charged', 'cursor', 'leads', 'rung', 'rungs', 'step', 'stop']);
    expect(results.filter((x) => x.tier === 'perfect').every((x) => x.evidence.some((e: any) => e.url && /\/team\//.test(e.url)))).toBe(true);
    expect(results.some((x) => x.tier === 'good')).toBe(true);
  }, 180_000);

  test('crashes while broadening: a step that dies mid-rung or right after moving to the next rung is redone from its checkpoint, so the run ends exactly as an uninterrupted one', async () => {
    // No place, no required check: the ladder is exact → equivalent titles → adjacent seniority, each rung
    // longer than a step, and every candidate's team page is read (the priority), so a reader can crash a step.
    const query = 'VP of Sales. Ideally they spoke at a conference.';
    const run = async (crash: boolean) => {
      const t = await tenant();
      const r = await accept(t.client, { query, target_results: 50, max_credits: 2000 });
      const seen: { step: number; rung: number; cursor: number }[] = [];
      let crashes = 0;
      let crashesOnNewRung = 0;
      for (let s = await steps(); s.length; s = await steps()) {
        for (const m of s) {
          if (crash) {
            const before = await job(m.job_id);
            // The worker dies at its second page read, before the step's save: nothing of the step is kept.
            let reads = 0;
            const dying: PageReader = { read: async (url) => { if (++reads > 1) throw new Error('worker crashed'); return { ok: false, url, reason: 'unreachable', detail: 'x' }; } };
            const died = await runAgenticStep(m.job_id, m.step, { reader: dying }).then(() => false, (e: Error) => e.message === 'worker crashed');
            if (died) {
              crashes++;
              // A step that had used up its rung's shortlist moved to the next rung before it died.
              if (before.shortlist && before.checkpoint.cursor >= before.shortlist.length) crashesOnNewRung++;
              const after = await job(m.job_id);
              expect(after.checkpoint).toEqual(before.checkpoint);
              expect(after.shortlist).toEqual(before.shortlist);
              expect(after.agentic_results).toEqual(before.agentic_results);
            }
          }
          await runAgenticStep(m.job_id, m.step);
          const saved = await job(m.job_id);
          // ...and the same message delivered again after the save does nothing.
          if (crash) await runAgenticStep(m.job_id, m.step);
          if (crash) expect((await job(m.job_id)).checkpoint).toEqual(saved.checkpoint);
          seen.push({ step: saved.checkpoint.step, rung: saved.checkpoint.rung ?? 0, cursor: saved.checkpoint.cursor });
        }
      }
      const done = await job(r.body.id);
      return { done, seen, crashes, crashesOnNewRung, charge: await charge(t.accountId, r.body.id) };
    };
    const clean = await run(false);
    const crashed = await run(true);
    const results = (d: AgenticJob) => ((d.result as any).results as any[]).map((x) => ({ url: x.professional_url, found_by: x.found_by, tier: x.tier }));
    expect(crashed.done.status).toBe('completed');
    expect(crashed.crashes).toBeGreaterThan(2);
    expect(crashed.crashesOnNewRung).toBeGreaterThan(0);
    expect(results(crashed.done)).toEqual(results(clean.done));
    expect((crashed.done.result as any).broadening).toEqual((clean.done.result as any).broadening);
    expect(crashed.charge).toMatchObject({ charged: clean.charge.charged, charge_status: 'charged' });
    // The run did broaden, through rungs in ladder order, with steps ending inside a rung.
    const found = results(crashed.done).map((x) => x.found_by);
    expect(new Set(found).size).toBeGreaterThan(1);
    const order = ['exact', 'equivalent_title', 'adjacent_seniority'];
    expect(found.map((f) => order.indexOf(f))).toEqual([...found.map((f) => order.indexOf(f))].sort((a, b) => a - b));
    expect(crashed.seen.some((x) => x.rung > 0 && x.cursor > 0)).toBe(true);
    expect(new Set(results(crashed.done).map((x) => x.url)).size).toBe(results(crashed.done).length);
    // The job item stays small however far the ladder goes: one rung's shortlist at a time.
    expect((crashed.done.result as any).broadening.length).toBeLessThanOrEqual(5);
  }, 180_000);

  test('concurrency: at most 2 pending or running per API key and 3 per account under parallel requests; replays do not count', async () => {
    const t = await tenant();
    const body = { query: BROAD, max_credits: 300 };
    const perKey = await Promise.all([0, 1, 2, 3].map((i) => accept(t.client, body, { 'idempotency-key': `k1-${i}` })));
    expect(perKey.map((r) => r.status).sort()).toEqual([202, 202, 429, 429]);
    const k2 = await admin.console('POST', `accounts/${t.accountId}/api-keys/`);
    const second = new Client(stack, k2.body.key);
    const perAccount = await Promise.all([0, 1].map((i) => accept(second, body, { 'idempotency-key': `k2-${i}` })));
    expect(perAccount.map((r) => r.status).sort()).toEqual([202, 429]);
    const limited = perAccount.find((r) => r.status === 429)!;
    expect(limited.body.error.code).toBe('rate_limited');
    // A replay of an accepted job answers 202 with that job while every slot is taken.
    const acceptedIndex = perKey.findIndex((r) => r.status === 202);
    const replay = await accept(t.client, body, { 'idempotency-key': `k1-${acceptedIndex}` });
    expect(replay.status).toBe(202);
    expect(replay.body.id).toBe(perKey[acceptedIndex]!.body.id);
    // Only the accepted three hold reservations; each rejection reserved nothing.
    const reserved = ((await admin.console('GET', `accounts/${t.accountId}/charges/`)).body.results as any[]).filter((c) => c.reserved > 0);
    expect(reserved).toHaveLength(3);
    // Ending a job gives its slot back in the same write.
    await t.client.api('POST', `agentic-search/${perKey[acceptedIndex]!.body.id}/cancel/`);
    expect((await accept(t.client, body)).status).toBe(202);
    expect((await accept(second, body)).status).toBe(429);
    await steps();
  }, 120_000);

  test('a step that gives up (dead letter) fails the job: agentic_search.failed, code error, nothing charged after paid work; slots back', async () => {
    const t = await tenant();
    const before = await balance(t.accountId);
    const r = await accept(t.client, { query: BROAD, target_results: 50, max_credits: 2000 });
    const [first] = await steps();
    await runAgenticStep(first!.job_id, first!.step);
    expect(await charge(t.accountId, r.body.id)).toMatchObject({ charged: 350, charge_status: 'pending' });
    const [lost] = await steps();
    // The step-1 message dead-letters; the real dead-letter consumer ends the run.
    const dlqArn = `arn:aws:sqs:us-east-1:000000000000:local-search-dlq`;
    const out = await deadLetterHandler(
      { Records: [{ messageId: 'm1', receiptHandle: 'r', body: JSON.stringify(messages.agenticStep(lost!.job_id, lost!.step)), attributes: { ApproximateReceiveCount: '5' } as never, messageAttributes: {}, md5OfBody: '', eventSource: 'aws:sqs', eventSourceARN: dlqArn, awsRegion: 'us-east-1' }] },
      { functionName: 'dead-letters', awsRequestId: 'x', getRemainingTimeInMillis: () => 60_000 } as never,
    );
    expect(out.batchItemFailures).toEqual([]);
    const poll = await t.client.api('GET', `agentic-search/${r.body.id}/`);
    expect(poll.body).toMatchObject({ status: 'failed', error: { code: 'error' } });
    expect(poll.body.result).toEqual({ error: poll.body.error });
    expect(poll.body.error.message).toMatch(/no credits were charged/);
    expect(await charge(t.accountId, r.body.id)).toMatchObject({ charged: 0, charge_status: 'released' });
    expect(await balance(t.accountId)).toBe(before);
    expect((await job(r.body.id)).event_type).toBe('agentic_search.failed');
    await failRun(r.body.id);
    expect((await job(r.body.id)).status).toBe('failed');
    const k = await Promise.all([accept(t.client, { query: BROAD, max_credits: 300 }), accept(t.client, { query: BROAD, max_credits: 300 })]);
    expect(k.map((x) => x.status)).toEqual([202, 202]);
    await steps();
  }, 120_000);

  test('the step budget bounds a page read: a candidate whose read it cuts short is left for the next step', async () => {
    const t = await tenant();
    const r = await accept(t.client, { query: 'Software engineers who spoke at a conference.', target_results: 50, max_credits: 2000 });
    const [first] = await steps();
    // Every page takes 400 ms unless the read is given less; the step's budget is 600 ms.
    const given: (number | undefined)[] = [];
    const reader: PageReader = {
      read: (url, options = {}) => {
        given.push(options.timeoutMs);
        const wait = Math.min(400, options.timeoutMs ?? Infinity);
        return new Promise((resolve) =>
          setTimeout(() => resolve(wait < 400 ? { ok: false, url, reason: 'timeout', detail: 'cut' } : { ok: true, page: { url, status: 200, contentType: 'text/html', body: '<article><h2>Talk</h2><p>She spoke at a conference.</p></article>' } }), wait),
        );
      },
    };
    const started = Date.now();
    await runAgenticStep(first!.job_id, first!.step, { reader, stepBudgetMs: 600 });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(given[0]).toBeUndefined(); // the first candidate under the reader's own caps
    expect(given[1]).toBeLessThanOrEqual(200);
    const saved = await job(r.body.id);
    // Candidate 0 qualified; candidate 1's read was cut by the budget, so the cursor stays on it.
    expect(saved.checkpoint).toMatchObject({ step: 1, cursor: 1, leads: 1 });
    expect(saved.agentic_results).toHaveLength(1);
  }, 120_000);

  test('the first step reads the query once and saves the criteria with the shortlist; later steps judge by them, however a model would read it now', async () => {
    const t = await tenant();
    const r = await accept(t.client, { query: BROAD, target_results: 50, max_credits: 2000 });
    // An engine that reads the query differently the second time (as a model may): a required check nobody meets.
    let reads = 0;
    const judged: string[] = [];
    const fickle: Understanding = {
      ...deterministicUnderstanding,
      parseCriteria: async (q) => {
        const criteria = parseCriteria(q);
        return ++reads === 1 ? criteria : { ...criteria, required: [{ text: 'uses Cobol', check: { kind: 'tech', tool: 'Cobol' } }] };
      },
      judgeEvidence: async (c, blocks, today) => {
        judged.push(c.kind);
        return deterministicUnderstanding.judgeEvidence(c, blocks, today);
      },
    };
    const ours = async () => (await steps()).find((m) => m.job_id === r.body.id);
    const first = await ours();
    await runAgenticStep(first!.job_id, first!.step, { understanding: fickle });
    const afterFirst = await job(r.body.id);
    expect(afterFirst.criteria).toEqual(parseCriteria(BROAD));
    expect(afterFirst.checkpoint).toMatchObject({ step: 1, leads: 25 });
    const second = await ours();
    expect(second?.step).toBe(1);
    await runAgenticStep(second!.job_id, second!.step, { understanding: fickle });
    const done = await job(r.body.id);
    expect(reads).toBe(1);
    expect(judged).toEqual([]);
    expect(done.status).toBe('completed');
    expect(done.leads_returned).toBe(50);
    // Working state goes with the run: the finished item keeps neither the shortlist nor the criteria.
    expect(done.criteria).toBeUndefined();
    expect(done.shortlist).toBeUndefined();
  }, 120_000);

  test('a dispatch failure answers 500 and undoes the admission: reservation released, slot and key free again', async () => {
    const t = await tenant();
    const before = await balance(t.accountId);
    const request = AgenticSearchSchema.parse({ query: BROAD, webhook_url: hook });
    const url = process.env.SEARCH_QUEUE_URL!;
    process.env.SEARCH_QUEUE_URL = `${url}-missing`;
    try {
      await expect(acceptAgenticSearch({ accountId: t.accountId, keyId: t.keyId }, request, 'retry-me')).rejects.toBeInstanceOf(AdmissionFailedError);
    } finally {
      process.env.SEARCH_QUEUE_URL = url;
    }
    expect(await balance(t.accountId)).toBe(before);
    const [failed] = ((await admin.console('GET', `accounts/${t.accountId}/charges/`)).body.results as any[]);
    expect(failed).toMatchObject({ operation: 'agentic_search', charged: 0, charge_status: 'released' });
    expect((await job(failed.reference)).status).toBe('failed');
    // The same key now starts a new job; both slots of the key are free.
    const again = await acceptAgenticSearch({ accountId: t.accountId, keyId: t.keyId }, request, 'retry-me');
    expect(again.replayed).toBe(false);
    expect(again.body.id).not.toBe(failed.reference);
    expect((await accept(t.client, { query: BROAD, max_credits: 300 })).status).toBe(202);
    await steps();
  }, 120_000);
});
