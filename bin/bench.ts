/**
 * `npm run bench`: measured numbers for the README and issue notes, all on this machine, all on loopback.
 *   tsx bin/bench.ts [--people 100000] [--import-people 20000] [--emails 100]
 *   BENCH_MILLION=1 also measures search at 1,000,000 people (generated for the run, never stored).
 * Writes bench-results/bench.json and bench-results/bench.md.
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
import { documentClient, sqsClient } from '../shared/adapters/aws.js';
import { importDirectory } from '../shared/directory/directory.repository.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({ options: { people: { type: 'string', default: '100000' }, 'import-people': { type: 'string', default: '20000' }, emails: { type: 'string', default: '100' } } });
const results: Record<string, unknown> = { machine: { cores: (await import('node:os')).cpus().length, node: process.version }, at: new Date().toISOString() };
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return Number(s[Math.min(s.length - 1, Math.floor(p * s.length))]!.toFixed(2));
};
const log = (m: string) => console.log(m);

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

// ── 2. The local stack: import, enrichment, calls per operation ──────────────────────────────────────
const dir = mkdtempSync(join(tmpdir(), 'bench-'));
const stack = await startLocalStack({ root, dataDir: null, port: 0, adminToken: 'bench', throttleMultiplier: 100_000, visibilityTimeoutSeconds: 30 });
try {
  const file = join(dir, 'directory.jsonl');
  const importPeople = Number(values['import-people']);
  await writeDirectoryFile(file, { people: importPeople, seed: 42 });
  let t = performance.now();
  await importDirectory(readDirectoryFile(file), { concurrency: 8 });
  const importMs = performance.now() - t;
  results.import = { people: importPeople, ms: Math.round(importMs), people_per_s: Math.round(importPeople / (importMs / 1000)) };
  log(`import: ${JSON.stringify(results.import)}`);
  await startServices({ root, stack, dataDir: null, directory: { file, people: importPeople, seed: 42 } });

  const people: Person[] = [];
  for await (const r of readDirectoryFile(file)) if (r.type === 'person' && r.work_email) people.push(r);

  const admin = { 'x-admin-token': 'bench', 'content-type': 'application/json' };
  const account = (await (await fetch(`${stack.consoleUrl}accounts/`, { method: "POST", headers: admin, body: JSON.stringify({ name: "bench", credits: 10_000_000 }) })).json()) as { id: string };
  const key = ((await (await fetch(`${stack.consoleUrl}accounts/${account.id}/api-keys/`, { method: 'POST', headers: admin })).json()) as { key: string }).key;
  await fetch(`${stack.consoleUrl}accounts/${account.id}/webhook-secrets/`, { method: 'POST', headers: admin });
  await fetch(`${stack.consoleUrl}accounts/${account.id}/sending-accounts/`, { method: 'POST', headers: admin, body: JSON.stringify({ email: 'bench@seller.test', type: 'google', daily_limit: 10_000 }) });
  const api = (method: string, path: string, body?: unknown) =>
    fetch(`${stack.baseUrl}${path}`, { method, headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const settle = () => fetch(`${stack.consoleUrl}dev/settle/`, { method: 'POST', headers: admin });

  // Count AWS calls per operation with SDK middleware (the local gateway's own key check is one of them:
  // API Gateway does that at the edge in AWS).
  const calls: string[] = [];
  const counter = (service: string) => (next: any, ctx: any) => async (args: any) => {
    calls.push(`${service}:${ctx.commandName}`);
    return next(args);
  };
  documentClient().middlewareStack.add(counter('dynamodb') as any, { step: 'initialize', name: 'benchCounter' });
  sqsClient().middlewareStack.add(counter('sqs') as any, { step: 'initialize', name: 'benchCounter' });
  const countCalls = async (fn: () => Promise<unknown>) => {
    calls.length = 0;
    await fn();
    return [...calls];
  };
  const createCalls = await countCalls(() => api('POST', 'search/', { query: 'software engineers in Germany', max_results: 25, webhook_url: 'http://127.0.0.1:9/hook' }));
  await settle();
  const job = (await (await api('POST', 'search/', { query: 'product managers', max_results: 25, webhook_url: 'http://127.0.0.1:9/hook' })).json()) as { id: string };
  await settle();
  const pollCalls = await countCalls(() => api('GET', `search/${job.id}/`));
  const enrichCalls = await countCalls(() => api('POST', 'enrich/email/', { professional_url: people[0]!.professional_url }));
  const summarize = (xs: string[]) => ({ total: xs.length, calls: xs });
  results.calls_per_operation = {
    note: 'includes 3 auth reads: the local gateway key check (API Gateway in AWS), the handler key lookup and the account read',
    create_people_search: summarize(createCalls),
    poll_people_search: summarize(pollCalls),
    enrich_email: summarize(enrichCalls),
  };
  log(`calls: create ${createCalls.join(',')} | poll ${pollCalls.join(',')} | enrich ${enrichCalls.join(',')}`);

  const lookups: number[] = [];
  for (let i = 0; i < 200; i++) {
    const p = people[(i * 37) % people.length]!;
    const s = performance.now();
    const r = await api('POST', 'enrich/email/', { professional_url: p.professional_url });
    await r.arrayBuffer();
    lookups.push(performance.now() - s);
  }
  results.enrichment_http = { calls: lookups.length, p50_ms: pct(lookups, 0.5), p95_ms: pct(lookups, 0.95) };
  log(`enrichment over HTTP: ${JSON.stringify(results.enrichment_http)}`);

  // ── 3. Outreach: drafting throughput and approve → sent latency ──────────────────────────────────
  const n = Number(values.emails);
  t = performance.now();
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const r = (await (await api('POST', 'emails/', { to: { email: `bench${i}@prospect.test`, first_name: 'Alex', company_name: 'Acme' }, instructions: 'Short: introduce our analytics platform and ask for a 15-minute call.' })).json()) as { id: string };
    ids.push(r.id);
  }
  await settle();
  const draftMs = performance.now() - t;
  results.drafting = { emails: n, ms: Math.round(draftMs), emails_per_s: Number((n / (draftMs / 1000)).toFixed(1)) };
  log(`drafting: ${JSON.stringify(results.drafting)}`);
  const latencies: number[] = [];
  for (const id of ids.slice(0, 20)) {
    const s = performance.now();
    await api('POST', `emails/${id}/approve/`, { schedule: 'now' });
    for (;;) {
      const e = (await (await api('GET', `emails/${id}/`)).json()) as { status: string };
      if (e.status === 'sent' || e.status === 'failed') break;
      await new Promise((r) => setTimeout(r, 5));
    }
    latencies.push(performance.now() - s);
  }
  results.approve_to_sent = { emails: latencies.length, p50_ms: pct(latencies, 0.5), p95_ms: pct(latencies, 0.95) };
  log(`approve→sent: ${JSON.stringify(results.approve_to_sent)}`);
} finally {
  await stack.stop();
  rmSync(dir, { recursive: true, force: true });
}

mkdirSync(join(root, 'bench-results'), { recursive: true });
writeFileSync(join(root, 'bench-results/bench.json'), JSON.stringify(results, null, 2));
const r = results as any;
const sizeRow = (x: any) =>
  `| search at ${x.people.toLocaleString('en-US')} people: generation / index build / heap used (index alone) | ${x.generate_ms} ms / ${x.index_build_ms} ms / ${x.heap_used_mb} MB (${x.heap_index_mb} MB) |\n` +
  `| search p50 / p95 / p99 / max (${x.queries} evaluation queries × ${x.samples / x.queries} rounds, in-process, 100 leads) | ${x.p50_ms} / ${x.p95_ms} / ${x.p99_ms} / ${x.max_ms} ms |`;
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
  `| directory import into DynamoDB Local (${r.import.people} people) | ${r.import.ms} ms (${r.import.people_per_s}/s) |`,
  `| email enrichment over HTTP p50 / p95 | ${r.enrichment_http.p50_ms} / ${r.enrichment_http.p95_ms} ms |`,
  `| create people search: AWS calls | ${r.calls_per_operation.create_people_search.total} (${r.calls_per_operation.create_people_search.calls.join(', ')}) |`,
  `| poll people search: AWS calls | ${r.calls_per_operation.poll_people_search.total} (${r.calls_per_operation.poll_people_search.calls.join(', ')}) |`,
  `| email enrichment: AWS calls | ${r.calls_per_operation.enrich_email.total} (${r.calls_per_operation.enrich_email.calls.join(', ')}) |`,
  `| drafting throughput (${r.drafting.emails} emails, end to end through the queue) | ${r.drafting.emails_per_s} emails/s |`,
  `| approve → sent p50 / p95 | ${r.approve_to_sent.p50_ms} / ${r.approve_to_sent.p95_ms} ms |`,
  '',
  quality,
].join('\n');
writeFileSync(join(root, 'bench-results/bench.md'), `${md}\n`);
console.log(`\n${md}`);
process.exit(0);
