/**
 * `npx tsx bin/bench-cost.ts [--people 5000] [--contacts 100] [--steps 3] [--price-per-credit 0.01]
 * [--monthly-search-jobs 100000]`: the AWS cost per 1,000 operations, from what each operation really consumed
 * on the twin (all on loopback), beside the credits it is charged and the margin at a price per credit.
 *
 * Measured per operation, between two idle points of the stack (`stack.settle()`):
 * - DynamoDB capacity units: every SDK client the service makes gets a middleware (the twin's own client hook,
 *   `onClientCreated`, in this process only) asking `ReturnConsumedCapacity: 'TOTAL'` and summing what
 *   DynamoDB Local answers; a failed conditional write, which reports none, counts one write unit;
 * - Lambda: every invocation's duration (the twin's optional recorder, shared/local/function-context.ts) at the
 *   function's deployed memory (shared/catalog/queues.ts; 512 MB otherwise), rounded up to the millisecond;
 * - SQS requests: the service's sends (per 64 KB chunk) and calls, plus the event-source mappings' non-empty
 *   receives and batch deletes (empty long polls are a fixed cost: docs/benchmarks.md#cost-per-operation);
 * - EventBridge Scheduler invocations (each schedule the stand-in fires), SES emails (per recipient), Bedrock
 *   tokens (the Converse answers' `usage`), S3 and Secrets Manager calls, REST API calls the client made;
 * - log bytes: what the functions write to stdout/stderr while measured (swallowed, not printed).
 * The default stack drafts with the built-in composer (no Bedrock): the Bedrock rows add the tokens the
 * Bedrock drafter would send and receive for the very same drafts (its request built by `BedrockDrafter`,
 * the answer being the draft written), at 4 characters a token.
 * The arithmetic is bin/cost/cost-model.ts; the prices bin/cost/aws-prices.ts. Prints one JSON line last (read
 * by bin/bench.ts) and writes bench-results/cost.json and bench-results/cost.md.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { onClientCreated, type AwsClient } from '../shared/adapters/aws-client.js';
import { startLocalStack } from '../shared/local/stack.js';
import { startServices } from '../shared/local/services.js';
import { currentFunction, recordInvocations } from '../shared/local/function-context.js';
import { withFailureMarker } from '../shared/local/failing-drafter.js';
import { sweepAsSweeper } from '../shared/local/dev-controls.js';
import { decorateDrafters, type Drafter } from '../shared/outreach/drafter.js';
import { BedrockDrafter } from '../shared/outreach/bedrock-drafter.js';
import { advanceServiceClock } from '../shared/core/clock.js';
import { readDirectoryFile } from '../shared/directory/file.js';
import type { Person } from '../shared/directory/types.js';
import { PRICES } from '../shared/accounts/prices.js';
import { publicApiClient } from '../shared/contract/client.js';
import { AWS_PRICES, PRICED_AT, PRICE_REGION } from './cost/aws-prices.js';
import { addInvocation, combine, costRow, dearest, DEFAULT_ASSUMPTIONS, emptyConsumption, functionMemoryMb, gbSeconds, lambdaInvocations, type Component, type Consumption, type CostLine, type CostRow } from './cost/cost-model.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    people: { type: 'string', default: '5000' },
    contacts: { type: 'string', default: '100' },
    steps: { type: 'string', default: '3' },
    'price-per-credit': { type: 'string', default: String(DEFAULT_ASSUMPTIONS.pricePerCreditUsd) },
    'monthly-search-jobs': { type: 'string', default: String(DEFAULT_ASSUMPTIONS.openSearch.monthlySearchJobs) },
  },
});
const assumptions = { ...DEFAULT_ASSUMPTIONS, pricePerCreditUsd: Number(values['price-per-credit']), openSearch: { ...DEFAULT_ASSUMPTIONS.openSearch, monthlySearchJobs: Number(values['monthly-search-jobs']) } };
const CONTACTS = Number(values.contacts);
const STEPS = Number(values.steps);
const BEDROCK_MODEL = 'us.anthropic.claude-haiku-4-5-20251001-v1:0';
const log = (m: string) => process.stderr.write(`${m}\n`);
const started = performance.now();

// ── What the operations consume: running totals, read as differences around each operation ────────────────
const totals = emptyConsumption();
/** Tokens the Bedrock drafter would have used for the drafts the composer wrote (the Bedrock rows). */
const projected = { inputTokens: 0, outputTokens: 0 };
const info = { dynamodbCalls: {} as Record<string, number>, schedulesCreated: 0, schedulesDeleted: 0, emptyReceives: 0 };
const tokensOf = (chars: number) => Math.ceil(chars / 4);
/** DynamoDB units by the function that spent them (the twin's invocation context), to say where an operation's go. */
type ByFunction = Record<string, { readUnits: number; writeUnits: number; calls: number }>;
const byFunction: ByFunction = {};
const byFunctionDiff = (a: ByFunction, b: ByFunction): ByFunction => {
  const d: ByFunction = {};
  for (const [name, x] of Object.entries(a)) {
    const y = b[name] ?? { readUnits: 0, writeUnits: 0, calls: 0 };
    if (x.calls !== y.calls) d[name] = { readUnits: x.readUnits - y.readUnits, writeUnits: x.writeUnits - y.writeUnits, calls: x.calls - y.calls };
  }
  return d;
};

