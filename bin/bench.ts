/**
 * `npm run bench`: measured numbers for docs/benchmarks.md and issue notes, all on this machine, all on loopback.
 *   tsx bin/bench.ts [--people 100000] [--import-people 20000] [--emails 100] [--sequences 1] [--round-ms 4000]
 *   BENCH_MILLION=1 also measures search at 1,000,000 people (generated for the run, never stored).
 * Writes bench-results/bench.json and bench-results/bench.md (bundle sizes and init times: bundles.md).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { execFileSync } from 'node:child_process';
import type { Person } from '../shared/directory/types.js';
import { startLocalStack } from '../shared/local/stack.js';
import { startServices } from '../shared/local/services.js';
import { readDirectoryFile, writeDirectoryFile } from '../shared/directory/file.js';
import { Worker } from 'node:worker_threads';
import { documentClient } from '../shared/adapters/aws.js';
import { importDirectory } from '../shared/directory/directory.repository.js';
import { jobsKeys } from '../shared/jobs/jobs.keys.js';
import { accountsKeys } from '../shared/accounts/accounts.keys.js';
import { reserve } from '../shared/accounts/ledger.repository.js';
import { sweep } from '../shared/workers/sweep.js';
import { publicApiClient } from '../shared/contract/client.js';
import { GetCommand } from '@aws-sdk/lib-dynamodb';


/** What one load-generator worker does (bench-load.mjs). */
type LoadSpec =
  | { kind: 'http'; url: string; headers: Record<string, string>; concurrency: number; ms: number }
  | { kind: 'get-item'; table: string; key: Record<string, string>; concurrency: number; ms: number };

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({ options: { people: { type: 'string', default: '100000' }, 'import-people': { type: 'string', default: '20000' }, emails: { type: 'string', default: '100' }, sequences: { type: 'string', default: '1' }, 'round-ms': { type: 'string', default: '4000' } } });
const results: Record<string, unknown> = { machine: { cores: (await import('node:os')).cpus().length, node: process.version }, at: new Date().toISOString() };
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return Number(s[Math.min(s.length - 1, Math.floor(p * s.length))]!.toFixed(2));
};
const log = (m: string) => console.log(m);
const byKind = (xs: string[]) => {
  const counts = new Map<string, number>();
  for (const x of xs) {
    const name = x.replace(/Command$/, '');
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return [...counts].map(([name, n]) => (n > 1 ? `${name}×${n}` : name)).join(', ');
};

// ── 1. In-process search over the labelled evaluation set ─────────────────────────────────────────
// One child process per size, so each heap figure is that directory's alone. The million-person run is
// opt-in (BENCH_MILLION=1): generating it takes minutes and several GB of heap.
{
  const runSearchBench = (people: number) => {
    log(`search: ${people} people…`);
    const out = execFileSync(process.execPath, ['--max-old-space-size=12288', '--import', 'tsx', join(root, 'bin/bench-search.ts'), '--people', String(people)], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
    const r = JSON.parse(out.trim().split('\n').at(-1)!);
    log(`  ${JSON.stringify({ ...r, quality: undefined, misses: r.misses.length })}`);
    return r;
  };
  results.search = runSearchBench(Number(values.people));
  if (process.env.BENCH_MILLION === '1') results.search_million = runSearchBench(1_000_000);
}

// ── The in-memory engine's versioned artifact: build, then load in a fresh process as the search worker does
// (bench-engine.ts), at --people and at 1,000,000 (BENCH_MILLION=1) or else 300,000 ─────────────────────────
{
  const runEngineBench = (people: number) => {
    log(`engine artifact: ${people} people…`);
    const out = execFileSync(process.execPath, ['--max-old-space-size=12288', '--import', 'tsx', join(root, 'bin/bench-engine.ts'), '--people', String(people)], { cwd: root, encoding: 'utf8', maxBuffer: 16 * 2 ** 20 });
    const r = JSON.parse(out.trim().split('\n').at(-1)!);
    log(`  ${JSON.stringify(r)}`);
    return r;
  };
  results.engine = [runEngineBench(Number(values.people)), runEngineBench(process.env.BENCH_MILLION === '1' ? 1_000_000 : 300_000)];
}

// ── The two engines side by side at --people people: the in-memory index and a live OpenSearch node on loopback
// (bench-opensearch.ts, its own child process and node) ─────────────────────────────────────────────────
{
  log(`opensearch vs memory: ${values.people} people…`);
  const out = execFileSync(process.execPath, ['--max-old-space-size=8192', '--import', 'tsx', join(root, 'bin/bench-opensearch.ts'), '--people', String(values.people)], { cwd: root, encoding: 'utf8', maxBuffer: 16 * 2 ** 20, stdio: ['ignore', 'pipe', 'inherit'] });
  results.opensearch = JSON.parse(out.trim().split('\n').at(-1)!);
  log(`  ${JSON.stringify(results.opensearch)}`);
}

// ── Agentic search at --people people, on its own local stack in a child process (bench-agentic.ts) ─────
{
  log(`agentic search: ${values.people} people…`);
  const out = execFileSync(process.execPath, ['--max-old-space-size=8192', '--import', 'tsx', join(root, 'bin/bench-agentic.ts'), '--people', String(values.people)], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
  results.agentic = JSON.parse(out.trim().split('\n').at(-1)!);
  log(`  ${JSON.stringify((results.agentic as { summary: unknown }).summary)}`);
}

// ── 1b. Start-up of `npm start` at the bench's directory size: first start, restart, restart after a move ──
{
  log(`start-up: ${values.people} people…`);
  const out = execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', join(root, 'bin/bench-startup.ts'), '--people', String(values.people)], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
  results.startup = JSON.parse(out.trim().split('\n').at(-1)!);
  log(`  ${JSON.stringify(results.startup)}`);
}

// ── Sequences: 100 contacts × 3 steps drafted and sent, beside raw DynamoDB Local, on their own stack (bench-sequences.ts) ──
{
  log('sequences: 100 contacts × 3 steps, drafted and sent…');
  const out = execFileSync(process.execPath, ['--import', 'tsx', join(root, 'bin/bench-sequences.ts')], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
  // Its workers log to stdout too: its summary is the last line that begins as the summary does.
  results.sequences = JSON.parse(out.trim().split('\n').findLast((l) => l.startsWith('{"at":'))!);
  log(`  ${JSON.stringify(results.sequences)}`);
}

// ── Bulk enrichment: 100 mixed items as one job, beside the same 100 single calls one after another (bench-bulk.ts) ──
{
  log('bulk enrichment: 100 mixed items, beside 100 single calls…');
  const out = execFileSync(process.execPath, ['--import', 'tsx', join(root, 'bin/bench-bulk.ts')], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
  results.bulk = JSON.parse(out.trim().split('\n').findLast((l) => l.startsWith('{"at":'))!);
  log(`  ${JSON.stringify(results.bulk)}`);
}

// ── Mail reading: the real-mail corpus read as bounce / complaint / auto-reply / reply, beside mailparser alone (bench-mail-corpus.ts) ──
{
  log('mail reading: the real-mail corpus…');
  const out = execFileSync(process.execPath, ['--import', 'tsx', join(root, 'bin/bench-mail-corpus.ts')], { cwd: root, encoding: 'utf8', maxBuffer: 16 * 2 ** 20 });
  results.mail_reading = JSON.parse(out.trim().split('\n').findLast((l) => l.startsWith('{"at":'))!);
  log(`  ${JSON.stringify({ ...(results.mail_reading as object), recipient_misses: undefined, hard_soft_disagreements_by_system: undefined })}`);
}

// ── Fair shares: tenant B's ordinary workload alone, then beside tenant A at twice its budgets on every route (bench-noisy-neighbour.ts) ──
{
  log('noisy neighbour: tenant B alone, then beside tenant A at twice its budgets…');
  const out = execFileSync(process.execPath, ['--import', 'tsx', join(root, 'bin/bench-noisy-neighbour.ts')], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
  results.noisy_neighbour = JSON.parse(out.trim().split('\n').findLast((l) => l.startsWith('{"at":'))!);
  log(`  ${JSON.stringify({ ...(results.noisy_neighbour as object), a: undefined })}`);
}

// ── Cost per operation: what each operation consumed on its own stack, in AWS dollars per 1,000, beside its credits (bench-cost.ts) ──
{
  log('cost per operation: consumption on the twin → AWS dollars per 1,000 operations…');
  const out = execFileSync(process.execPath, ['--import', 'tsx', join(root, 'bin/bench-cost.ts')], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
  results.cost = JSON.parse(out.trim().split('\n').findLast((l) => l.startsWith('{"at":'))!);
  const c = results.cost as { rows: { operation: string; per1000: { total: number } }[]; dearest: unknown; reference: { per1000: { total: number } } };
  log(`  ${JSON.stringify({ per1000: Object.fromEntries(c.rows.map((x) => [x.operation, Number(x.per1000.total.toFixed(4))])), reference_read_per1000: Number(c.reference.per1000.total.toFixed(4)), dearest: c.dearest })}`);
}

// ── 2. The local stack: import, enrichment, calls per operation ──────────────────────────────────────
const dir = mkdtempSync(join(tmpdir(), 'bench-'));
const stack = await startLocalStack({ root, dataDir: null, port: 0, adminToken: 'bench', throttleMultiplier: 100_000, visibilityTimeoutSeconds: 30 });
try {
  const file = join(dir, 'directory.jsonl');
  const importPeople = Number(values['import-people']);
  await writeDirectoryFile(file, { people: importPeople, seed: 42 });
  let t = performance.now();
  await importDirectory(readDirectoryFile(file), { version: '0000000000000bec', concurrency: 8 });
  const importMs = performance.now() - t;
  results.import = { people: importPeople, ms: Math.round(importMs), people_per_s: Math.round(importPeople / (importMs / 1000)) };
  log(`import: ${JSON.stringify(results.import)}`);
  // The versioned, chunked import (issue 16): the simulated AWS plan, and on this stack the chunked import
  // through the real queues and workers beside raw BatchWriteItem into the same DynamoDB Local.
  const { importPlan, itemShapes, measureLocalImport } = await import('./bench-import-plan.js');
  const shapes = itemShapes();
  results.import_plan = { shapes, rows: [importPlan(1_000_000, shapes), importPlan(100_000_000, shapes)] };
  log(`import plan: ${JSON.stringify(results.import_plan)}`);
  results.import_chunked = await measureLocalImport(file, importPeople);
  log(`chunked import vs raw BatchWriteItem: ${JSON.stringify(results.import_chunked)}`);
  await startServices({ root, stack, dataDir: null, directory: { file, people: importPeople, seed: 42 } });

  const people: Person[] = [];
  for await (const r of readDirectoryFile(file)) if (r.type === 'person' && r.work_email) people.push(r);

  const admin = { 'x-admin-token': 'bench', 'content-type': 'application/json' };
  const account = (await (await fetch(`${stack.consoleUrl}accounts/`, { method: "POST", headers: admin, body: JSON.stringify({ name: "bench", credits: 10_000_000 }) })).json()) as { id: string };
  const key = ((await (await fetch(`${stack.consoleUrl}accounts/${account.id}/api-keys/`, { method: 'POST', headers: admin })).json()) as { key: string }).key;
  await fetch(`${stack.consoleUrl}accounts/${account.id}/webhook-secrets/`, { method: 'POST', headers: admin });
  await fetch(`${stack.consoleUrl}accounts/${account.id}/sending-accounts/`, { method: 'POST', headers: admin, body: JSON.stringify({ email: 'bench@seller.test', type: 'google', daily_limit: 10_000 }) });
  const api = publicApiClient(new URL(stack.baseUrl).origin, key);
  const settle = () => fetch(`${stack.consoleUrl}dev/settle/`, { method: 'POST', headers: admin });

  // DynamoDB calls per operation, counted by an SDK middleware on the one document client every handler,
  // worker and the local gateway share. "request" is the HTTP request alone (workers idle before and
  // after); "until idle" adds what the workers do for it until the stack settles.
  let counted: string[] | null = null;
  documentClient().middlewareStack.add(
    (next, context) => async (args) => {
      counted?.push(context.commandName ?? 'unknown');
      return next(args);
    },
    { step: 'initialize', name: 'benchCallCounter' },
  );
  const countCalls = async <T>(fn: () => Promise<T>): Promise<{ calls: string[]; value: T }> => {
    await settle();
    counted = [];
    const value = await fn();
    const calls = counted;
    counted = null;
    return { calls, value };
  };
  const expectStatus = (r: { data?: unknown; error?: unknown; response: Response }, status: number, what: string) => {
    if (r.response.status !== status) throw new Error(`${what}: ${r.response.status} ${JSON.stringify(r.error)}`);
    return r.data as any;
  };
  const operations: { operation: string; request: string[]; until_idle?: string[] }[] = [];
  const record = (operation: string, request: string[], untilIdle?: string[]) => operations.push({ operation, request, ...(untilIdle ? { until_idle: untilIdle } : {}) });

  const searchBody = { query: 'product managers', max_results: 25, webhook_url: 'http://127.0.0.1:9/hook' };
  const created = await countCalls(async () => expectStatus(await api.POST('/api/public/v1/search/', { body: searchBody }), 202, 'create search'));
  const createdIdle = await countCalls(async () => {
    const r = await expectStatus(await api.POST('/api/public/v1/search/', { body: searchBody }), 202, 'create search');
    await settle();
    return r;
  });
  record('create people search', created.calls, createdIdle.calls);
  const job = createdIdle.value as { id: string };
  const poll = await countCalls(async () => expectStatus(await api.GET('/api/public/v1/search/{job_id}/', { params: { path: { job_id: job.id } } }), 200, 'poll'));
  if (poll.value.status !== 'completed' || poll.value.leads_returned !== 25) throw new Error(`the polled search is not a completed 25-lead search: ${JSON.stringify(poll.value).slice(0, 200)}`);
  record('poll people search', poll.calls);
  // Deep search end to end: accepted, shortlisted, every candidate researched (one directory read each, 8 in
  // flight), settled and queued for delivery; the wall time is acceptance to a completed poll.
  const deepJobs: Record<string, number> = {};
  for (const mode of ['standard', 'extended'] as const) {
    await settle();
    const started = performance.now();
    const accepted = await expectStatus(await api.POST('/api/public/v1/deep-search/', { body: { query: 'product managers in the United States', mode, webhook_url: 'http://127.0.0.1:9/hook' } }), 202, 'create deep search');
    for (;;) {
      const polled = await expectStatus(await api.GET('/api/public/v1/deep-search/{job_id}/', { params: { path: { job_id: accepted.id } } }), 200, 'poll deep search');
      if (polled.status === 'completed') break;
      if (polled.status === 'failed') throw new Error(`deep search failed: ${JSON.stringify(polled.error)}`);
      await new Promise((r) => setTimeout(r, 10));
    }
    deepJobs[`${mode}_ms`] = Math.round(performance.now() - started);
  }
  results.deep_search_job = { people: importPeople, ...deepJobs };
  log(`deep search job: ${JSON.stringify(results.deep_search_job)}`);
  const deepBody = { query: 'product managers in the United States', webhook_url: 'http://127.0.0.1:9/hook' };
  const deepCreated = await countCalls(async () => expectStatus(await api.POST('/api/public/v1/deep-search/', { body: deepBody }), 202, 'create deep search'));
  const deepIdle = await countCalls(async () => {
    await expectStatus(await api.POST('/api/public/v1/deep-search/', { body: deepBody }), 202, 'create deep search');
    await settle();
  });
  record('create deep search (standard, 25 researched)', deepCreated.calls, deepIdle.calls);
  const phone = await countCalls(async () => {
    const r = await expectStatus(await api.POST('/api/public/v1/enrich/phone/', { body: { email: people[1]!.work_email!, webhook_url: 'http://127.0.0.1:9/hook' } }), 202, 'phone');
    return r as { id: string };
  });
  await settle();
  const phoneIdle = await countCalls(async () => {
    const r = await expectStatus(await api.POST('/api/public/v1/enrich/phone/', { body: { email: people[2]!.work_email!, webhook_url: 'http://127.0.0.1:9/hook' } }), 202, 'phone');
    await settle();
    return r;
  });
  record('create phone enrichment', phone.calls, phoneIdle.calls);
  record('poll phone enrichment', (await countCalls(async () => expectStatus(await api.GET('/api/public/v1/enrich/phone/{job_id}/', { params: { path: { job_id: phone.value.id } } }), 200, 'phone poll'))).calls);
  record('email enrichment', (await countCalls(async () => expectStatus(await api.POST('/api/public/v1/enrich/email/', { body: { professional_url: people[0]!.professional_url } }), 200, 'enrich email'))).calls);
  record('sending accounts (GET /email/accounts/)', (await countCalls(async () => expectStatus(await api.GET('/api/public/v1/email/accounts/'), 200, 'email accounts'))).calls);
  const emailBody = { to: { email: 'calls@prospect.test', first_name: 'Alex', company_name: 'Acme' }, instructions: 'Short: introduce our analytics platform and ask for a 15-minute call.' };
  const email = await countCalls(async () => expectStatus(await api.POST('/api/public/v1/emails/', { body: emailBody }), 202, 'create email'));
  const emailIdle = await countCalls(async () => {
    const r = await expectStatus(await api.POST('/api/public/v1/emails/', { body: { ...emailBody, to: { ...emailBody.to, email: 'calls2@prospect.test' } } }), 202, 'create email');
    await settle();
    return r;
  });
  record('create email (drafting)', email.calls, emailIdle.calls);
  record('GET email', (await countCalls(async () => expectStatus(await api.GET('/api/public/v1/emails/{id}/', { params: { path: { id: emailIdle.value.id } } }), 200, 'get email'))).calls);
  record('edit email (PATCH)', (await countCalls(async () => expectStatus(await api.PATCH('/api/public/v1/emails/{id}/', { params: { path: { id: emailIdle.value.id } }, body: { subject: 'Quick question' } }), 200, 'edit email'))).calls);
  const approve = await countCalls(async () => expectStatus(await api.POST('/api/public/v1/emails/{id}/approve/', { params: { path: { id: email.value.id } }, body: { schedule: 'now' } }), 200, 'approve'));
  const approvedIdle = await countCalls(async () => {
    const r = await expectStatus(await api.POST('/api/public/v1/emails/{id}/approve/', { params: { path: { id: emailIdle.value.id } }, body: { schedule: 'now' } }), 200, 'approve');
    await settle();
    return r;
  });
  record('approve email (now) → sent', approve.calls, approvedIdle.calls);
  record('list emails', (await countCalls(async () => expectStatus(await api.GET('/api/public/v1/emails/'), 200, 'list emails'))).calls);
  results.dynamodb_calls_per_operation = operations.map((o) => ({ ...o, request_total: o.request.length, until_idle_total: o.until_idle?.length ?? null }));
  for (const o of operations) log(`calls: ${o.operation}: ${o.request.length} (${byKind(o.request)})${o.until_idle ? ` | until idle ${o.until_idle.length}` : ''}`);

  // Poll throughput through the whole local stack (HTTP → local gateway → handler → DynamoDB Local)
  // beside raw GetItem of the same job item on the same DynamoDB Local, at the same concurrency, each
  // load generated from a worker thread (a client outside the stack's event loop), alternated in rounds
  // so that neither side gets a warmer machine.
  const CONCURRENCY = 16;
  const ROUND_MS = Number(values['round-ms']);
  const rate = (spec: LoadSpec) =>
    new Promise<number>((resolvePromise, reject) => {
      const worker = new Worker(new URL('./bench-load.mjs', import.meta.url), { workerData: spec });
      worker.once('message', (m: { done: number; seconds: number }) => resolvePromise(m.done / m.seconds));
      worker.once('error', reject);
    });
  const pollLoad = (ms: number): LoadSpec => ({ kind: 'http', url: `${stack.baseUrl}search/${job.id}/`, headers: { 'x-api-key': key }, concurrency: CONCURRENCY, ms });
  const getItemLoad = (ms: number): LoadSpec => ({ kind: 'get-item', table: process.env.JOBS_TABLE_NAME!, key: jobsKeys.job(job.id), concurrency: CONCURRENCY, ms });
  await rate(pollLoad(1000));
  await rate(getItemLoad(1000));
  const polls: number[] = [];
  const gets: number[] = [];
  for (let round = 0; round < 3; round++) {
    gets.push(await rate(getItemLoad(ROUND_MS)));
    polls.push(await rate(pollLoad(ROUND_MS)));
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  results.poll_throughput = {
    concurrency: CONCURRENCY,
    round_ms: ROUND_MS,
    polls_per_s: Math.round(median(polls)),
    get_item_per_s: Math.round(median(gets)),
    ratio: Number((median(polls) / median(gets)).toFixed(2)),
    rounds: { polls: polls.map(Math.round), get_item: gets.map(Math.round) },
  };
  log(`poll throughput: ${JSON.stringify(results.poll_throughput)}`);

  const lookups: number[] = [];
  for (let i = 0; i < 200; i++) {
    const p = people[(i * 37) % people.length]!;
    const s = performance.now();
    await api.POST('/api/public/v1/enrich/email/', { body: { professional_url: p.professional_url } });
    lookups.push(performance.now() - s);
  }
  results.enrichment_http = { calls: lookups.length, p50_ms: pct(lookups, 0.5), p95_ms: pct(lookups, 0.95) };
  log(`enrichment over HTTP: ${JSON.stringify(results.enrichment_http)}`);

  // ── Sweeper: overdue records ended per second, beside sequential raw GetItem on the same DynamoDB Local ──
  // Each record costs the sweeper a due-index page share, one consistent read and one settle transaction.
  {
    const SWEEP_N = 300;
    const overdue = new Date(Date.now() - 3600_000);
    for (let i = 0; i < SWEEP_N; i++) await reserve({ accountId: account.id, operation: 'email_enrich', reference: `bench_sweep_${i}`, amount: 1, dueAt: overdue });
    let s0 = performance.now();
    for (let i = 0; i < SWEEP_N; i++) await documentClient().send(new GetCommand({ TableName: process.env.ACCOUNTS_TABLE_NAME!, Key: accountsKeys.account(account.id), ConsistentRead: true }));
    const getMs = performance.now() - s0;
    s0 = performance.now();
    const report = await sweep();
    const sweepMs = performance.now() - s0;
    results.sweep = {
      overdue: SWEEP_N,
      examined: report.examined,
      ended: report.ended,
      ms: Math.round(sweepMs),
      records_per_s: Math.round(report.examined / (sweepMs / 1000)),
      sequential_get_item_per_s: Math.round(SWEEP_N / (getMs / 1000)),
    };
    log(`sweep: ${JSON.stringify(results.sweep)}`);
  }

  // ── 3. Outreach: drafting throughput and approve → sent latency ──────────────────────────────────
  const n = Number(values.emails);
  t = performance.now();
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const r = (await api.POST('/api/public/v1/emails/', { body: { to: { email: `bench${i}@prospect.test`, first_name: 'Alex', company_name: 'Acme' }, instructions: 'Short: introduce our analytics platform and ask for a 15-minute call.' } })).data as { id: string };
    ids.push(r.id);
  }
  await settle();
  const draftMs = performance.now() - t;
  results.drafting = { emails: n, ms: Math.round(draftMs), emails_per_s: Number((n / (draftMs / 1000)).toFixed(1)) };
  log(`drafting: ${JSON.stringify(results.drafting)}`);
  const latencies: number[] = [];
  for (const id of ids.slice(0, 20)) {
    const s = performance.now();
    await api.POST('/api/public/v1/emails/{id}/approve/', { params: { path: { id } }, body: { schedule: 'now' } });
    for (;;) {
      const e = (await api.GET('/api/public/v1/emails/{id}/', { params: { path: { id } } })).data as { status: string };
      if (e.status === 'sent' || e.status === 'failed') break;
      await new Promise((r) => setTimeout(r, 5));
    }
    latencies.push(performance.now() - s);
  }
  results.approve_to_sent = { emails: latencies.length, p50_ms: pct(latencies, 0.5), p95_ms: pct(latencies, 0.95) };
  log(`approve→sent: ${JSON.stringify(results.approve_to_sent)}`);

  // ── 4. Sequences: 100 contacts × 3 steps each, drafted end to end (accept, enrollments, chained drafts, pass settled) ──
  const sequences = Number(values.sequences);
  const SEQUENCE_CONTACTS = 100;
  const SEQUENCE_STEPS = 3;
  t = performance.now();
  const sequenceIds: string[] = [];
  for (let k = 0; k < sequences; k++) {
    const contacts = Array.from({ length: SEQUENCE_CONTACTS }, (_, i) => ({ email: `seqbench${k}.${i}@prospect.test`, first_name: 'Alex', company_name: 'Acme' }));
    const r = (await api.POST('/api/public/v1/sequences/', { body: { contacts, steps: SEQUENCE_STEPS, instructions: 'Short: introduce our analytics platform and ask for a 15-minute call.' } })).data as { id: string; contacts_accepted: number };
    if (r.contacts_accepted !== SEQUENCE_CONTACTS) throw new Error(`sequence bench: ${r.contacts_accepted} of ${SEQUENCE_CONTACTS} contacts accepted`);
    sequenceIds.push(r.id);
  }
  // Settled means every pass has closed (dev/settle/ alone gives up after a bounded wait on a loaded machine).
  const passClosed = async (id: string) => ((await api.GET('/api/public/v1/sequences/{id}/', { params: { path: { id } } })).data as { status: string }).status !== 'drafting';
  for (let i = 0; i < 60 && !(await Promise.all(sequenceIds.map(passClosed))).every(Boolean); i++) await settle();
  const sequenceMs = performance.now() - t;
  for (const id of sequenceIds) {
    const s = (await api.GET('/api/public/v1/sequences/{id}/', { params: { path: { id } } })).data as { status: string; drafted: number };
    if (s.status !== 'pending_review' || s.drafted !== SEQUENCE_CONTACTS * SEQUENCE_STEPS) throw new Error(`sequence bench: ${id} ended ${s.status} with ${s.drafted} drafts`);
  }
  const sequenceEmails = sequences * SEQUENCE_CONTACTS * SEQUENCE_STEPS;
  results.sequence_drafting = { sequences, contacts: SEQUENCE_CONTACTS, steps: SEQUENCE_STEPS, emails: sequenceEmails, ms: Math.round(sequenceMs), emails_per_s: Number((sequenceEmails / (sequenceMs / 1000)).toFixed(1)) };
  log(`sequence drafting: ${JSON.stringify(results.sequence_drafting)}`);
} finally {
  await stack.stop();
  rmSync(dir, { recursive: true, force: true });
}

results.bundles = (await (await import('./bench-bundles.js')).benchBundles(root)).summary;
mkdirSync(join(root, 'bench-results'), { recursive: true });
writeFileSync(join(root, 'bench-results/bench.json'), JSON.stringify(results, null, 2));
const r = results as any;
const sizeRow = (x: any) =>
  `| search at ${x.people.toLocaleString('en-US')} people: generation / index build / heap used (index alone) | ${x.generate_ms} ms / ${x.index_build_ms} ms / ${x.heap_used_mb} MB (${x.heap_index_mb} MB) |\n` +
  `| search p50 / p95 / p99 / max (${x.queries} evaluation queries × ${x.samples / x.queries} rounds, in-process, 100 leads; load average ${x.load_average}) | ${x.p50_ms} / ${x.p95_ms} / ${x.p99_ms} / ${x.max_ms} ms |\n` +
  `| search CPU time p50 / p95 / p99 (the same runs: the process's own CPU, without waiting for a core) | ${x.cpu_p50_ms} / ${x.cpu_p95_ms} / ${x.cpu_p99_ms} ms |`;
const quality = [
  `| category (${r.search.people.toLocaleString('en-US')} people) | queries | precision | recall |`,
  '|---|---|---|---|',
  ...r.search.quality.map((q: any) => `| ${q.category} | ${q.queries} | ${q.precision.toFixed(3)} | ${q.recall.toFixed(3)} |`),
].join('\n');
const md = [
  '| measure | value |',
  '|---|---|',
  sizeRow(r.search),
  ...(r.search_million ? [sizeRow(r.search_million)] : []),
  `| deep-search shortlist at ${r.search.people.toLocaleString('en-US')} people p50 / p95, standard (25) · extended (100) (${r.search.deep_search.queries} evaluation queries, in-process, beside people search's p50 above) | ${r.search.deep_search.standard.p50_ms} / ${r.search.deep_search.standard.p95_ms} ms · ${r.search.deep_search.extended.p50_ms} / ${r.search.deep_search.extended.p95_ms} ms |`,
  `| deep-search job, accept → completed poll, on the local stack (${r.deep_search_job.people.toLocaleString('en-US')} people; 25 / 100 directory reads for research) standard / extended | ${r.deep_search_job.standard_ms} / ${r.deep_search_job.extended_ms} ms |`,
  `| npm start to /healthz at ${r.startup.people.toLocaleString('en-US')} people: first start (fresh DATA_DIR) / restart / restart after moving DATA_DIR (load average) | ${r.startup.first_start_ms} / ${r.startup.restart_ms} / ${r.startup.moved_restart_ms} ms (${r.startup.load_average.join(' / ')}) |`,
  `| index snapshot load (sha256 of the directory file + read + deserialize) / heap added / external buffers | ${r.startup.index_load_ms} ms / ${r.startup.heap_after_load_mb} MB / ${r.startup.external_after_load_mb} MB |`,
  ...r.engine.map(
    (e: any) =>
      `| search index artifact at ${e.people.toLocaleString('en-US')} people: size / load in a fresh process / heap · external / peak RSS above the parser's baseline (bytes per person) | ${e.artifact_mb} MB / ${e.load_ms} ms / ${e.heap_mb} · ${e.external_mb} MB / ${e.peak_rss_mb - e.baseline_rss_mb} MB (${e.peak_bytes_per_person} B) |`,
  ),
  `| physical reference: reading the ${r.startup.snapshot_mb} MB snapshot's bytes / sha256 of the ${r.startup.directory_file_mb} MB directory file, streamed (in memory) | ${r.startup.read_snapshot_bytes_ms} ms / ${r.startup.sha256_streamed_ms} ms (${r.startup.sha256_in_memory_ms} ms) |`,
  `| search engines at ${r.opensearch.people.toLocaleString('en-US')} people: in-memory index build / OpenSearch load through the import's loader (searchable) | ${r.opensearch.memory.build_ms} ms / ${r.opensearch.opensearch.load_ms} ms (${r.opensearch.opensearch.load_and_searchable_ms} ms) |`,
  `| evaluation set (${r.opensearch.queries} queries, first ${r.opensearch.limit}) p50 / p95 / p99: in-memory / live OpenSearch node | ${r.opensearch.memory.p50_ms} / ${r.opensearch.memory.p95_ms} / ${r.opensearch.memory.p99_ms} ms · ${r.opensearch.opensearch.p50_ms} / ${r.opensearch.opensearch.p95_ms} / ${r.opensearch.opensearch.p99_ms} ms |`,
  `| physical reference: OpenSearch \`match_all\` of ${r.opensearch.limit} p50 / p95 / p99, same node | ${r.opensearch.opensearch.match_all_floor.p50_ms} / ${r.opensearch.opensearch.match_all_floor.p95_ms} / ${r.opensearch.opensearch.match_all_floor.p99_ms} ms |`,
  `| OpenSearch import loader / physical reference: raw \`_bulk\` of the same documents, same node | ${r.opensearch.opensearch.loader_docs_per_s} / ${r.opensearch.opensearch.raw_bulk_docs_per_s} docs/s |`,
  `| OpenSearch node: heap used / max (\`_nodes/stats/jvm\`), index store, start to yellow | ${r.opensearch.opensearch.heap_used_mb} / ${r.opensearch.opensearch.heap_max_mb} MB, ${r.opensearch.opensearch.store_mb} MB, ${r.opensearch.opensearch.node_start_ms} ms |`,
  `| directory import into DynamoDB Local (${r.import.people} people; DIRECTORY_STORE=dynamodb only) | ${r.import.ms} ms (${r.import.people_per_s}/s) |`,
  `| email enrichment over HTTP p50 / p95 | ${r.enrichment_http.p50_ms} / ${r.enrichment_http.p95_ms} ms |`,
  `| poll throughput, ${r.poll_throughput.concurrency} clients, through the local stack | ${r.poll_throughput.polls_per_s} polls/s |`,
  `| raw GetItem of the same job item, same DynamoDB Local, ${r.poll_throughput.concurrency} clients | ${r.poll_throughput.get_item_per_s} GetItem/s |`,
  `| poll ratio (target ≥ 0.8) | ${r.poll_throughput.ratio} |`,
  `| drafting throughput (${r.drafting.emails} emails, end to end through the queue) | ${r.drafting.emails_per_s} emails/s |`,
  `| approve → sent p50 / p95 | ${r.approve_to_sent.p50_ms} / ${r.approve_to_sent.p95_ms} ms |`,
  `| sequence drafting (${r.sequence_drafting.sequences} × ${r.sequence_drafting.contacts} contacts × ${r.sequence_drafting.steps} steps, accept to pass settled) | ${r.sequence_drafting.emails_per_s} emails/s (${r.sequence_drafting.ms} ms) |`,
  `| sequence of ${r.sequences.drafting.contacts} contacts × ${r.sequences.drafting.steps} steps (bench-sequences.ts): drafting (accept to pass settled) / sending (approve to every step sent, a service day per settle) | ${r.sequences.drafting.emails_per_s} / ${r.sequences.sending.emails_per_s} emails/s |`,
  `| physical reference of that run: sequential raw PutItem / GetItem, same DynamoDB Local | ${r.sequences.reference.put_item_per_s} / ${r.sequences.reference.get_item_per_s} per s |`,
  `| bulk enrichment of ${r.bulk.bulk.items} mixed items, POST → completed / the same as ${r.bulk.single.calls} single calls one after another (bench-bulk.ts) | ${r.bulk.bulk.ms} ms / ${r.bulk.single.ms} ms (ratio ${r.bulk.ratio}) |`,
  `| physical reference of that run: sequential raw GetItem, same DynamoDB Local | ${r.bulk.reference.get_item_per_s} GetItem/s |`,
  `| noisy neighbour (bench-noisy-neighbour.ts): tenant B's p95 alone / beside tenant A at ${r.noisy_neighbour.pressure}× its budgets on every route (ratio, target ≤ 2; B's failed calls beside A) | ${r.noisy_neighbour.b_alone.p95_ms} / ${r.noisy_neighbour.b_noisy.p95_ms} ms (${r.noisy_neighbour.ratio_p95}; ${r.noisy_neighbour.b_noisy.failures} of ${r.noisy_neighbour.b_noisy.samples} failed) |`,
  `| physical reference of that run: B's p50 alone; sequential raw GetItem p50 / p95 before it, same DynamoDB Local | ${r.noisy_neighbour.b_alone.p50_ms} ms; ${r.noisy_neighbour.reference.get_item_p50_ms} / ${r.noisy_neighbour.reference.get_item_p95_ms} ms |`,
  ...r.cost.rows.map((x: any) => `| ${x.operation}, per 1,000 (unit: ${x.unit}; bench-cost.ts, bench-results/cost.md): AWS cost / credits charged / margin at $${r.cost.assumptions.pricePerCreditUsd} a credit | $${x.per1000.total.toFixed(4)} / ${Math.round(x.creditsPer1000).toLocaleString('en-US')} / $${x.marginPer1000.toFixed(2)} |`),
  `| physical reference of that run: ${r.cost.reference.operation}, the cheapest API call, per 1,000 | $${r.cost.reference.per1000.total.toFixed(4)} |`,
  `| sweeper: ${r.sweep.examined} overdue reservations ended (one run) | ${r.sweep.ms} ms (${r.sweep.records_per_s} records/s) |`,
  `| sequential raw GetItem, same DynamoDB Local (reference) | ${r.sweep.sequential_get_item_per_s} GetItem/s |`,
  ...r.agentic.runs.map(
    (x: any) =>
      `| agentic search at ${r.agentic.people.toLocaleString('en-US')} people, POST → completed: "${x.query}" (${x.leads} leads, ${x.leads_with_page_evidence} with page evidence; rungs ${x.rungs.filter((g: any) => g.candidates > 0).map((g: any) => `${g.rung} ${g.leads}/${g.evaluated}`).join(', ') || 'none'}; ${x.charged} credits; ${x.steps} steps, ${x.completion_reason || 'target or ladder reached'}) | ${x.wall_ms} ms (physical reference: ${x.page_requests} page requests × ${r.agentic.reference.raw_page_get_ms} ms raw GET = ${x.reference_ms} ms) |`,
  ),
  `| agentic: sample-web requests per delivered lead (robots.txt included) | ${r.agentic.summary.page_requests_per_lead} |`,
  `| agentic: delivered leads whose every proof point is backed by an evidence item | ${r.agentic.summary.proof_backed_share} |`,
  '',
  quality,
].join('\n');
const callsMd = [
  '| operation | DynamoDB calls in the request | until the workers are idle |',
  '|---|---|---|',
  ...r.dynamodb_calls_per_operation.map(
    (o: { operation: string; request: string[]; until_idle?: string[] }) =>
      `| ${o.operation} | ${o.request.length}${o.request.length ? ` (${byKind(o.request)})` : ''} | ${o.until_idle ? `${o.until_idle.length} (${byKind(o.until_idle)})` : '—'} |`,
  ),
].join('\n');
writeFileSync(join(root, 'bench-results/bench.md'), `${md}\n\n${callsMd}\n`);
console.log(`\n${md}\n\n${callsMd}`);
process.exit(0);