type Stack = { add(mw: (next: (args: any) => Promise<any>, context: { clientName?: string; commandName?: string }) => (args: any) => Promise<any>, options: { step: 'initialize'; name: string }): void };
const READS = new Set(['GetItem', 'BatchGetItem', 'Query', 'Scan', 'TransactGetItems']);
const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems']);
const unitsOf = (out: { ConsumedCapacity?: { CapacityUnits?: number } | { CapacityUnits?: number }[] }) => [out.ConsumedCapacity ?? []].flat().reduce((n, c) => n + (c.CapacityUnits ?? 0), 0);
const chunks = (bytes: number) => Math.max(1, Math.ceil(bytes / 65_536));

/** Every client the service makes (`lazyClient`), from the stack's start on. */
onClientCreated((client: AwsClient) => {
  (client as unknown as { middlewareStack: Stack }).middlewareStack.add(
    (next, context) => async (args) => {
      const service = context.clientName ?? '';
      const command = (context.commandName ?? '').replace(/Command$/, '');
      const input = args.input as Record<string, any>;
      if (service === 'DynamoDBClient' && (READS.has(command) || WRITES.has(command))) {
        input.ReturnConsumedCapacity = 'TOTAL';
        info.dynamodbCalls[command] = (info.dynamodbCalls[command] ?? 0) + 1;
        totals.dynamodb.calls += 1;
        try {
          const out = await next(args);
          const units = unitsOf(out.output);
          const f = (byFunction[currentFunction() ?? '(no function: the twin or the bench)'] ??= { readUnits: 0, writeUnits: 0, calls: 0 });
          f.calls += 1;
          if (READS.has(command)) {
            totals.dynamodb.readUnits += units;
            f.readUnits += units;
          } else {
            totals.dynamodb.writeUnits += units;
            f.writeUnits += units;
          }
          return out;
        } catch (e) {
          if (WRITES.has(command) && /ConditionalCheckFailed|TransactionCanceled/.test((e as Error).name)) totals.dynamodb.failedWrites += 1;
          throw e;
        }
      }
      if (service === 'SQSClient') {
        if (command === 'SendMessage') totals.sqsRequests += chunks(Buffer.byteLength(String(input.MessageBody ?? '')));
        else if (command === 'SendMessageBatch') totals.sqsRequests += chunks((input.Entries ?? []).reduce((n: number, e: { MessageBody?: string }) => n + Buffer.byteLength(e.MessageBody ?? ''), 0));
        else totals.sqsRequests += 1;
      }
      if (service === 'SchedulerClient') {
        if (command === 'CreateSchedule') info.schedulesCreated += 1;
        if (command === 'DeleteSchedule') info.schedulesDeleted += 1;
      }
      if (service === 'SESv2Client' && command === 'SendEmail') {
        const d = input.Destination ?? {};
        totals.sesEmails += Math.max(1, (d.ToAddresses?.length ?? 0) + (d.CcAddresses?.length ?? 0) + (d.BccAddresses?.length ?? 0));
      }
      if (service === 'S3Client') {
        if (command === 'GetObject' || command === 'HeadObject') totals.s3.gets += 1;
        else if (command !== 'DeleteObject') totals.s3.puts += 1;
      }
      if (service === 'SecretsManagerClient') totals.secretsManagerCalls += 1;
      const out = await next(args);
      if (service === 'BedrockRuntimeClient') {
        const usage = (out.output as { usage?: { inputTokens?: number; outputTokens?: number } }).usage;
        totals.bedrock.inputTokens += usage?.inputTokens ?? 0;
        totals.bedrock.outputTokens += usage?.outputTokens ?? 0;
      }
      return out;
    },
    { step: 'initialize', name: 'benchCost' },
  );
});

// Lambda: each invocation at its function's deployed memory.
recordInvocations((r) => addInvocation(totals, r.name, functionMemoryMb(r.name), r.ms));

// Logs: while an operation is measured, what the process writes is the functions' logging: counted, not shown.
let measuring = false;
for (const stream of [process.stdout, process.stderr]) {
  const write = stream.write.bind(stream) as (...a: unknown[]) => boolean;
  stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    if (!measuring) return write(chunk, ...rest);
    totals.logBytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.byteLength;
    const cb = rest.find((x) => typeof x === 'function') as (() => void) | undefined;
    cb?.();
    return true;
  }) as typeof stream.write;
}

// ── The twin ───────────────────────────────────────────────────────────────────────────────────────────
const dir = mkdtempSync(join(tmpdir(), 'bench-cost-'));
const file = join(dir, 'directory.jsonl');
// As in AWS, enrichment and research read the directory table (the twin's default is the in-memory store).
process.env.DIRECTORY_STORE = 'dynamodb';
const hooks = createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(200).end());
});
await new Promise<void>((r) => hooks.listen(0, '127.0.0.1', r));
const webhookUrl = `http://127.0.0.1:${(hooks.address() as AddressInfo).port}/hook`;
const stack = await startLocalStack({ root, dataDir: null, port: 0, adminToken: 'bench', throttleMultiplier: 100_000, visibilityTimeoutSeconds: 60, mailboxPollSeconds: 0 });
const out: Record<string, unknown> = { at: new Date().toISOString(), machine: { cores: cpus().length, load_before: loadavg().map((l) => Number(l.toFixed(2))) } };
try {
  // The event-source mappings and the Scheduler stand-in share the stack's own SQS client.
  (stack.sqs as unknown as { middlewareStack: Stack }).middlewareStack.add(
    (next, context) => async (args) => {
      const res = await next(args);
      const command = (context.commandName ?? '').replace(/Command$/, '');
      if (command === 'ReceiveMessage') {
        if ((res.output as { Messages?: unknown[] }).Messages?.length) totals.sqsRequests += 1;
        else info.emptyReceives += 1;
      }
      if (command === 'DeleteMessageBatch') totals.sqsRequests += 1;
      // A schedule fired into its queue: one Scheduler invocation, and the SendMessage it makes.
      if (command === 'SendMessage') {
        totals.schedulerInvocations += 1;
        totals.sqsRequests += chunks(Buffer.byteLength(String((args.input as { MessageBody?: string }).MessageBody ?? '')));
      }
      return res;
    },
    { step: 'initialize', name: 'benchCostRunner' },
  );
  let t = performance.now();
  await startServices({ root, stack, dataDir: null, directory: { file, people: Number(values.people), seed: 42 } });
  log(`directory of ${values.people} people generated, indexed and imported into DynamoDB Local in ${Math.round(performance.now() - t)} ms`);
  // The Bedrock rows: what the Bedrock drafter would send for each draft the composer writes.
  const sizer = new BedrockDrafter({ modelId: BEDROCK_MODEL, send: async () => ({}) });
  const projecting = (inner: Drafter): Drafter => ({
    async draft(input) {
      const draft = await inner.draft(input);
      const request = sizer.request(input);
      const sent = (request.system ?? []).reduce((n, s) => n + s.text.length, 0) + request.messages.reduce((n, m) => n + m.content.reduce((k, c) => k + (c.text ?? '').length, 0), 0);
      projected.inputTokens += tokensOf(sent);
      projected.outputTokens += tokensOf(JSON.stringify({ subject: draft.subject, body_plain: draft.body_plain }).length);
      return draft;
    },
  });
  decorateDrafters((d) => withFailureMarker(projecting(d)));

  const admin = { 'x-admin-token': 'bench', 'content-type': 'application/json' };
  const consoleCall = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${stack.consoleUrl}${path}`, { method, headers: admin, body: body === undefined ? undefined : JSON.stringify(body) });
    if (!res.ok) throw new Error(`console ${method} ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as any;
  };
  const account = await consoleCall('POST', 'accounts/', { name: 'bench cost', credits: 10_000_000, agentic_search: true });
  const key = (await consoleCall('POST', `accounts/${account.id}/api-keys/`)).key as string;
  await consoleCall('POST', `accounts/${account.id}/webhook-secrets/`);
  // Warm-up ramps started long ago: the daily limits, not the ramps, bound what is sent.
  const warm = '2024-01-01T00:00:00.000Z';
  const sesSender = await consoleCall('POST', `accounts/${account.id}/sending-accounts/`, { email: 'bench@seller.test', type: 'smtp', transport: 'ses', daily_limit: 10_000, warmup_started_at: warm });
  const gmailSender = await consoleCall('POST', `accounts/${account.id}/sending-accounts/`, { email: 'bench.gmail@seller.test', type: 'google', daily_limit: 10_000, warmup_started_at: warm });
  const api = publicApiClient(new URL(stack.baseUrl).origin, key, (input, init) => {
    totals.apiRequests += 1;
    return fetch(input, init);
  });
  const ok = <T>(r: { data?: T; error?: unknown; response: Response }, status: number, what: string): T => {
    if (r.response.status !== status) throw new Error(`${what}: ${r.response.status} ${JSON.stringify(r.error)}`);
    return r.data as T;
  };
  const people: Person[] = [];
  for await (const r of readDirectoryFile(file)) if (r.type === 'person' && r.work_email) people.push(r);
  const withPhone = people.filter((p) => p.phone);

  /**
   * The bench's own checks (is every step sent yet?) read what a client need not: what they consume is taken
   * out of the operation they check (the stack is idle around them).
   */
  let excluded = emptyConsumption();
  let excludedByFunction: ByFunction = {};
  const uncounted = async <T>(check: () => Promise<T>): Promise<T> => {
    const before = structuredClone(totals);
    const beforeByFunction = structuredClone(byFunction);
    const value = await check();
    excluded = combine(excluded, combine(structuredClone(totals), before, -1));
    for (const [name, d] of Object.entries(byFunctionDiff(byFunction, beforeByFunction))) {
      const e = (excludedByFunction[name] ??= { readUnits: 0, writeUnits: 0, calls: 0 });
      e.readUnits += d.readUnits;
      e.writeUnits += d.writeUnits;
      e.calls += d.calls;
    }
    return value;
  };
  /** What a job was charged (the console's charges, read by the bench: not counted). */
  const chargeOf = (reference: string) =>
    uncounted(async () => ((await consoleCall('GET', `accounts/${account.id}/charges/`)).results as { reference: string; charged: number }[]).find((c) => c.reference === reference)?.charged ?? 0);
  /** The consumption of `run`, from an idle stack to an idle stack (its polls included, the bench's checks not). */
  const measure = async <T>(name: string, run: () => Promise<T>): Promise<{ consumption: Consumption; bedrock: typeof projected; byFunction: ByFunction; value: T; ms: number }> => {
    await stack.settle();
    const before = structuredClone(totals);
    const excludedBefore = structuredClone(excluded);
    const byFunctionBefore = structuredClone(byFunction);
    const excludedByFunctionBefore = structuredClone(excludedByFunction);
    const projectedBefore = { ...projected };
    const t0 = performance.now();
    measuring = true;
    let value: T;
    try {
      value = await run();
      await stack.settle();
    } finally {
      measuring = false;
    }
    const ms = Math.round(performance.now() - t0);
    const consumption = combine(combine(structuredClone(totals), before, -1), combine(excluded, excludedBefore, -1), -1);
    const spent = byFunctionDiff(byFunction, byFunctionBefore);
    for (const [fn, x] of Object.entries(byFunctionDiff(excludedByFunction, excludedByFunctionBefore))) {
      const f = spent[fn]!;
      f.readUnits -= x.readUnits;
      f.writeUnits -= x.writeUnits;
      f.calls -= x.calls;
      if (f.calls === 0) delete spent[fn];
    }
    log(`${name}: ${ms} ms, ${consumption.dynamodb.calls} DynamoDB calls, ${lambdaInvocations(consumption)} invocations`);
    return { consumption, byFunction: spent, bedrock: { inputTokens: projected.inputTokens - projectedBefore.inputTokens, outputTokens: projected.outputTokens - projectedBefore.outputTokens }, value, ms };
  };
  /** Poll a job (one GET after the stack is idle, as a client polling every 30–60 s would) until it has ended. */
  const untilEnded = async (get: () => Promise<{ status: string }>) => {
    for (let i = 0; i < 120; i++) {
      const job = await get();
      if (!['pending', 'running', 'queued', 'processing'].includes(job.status)) return job;
      await stack.settle();
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('a job did not end');
  };
  const lines: CostLine[] = [];
  const timings: Record<string, number> = {};
  const spentBy: Record<string, ByFunction> = {};
  type Measured = { consumption: Consumption; ms: number; byFunction?: ByFunction };
  const line = (operation: string, unit: string, operations: number, m: Measured, creditsPerOperation: number, searchJobsPerOperation = 0) => {
    lines.push({ operation, unit, operations, consumption: m.consumption, creditsPerOperation, searchJobsPerOperation });
    timings[operation] = m.ms;
    if (m.byFunction) spentBy[operation] = m.byFunction;
  };
  const withBedrock = (m: Measured & { bedrock: typeof projected }) => ({ ...m, consumption: combine(m.consumption, { ...emptyConsumption(), bedrock: m.bedrock }) });

  // ── People search: three jobs of up to 25 leads; the unit is the lead ───────────────────────────────
  const SEARCHES = ['product managers', 'software engineers in Germany', 'sales directors in the United States'];
  const search = await measure('people search', async () => {
    let leads = 0;
    for (const query of SEARCHES) {
      const job = ok(await api.POST('/api/public/v1/search/', { body: { query, max_results: 25, webhook_url: webhookUrl } }), 202, 'search') as { id: string };
      await stack.settle();
      const done = (await untilEnded(async () => ok(await api.GET('/api/public/v1/search/{job_id}/', { params: { path: { job_id: job.id } } }), 200, 'poll search') as any)) as unknown as { leads_returned: number };
      leads += done.leads_returned;
    }
    return leads;
  });
  line('people search', 'lead', search.value, search, PRICES.people_search_per_lead, SEARCHES.length / search.value);

  // ── Enrichment: the synchronous three, 20 calls each; phone, 5 jobs of people with a phone ─────────────
  const N_SYNC = 20;
  const pick = (i: number) => people[(i * 37 + 11) % people.length]!;
  const email = await measure('email enrichment', async () => {
    for (let i = 0; i < N_SYNC; i++) ok(await api.POST('/api/public/v1/enrich/email/', { body: { professional_url: pick(i).professional_url } }), 200, 'enrich email');
  });
  line('email enrichment', 'call', N_SYNC, email, PRICES.email_enrich);
  const url = await measure('professional-URL enrichment', async () => {
    for (let i = 0; i < N_SYNC; i++) ok(await api.POST('/api/public/v1/enrich/professional-url/', { body: { email: pick(i + 100).work_email! } }), 200, 'enrich url');
  });
  line('professional-URL enrichment', 'call', N_SYNC, url, PRICES.professional_url_enrich);
  const profile = await measure('profile enrichment', async () => {
    for (let i = 0; i < N_SYNC; i++) ok(await api.POST('/api/public/v1/enrich/professional-profile/', { body: { professional_url: pick(i + 200).professional_url } }), 200, 'enrich profile');
  });
  line('professional-profile enrichment', 'call', N_SYNC, profile, PRICES.professional_profile_enrich);
  const N_PHONE = 5;
  const phone = await measure('phone enrichment', async () => {
    let charged = 0;
    for (let i = 0; i < N_PHONE; i++) {
      const job = ok(await api.POST('/api/public/v1/enrich/phone/', { body: { professional_url: withPhone[(i * 53) % withPhone.length]!.professional_url, webhook_url: webhookUrl } }), 202, 'enrich phone') as { id: string };
      await stack.settle();
      await untilEnded(async () => ok(await api.GET('/api/public/v1/enrich/phone/{job_id}/', { params: { path: { job_id: job.id } } }), 200, 'poll phone') as any);
      charged += await chargeOf(job.id);
    }
    return charged;
  });
  line('phone enrichment (a hit)', 'job', N_PHONE, phone, phone.value / N_PHONE);

  // ── Deep search (standard) and agentic search ───────────────────────────────────────────────────────
  const N_DEEP = 2;
  const deep = await measure('deep search', async () => {
    for (const query of ['product managers in the United States', 'engineering managers in Germany'].slice(0, N_DEEP)) {
      const job = ok(await api.POST('/api/public/v1/deep-search/', { body: { query, mode: 'standard', webhook_url: webhookUrl } }), 202, 'deep search') as { id: string };
      await stack.settle();
      const done = (await untilEnded(async () => ok(await api.GET('/api/public/v1/deep-search/{job_id}/', { params: { path: { job_id: job.id } } }), 200, 'poll deep') as any)) as { status: string };
      if (done.status !== 'completed') throw new Error(`deep search ended ${done.status}`);
    }
  });
  line('deep search (standard)', 'run', N_DEEP, deep, PRICES.deep_search.standard, 1);
  // Two that reach the target on a directory of this size, one that finds few (docs/agentic-research.md personas).
  const PERSONAS = ['Software engineers at companies that use Python', 'Product managers in the United States at companies that are hiring', 'Engineering managers in San Francisco with a team of 8+. Ideally they use Kubernetes.'];
  const agentic = await measure('agentic search', async () => {
    const runs: { leads: number; charged: number }[] = [];
    for (const query of PERSONAS) {
      const job = ok(await api.POST('/api/public/v1/agentic-search/', { body: { query, target_results: 10, max_credits: 500, webhook_url: webhookUrl } }), 202, 'agentic') as { id: string };
      await stack.settle();
      const done = (await untilEnded(async () => ok(await api.GET('/api/public/v1/agentic-search/{job_id}/', { params: { path: { job_id: job.id } } }), 200, 'poll agentic') as any)) as unknown as { status: string; result?: { results?: unknown[] } };
      if (done.status !== 'completed') throw new Error(`agentic search ended ${done.status}`);
      runs.push({ leads: done.result?.results?.length ?? 0, charged: await chargeOf(job.id) });
    }
    return runs;
  });
  const agenticCredits = agentic.value.reduce((n, r) => n + r.charged, 0) / agentic.value.length;
  line(`agentic search (target 10; ${agentic.value.map((r) => `${r.leads} leads`).join(', ')})`, 'run', agentic.value.length, agentic, agenticCredits, 1);

  // ── Outreach: 10 drafted emails from each sender; then each sent (approve, now) ───────────────────────
  const N_EMAILS = 10;
  const instructions = 'Short: introduce our analytics platform and ask for a 15-minute call.';
  const draftFrom = (from: string, tag: string) =>
    measure(`drafted emails (${tag})`, async () => {
      const ids: string[] = [];
      for (let i = 0; i < N_EMAILS; i++) {
        const p = people[(i * 91 + 7) % people.length]!;
        const created = ok(await api.POST('/api/public/v1/emails/', { body: { to: { email: `cost.${tag}.${i}@prospect.test`, first_name: p.first_name, company_name: 'Acme' }, from_account: from, instructions } }), 202, 'create email') as { id: string };
        ids.push(created.id);
      }
      await stack.settle();
      await uncounted(async () => {
        for (const id of ids) if ((ok(await api.GET('/api/public/v1/emails/{id}/', { params: { path: { id } } }), 200, 'get email') as { status: string }).status !== 'pending_review') throw new Error(`${tag}: ${id} not drafted`);
      });
      return ids;
    });
  const sendAll = (ids: string[], tag: string) =>
    measure(`sent emails (${tag})`, async () => {
      for (const id of ids) ok(await api.POST('/api/public/v1/emails/{id}/approve/', { params: { path: { id } }, body: { schedule: 'now' } }), 200, 'approve');
      await stack.settle();
      let sent = 0;
      await uncounted(async () => {
        for (const id of ids) if ((ok(await api.GET('/api/public/v1/emails/{id}/', { params: { path: { id } } }), 200, 'get email') as { status: string }).status === 'sent') sent++;
      });
      if (sent !== ids.length) throw new Error(`${tag}: ${sent} of ${ids.length} sent`);
    });
  const draftedSes = await draftFrom(sesSender.id, 'ses');
  // The physical reference: the cheapest API call there is, a read (GET /emails/{id}/), through the same meters.
  const reads = await measure('reference reads', async () => {
    for (let i = 0; i < 2 * N_EMAILS; i++) ok(await api.GET('/api/public/v1/emails/{id}/', { params: { path: { id: draftedSes.value[i % N_EMAILS]! } } }), 200, 'get email');
  });
  const reference = costRow({ operation: 'a read (GET /emails/{id}/)', unit: 'call', operations: 2 * N_EMAILS, consumption: reads.consumption, creditsPerOperation: 0, searchJobsPerOperation: 0 }, AWS_PRICES, assumptions);
  const sentSes = await sendAll(draftedSes.value, 'ses');
  const draftedGmail = await draftFrom(gmailSender.id, 'gmail');
  const sentGmail = await sendAll(draftedGmail.value, 'gmail');
  const drafted = { ms: draftedSes.ms + draftedGmail.ms, consumption: combine(draftedSes.consumption, draftedGmail.consumption), bedrock: { inputTokens: draftedSes.bedrock.inputTokens + draftedGmail.bedrock.inputTokens, outputTokens: draftedSes.bedrock.outputTokens + draftedGmail.bedrock.outputTokens } };
  line('drafted email (built-in composer)', 'email', 2 * N_EMAILS, drafted, PRICES.outreach_email);
  line(`drafted email (Bedrock, Claude Haiku 4.5)`, 'email', 2 * N_EMAILS, withBedrock(drafted), PRICES.outreach_email);
  line('sent email (SES)', 'email', N_EMAILS, sentSes, 0);
  line('sent email (connected Gmail mailbox)', 'email', N_EMAILS, sentGmail, 0);
  line('outreach email drafted and sent (composer, SES)', 'email', N_EMAILS, { ms: draftedSes.ms + sentSes.ms, consumption: combine(draftedSes.consumption, sentSes.consumption) }, PRICES.outreach_email);

  // ── A sequence of CONTACTS × STEPS: drafted, approved, every step sent (the clock moved a day at a time) ──
  const sequence = await measure(`sequence ${CONTACTS} × ${STEPS}`, async () => {
    const contacts = Array.from({ length: CONTACTS }, (_, i) => ({ email: `cost.seq.${i}@prospect.test`, first_name: people[i % people.length]!.first_name, company_name: 'Acme' }));
    const created = ok(await api.POST('/api/public/v1/sequences/', { body: { contacts, steps: STEPS, instructions } }), 202, 'sequence') as { id: string; contacts_accepted: number };
    if (created.contacts_accepted !== CONTACTS) throw new Error(`sequence: ${created.contacts_accepted} of ${CONTACTS} accepted`);
    const read = (cursor?: string) => uncounted(async () => ok(await api.GET('/api/public/v1/sequences/{id}/', { params: { path: { id: created.id }, query: cursor ? { cursor } : {} } }), 200, 'get sequence') as any);
    for (let i = 0; i < 60 && (await read()).status === 'drafting'; i++) await stack.settle();
    ok(await api.POST('/api/public/v1/sequences/{id}/approve/', { params: { path: { id: created.id } } }), 200, 'approve sequence');
    let days = 0;
    await stack.settle();
    for (; days < 40 && (await read()).status !== 'completed'; days++) {
      // As dev/clock/ does: the clock moves a day, what fell due fires, the sweeper runs once.
      advanceServiceClock(86_400);
      await stack.scheduler.fireDue();
      await sweepAsSweeper();
      await stack.settle();
    }
    // Every step of every enrollment, through the pages of enrollments.
    let sent = 0;
    for (let page = await read(); ; page = await read(page.next_cursor)) {
      sent += page.enrollments.reduce((n: number, e: any) => n + e.emails.filter((m: any) => m.status === 'sent').length, 0);
      if (!page.next_cursor) break;
    }
    if (sent !== CONTACTS * STEPS) throw new Error(`sequence: ${sent} of ${CONTACTS * STEPS} sent after ${days} days`);
    return { days };
  });
  const sequenceName = `sequence of ${CONTACTS} contacts × ${STEPS} steps, drafted and sent (Gmail; ${sequence.value.days} service days)`;
  line(sequenceName, 'sequence', 1, sequence, PRICES.sequence_per_draft * CONTACTS * STEPS);
  line(`sequence of ${CONTACTS} × ${STEPS} with Bedrock (Claude Haiku 4.5) drafts`, 'sequence', 1, withBedrock(sequence), PRICES.sequence_per_draft * CONTACTS * STEPS);

  // ── Dollars ────────────────────────────────────────────────────────────────────────────────────────────
  const rows = lines.map((l) => costRow(l, AWS_PRICES, assumptions));
  // The default stack drafts without Bedrock: its dearest rows, then with the Bedrock rows too.
  const worst = dearest(rows.filter((r) => !r.operation.includes('Bedrock')));
  const worstWithBedrock = dearest(rows);
  out.prices = { priced_at: PRICED_AT, region: PRICE_REGION, lines: AWS_PRICES };
  out.assumptions = assumptions;
  out.people = Number(values.people);
  out.rows = rows.map((r, i) => ({ ...r, ms: timings[r.operation], consumption_per_operation: perOperation(lines[i]!), consumption: lines[i]!.consumption, dynamodb_units_by_function: spentBy[r.operation] ?? null }));
  out.reference = { operation: reference.operation, per1000: reference.per1000, consumption_per_operation: perOperation({ operation: reference.operation, unit: 'call', operations: reference.operations, consumption: reads.consumption, creditsPerOperation: 0, searchJobsPerOperation: 0 }) };
  out.dearest = {
    per_operation: worst.perOperation.operation,
    per_revenue: worst.perRevenue?.operation ?? null,
    with_bedrock: { per_operation: worstWithBedrock.perOperation.operation, per_revenue: worstWithBedrock.perRevenue?.operation ?? null },
  };
  out.info = { ...info, wall_ms: Math.round(performance.now() - started) };
  (out.machine as Record<string, unknown>).load_after = loadavg().map((l) => Number(l.toFixed(2)));
  const md = markdown(rows, lines, worst, worstWithBedrock, spentBy, reference);
  mkdirSync(join(root, 'bench-results'), { recursive: true });
  writeFileSync(join(root, 'bench-results/cost.json'), JSON.stringify(out, null, 2));
  writeFileSync(join(root, 'bench-results/cost.md'), `${md}\n`);
  log(`\n${md}\n`);
} finally {
  await stack.stop();
  hooks.close();
  rmSync(dir, { recursive: true, force: true });
}
console.log(JSON.stringify(out));
process.exit(0);

/** One operation's consumption, for the table beside the dollars. */
function perOperation(l: CostLine) {
  const c = l.consumption;
  const k = 1 / l.operations;
  const round = (x: number, d = 2) => Number((x * k).toFixed(d));
  return {
    rru: round(c.dynamodb.readUnits),
    wru: round(c.dynamodb.writeUnits + c.dynamodb.failedWrites),
    dynamodb_calls: round(c.dynamodb.calls, 1),
    lambda_invocations: round(lambdaInvocations(c), 2),
    lambda_gb_s: round(gbSeconds(c), 4),
    api_requests: round(c.apiRequests, 2),
    sqs_requests: round(c.sqsRequests, 2),
    scheduler_invocations: round(c.schedulerInvocations, 2),
    ses_emails: round(c.sesEmails, 2),
    bedrock_tokens: { input: round(c.bedrock.inputTokens, 0), output: round(c.bedrock.outputTokens, 0) },
    log_kb: round(c.logBytes / 1024, 2),
    by_function: Object.fromEntries(Object.entries(c.lambda).map(([name, f]) => [name, { memory_mb: f.memoryMb, invocations: round(f.invocations, 2), billed_ms: round(f.billedMs, 1) }])),
  };
}


function usd(x: number): string {
  const a = Math.abs(x);
  const s = a >= 100 ? a.toFixed(0) : a >= 1 ? a.toFixed(2) : a >= 0.01 ? a.toFixed(3) : a.toFixed(4);
  return `${x < 0 ? '−' : ''}$${s}`;
}

function markdown(rows: CostRow[], lines: CostLine[], worst: ReturnType<typeof dearest>, worstWithBedrock: ReturnType<typeof dearest>, spentBy: Record<string, ByFunction>, reference: CostRow): string {
  const LABEL: Record<Component, string> = {
    dynamodb: 'DynamoDB',
    lambdaCompute: 'Lambda GB-s',
    lambdaRequests: 'Lambda requests',
    apiGateway: 'API Gateway',
    waf: 'WAF',
    sqs: 'SQS',
    scheduler: 'Scheduler',
    ses: 'SES',
    bedrock: 'Bedrock',
    logs: 'CloudWatch Logs',
    xray: 'X-Ray',
    s3: 'S3',
    secretsManager: 'Secrets Manager',
  };
  const top = (r: CostRow) =>
    (Object.keys(LABEL) as Component[])
      .filter((k) => r.per1000[k] > 0)
      .sort((a, b) => r.per1000[b] - r.per1000[a])
      .slice(0, 3)
      .map((k) => `${LABEL[k]} ${Math.round((100 * r.per1000[k]) / r.per1000.total)}%`)
      .join(', ');
  const table = [
    `| operation (unit) | AWS cost / 1,000 | largest shares | + OpenSearch Serverless share / 1,000 | credits / 1,000 | revenue / 1,000 at $${assumptions.pricePerCreditUsd}/credit | margin |`,
    '|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.operation} (${r.unit}) | ${usd(r.per1000.total)} | ${top(r)} | ${r.openSearchPer1000 ? usd(r.openSearchPer1000) : '—'} | ${Math.round(r.creditsPer1000).toLocaleString('en-US')} | ${usd(r.revenuePer1000)} | ${usd(r.marginPer1000)}${r.marginShare === null ? '' : ` (${(100 * r.marginShare).toFixed(r.marginShare > 0.99 ? 2 : 1)}%)`} |`,
    ),
  ].join('\n');
  const consumption = [
    '| operation, per unit | read / write units | DynamoDB calls | Lambda invocations / GB-s | SQS requests | Scheduler | SES | Bedrock tokens in / out | log KB the functions wrote |',
    '|---|---|---|---|---|---|---|---|---|',
    ...lines.map((l) => {
      const c = perOperation(l);
      return `| ${l.operation} | ${c.rru} / ${c.wru} | ${c.dynamodb_calls} | ${c.lambda_invocations} / ${c.lambda_gb_s} | ${c.sqs_requests} | ${c.scheduler_invocations} | ${c.ses_emails} | ${c.bedrock_tokens.input} / ${c.bedrock_tokens.output} | ${c.log_kb} |`;
    }),
  ].join('\n');
  const dearLine = (label: string, w: ReturnType<typeof dearest>) =>
    `${label}: dearest per operation ${w.perOperation.operation} (${usd(w.perOperation.per1000.total / 1000)} each; ${top(w.perOperation)})` +
    (w.perRevenue ? `; dearest per dollar earned ${w.perRevenue.operation} (AWS cost ${(100 * (w.perRevenue.per1000.total / w.perRevenue.revenuePer1000)).toFixed(2)}% of its revenue; ${top(w.perRevenue)}).` : '.');
  const dynamodbUsd = (u: { readUnits: number; writeUnits: number }) => u.readUnits * AWS_PRICES.dynamodbReadRequestUnit.usd + u.writeUnits * AWS_PRICES.dynamodbWriteRequestUnit.usd;
  const where = (operation: string) => {
    const fns = Object.entries(spentBy[operation] ?? {}).sort(([, a], [, b]) => dynamodbUsd(b) - dynamodbUsd(a));
    return fns.length ? `DynamoDB units of "${operation}" by function (read / write): ${fns.map(([fn, u]) => `${fn} ${Math.round(u.readUnits)} / ${Math.round(u.writeUnits)}`).join('; ')}.` : '';
  };
  const dear = [dearLine('Default stack (built-in composer)', worst), dearLine('With Bedrock drafting', worstWithBedrock), where(worst.perOperation.operation), worst.perRevenue ? where(worst.perRevenue.operation) : ''].filter(Boolean).join('\n\n');
  const floor = `Physical reference, measured in the same run: ${reference.operation}, the cheapest API call, ${usd(reference.per1000.total)} per 1,000 (${top(reference)}).`;
  return `${table}\n\n${floor}\n\n${consumption}\n\n${dear}\n\nPrices: ${PRICE_REGION}, on-demand, read ${PRICED_AT} (bin/cost/aws-prices.ts). OpenSearch share: ${assumptions.openSearch.ocus} OCUs around the clock over ${assumptions.openSearch.monthlySearchJobs.toLocaleString('en-US')} search jobs a month.`;
}
