import { writeFileSync } from 'node:fs';
import type { LocalStack } from '../../shared/local/stack.js';
import { generateDirectory } from '../../shared/directory/generate.js';
import { coveredCities } from '../../shared/directory/geo.js';
import type { Company, DirectoryRecord, Person } from '../../shared/directory/types.js';
import { APP_LIMITS } from '../../shared/catalog/app-limits.js';
import { newId } from '../../shared/core/ids.js';
import { recordReply } from '../../shared/outreach/emails.repository.js';
import { newSequenceWrite, writeTogether } from '../../shared/sequences/sequences.repository.js';
import type { SequenceRecord } from '../../shared/sequences/model.js';
import { USER_PASSWORD, idTokenFor } from './app-users.js';
import { Client, fetchFrom, newTenant, reply, startTestServices, type Reply, type TestServices } from './local.js';

/**
 * Issue 42's noisy neighbour, shared by test/e2e/noisy-neighbour.test.ts and bin/bench-noisy-neighbour.ts: two
 * tenants on one twin (workers on, the web app's user pool, the contract's throttles: multiplier 1).
 *
 * - **Tenant A** drives every route it can reach past its limits, from its own loopback source: the web app's
 *   reads (every list, its sequence's replies 200 a page, each reply near the 100,000-byte inbound cap) and
 *   contact checks of 500 addresses at new domains, most of them dead (`.invalid`, no mail exchangers), until
 *   its daily lookup budget is spent; writes (API keys up to the 25 cap and past it); and agentic searches
 *   of a 2,000-character query with all its keys, whose shortlist is a set of companies whose sample-web pages
 *   are hostile (half a megabyte of the near-miss text of every evidence check, as the reader's cap allows).
 *   A sends at twice what its account's budgets admit (`pressure`), open loop (it never waits for an answer to
 *   send the next, and ignores Retry-After; at most `maxInFlight` unanswered): what is past a budget or a cap
 *   is A's to be refused (429, 409), which is the point.
 * - **Tenant B** runs an ordinary workload in paced rounds, from another source: the app's account, jobs,
 *   sequences and charges, a contact check of three normal addresses, an email enrichment, and a people
 *   search created and polled until completed. Every call has one expected status and is timed.
 *
 * `measureNoisyNeighbour` runs B alone, then B while A is noisy, in one stack, and returns both.
 */

/** A's and B's loopback sources: the gateway counts per source address as WAF counts per IP. */
export const SOURCE_A = '127.0.0.2';
export const SOURCE_B = '127.0.0.3';

/** The city the hostile companies' people are in (no generated person is): A's query asks for it. */
const HOSTILE_CITY = 'Vienna';
const HOSTILE_COMPANIES = 8;
/** The near misses of the evidence checks (test/unit/agentic/adversarial-pages.test.ts), as one run of text. */
const HOSTILE_UNIT = 'open x office. joins x. as leads a team of hiring no open x raised Series Snowflak spokes launchs wrotes a-a-a-';
/** Each hostile company's headquarters "city": about 120 KB, rendered on /about/ and once per job on /careers/ (up to 4). */
const HOSTILE_TEXT = HOSTILE_UNIT.repeat(Math.ceil(120_000 / HOSTILE_UNIT.length));

/** A's agentic query: 2,000 characters (the most the route takes) of criteria, every check kind in turn. */
export const AGENTIC_QUERY = (() => {
  const sentence = `Software engineers in ${HOSTILE_CITY} at companies that are hiring engineers, opened an office, raised a Series B, launched a product and use Snowflake, who led a team of 5. Ideally they spoke at a conference, wrote an article, use dbt. `;
  return sentence.repeat(Math.ceil(2000 / sentence.length)).slice(0, 2000);
})();

/**
 * The test directory: `people` generated (seed 7), plus HOSTILE_COMPANIES small software companies in Vienna,
 * each staffed by software engineers, whose headquarters field carries HOSTILE_TEXT. That field is shown by the
 * sample web alone (no search, lead or enrichment answer carries a company's headquarters), so only the pages
 * A's agentic research reads are hostile, and B's answers are what they would be without them.
 */
export function writeNoisyDirectory(file: string, people: number): void {
  const records: DirectoryRecord[] = [...generateDirectory({ seed: 7, people })];
  const pool = [...generateDirectory({ seed: 2042, people: 400 })];
  const staff = new Map<string, Person[]>();
  for (const r of pool) if (r.type === 'person') staff.set(r.company_id, [...(staff.get(r.company_id) ?? []), r]);
  const vienna = coveredCities().find((c) => c.country_code === 'AT' && c.name === HOSTILE_CITY)!;
  const place = { city: vienna.name, region: vienna.region!, country: vienna.country, country_code: 'AT', time_zone: vienna.time_zone };
  const chosen = pool.filter((r): r is Company => r.type === 'company' && (staff.get(r.id)?.length ?? 0) >= 3).slice(0, HOSTILE_COMPANIES);
  for (const c of chosen) {
    const domain = `hx-${c.domain}`;
    records.push({ ...c, id: `${c.id}-hx`, domain, professional_url: `${c.professional_url}-hx`, industry: 'Computer Software', hq: { ...place, city: HOSTILE_TEXT } });
    for (const p of staff.get(c.id)!) {
      records.push({
        ...p,
        id: `${p.id}-hx`,
        company_id: `${c.id}-hx`,
        professional_url: `${p.professional_url}-hx`,
        work_email: p.work_email && p.work_email.replace(/@.*$/, `@${domain}`),
        current_job_title: 'Software Engineer',
        function: 'engineering',
        seniority: 'senior',
        location: place,
      });
    }
  }
  writeFileSync(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
}

export interface NoisyWorld {
  services: TestServices;
  stack: LocalStack;
  admin: Client;
  a: TenantA;
  b: TenantB;
  stop(): Promise<void>;
}

export interface TenantA {
  accountId: string;
  tokens: string[];
  /** Every live key A holds (the first, then those it makes through the app). */
  keys: string[];
  sequenceId: string;
  webhookUrl: string;
}

export interface TenantB {
  accountId: string;
  tokens: string[];
  keys: string[];
  webhookUrl: string;
  /** People of the directory with a work email: the enrichment's and the contact check's subjects. */
  people: Person[];
}

/** A web-app user of `accountId` added through the console, signed in: their ID token. */
async function addUser(stack: LocalStack, admin: Client, accountId: string, email: string): Promise<string> {
  const added = await admin.console('POST', `accounts/${accountId}/users/`, { email, password: USER_PASSWORD });
  if (added.status !== 201) throw new Error(`user ${email}: ${added.status} ${JSON.stringify(added.body)}`);
  return idTokenFor(stack, email);
}

/** A sequence of A's with `count` replies, each `bytes` long (written as the inbound worker records them). */
async function sequenceWithReplies(accountId: string, count: number, bytes: number): Promise<string> {
  const at = new Date().toISOString();
  const s = { id: newId('sq'), account_id: accountId, name: 'replies', status: 'active', created_at: at, updated_at: at, instructions: 'Introduce us.', steps: 1, reply_to: null, cc: [], bcc: [], contacts: [], total_emails: 0, drafted: 0 } as unknown as SequenceRecord;
  await writeTogether([newSequenceWrite(s, new Date(Date.parse(at) + 3_600_000))]);
  for (let i = 0; i < count; i += 10) {
    await Promise.all(
      Array.from({ length: Math.min(10, count - i) }, (_, j) =>
        recordReply(accountId, newId('em').slice(3), {
          email_id: newId('em'),
          from_email: `lead${i + j}@prospect.test`,
          from_name: `Lead ${i + j}`,
          subject: 'Re: Hello',
          body_plain: `${i + j} ${'Thanks, tell me more. '.repeat(Math.ceil(bytes / 22))}`.slice(0, bytes),
          classification: 'reply',
          received_at: new Date(Date.parse(at) - (i + j) * 60_000).toISOString(),
          sequence_id: s.id,
          kind: 'reply',
        }),
      ),
    );
  }
  return s.id;
}

export interface WorldOptions {
  /** Generated people beside the hostile companies. */
  people?: number;
}

/** The stack, the directory and both tenants, ready to run. */
export async function startNoisyWorld(opts: WorldOptions = {}): Promise<NoisyWorld> {
  const people = opts.people ?? 1000;
  const services = await startTestServices({
    userPool: true,
    throttleMultiplier: 1,
    webhookReceiver: true,
    directory: { people, seed: 7, write: (file) => writeNoisyDirectory(file, people) },
  });
  try {
    const { stack, admin, receiver } = services;
    const stamp = `${process.pid}-${Date.now()}`;
    const ta = await newTenant(stack, { name: 'Noisy A', credits: 10_000_000, agentic_search: true }, { webhookReceiver: receiver });
    const tb = await newTenant(stack, { name: 'Quiet B', credits: 10_000_000 }, { webhookReceiver: receiver });
    const aTokens = await Promise.all([0, 1, 2].map((i) => addUser(stack, admin, ta.accountId, `a${i}.${stamp}@noisy.test`)));
    const bTokens = await Promise.all([0, 1, 2].map((i) => addUser(stack, admin, tb.accountId, `b${i}.${stamp}@quiet.test`)));
    // B's keys come from the console, so B's app budget is spent on its workload alone; ten of them, as a key
    // may create 6 people searches a minute (burst 2) and B creates one a round.
    const bKeys = [tb.apiKey];
    for (let i = 0; i < 9; i++) bKeys.push((await admin.console('POST', `accounts/${tb.accountId}/api-keys/`)).body.key);
    const sequenceId = await sequenceWithReplies(ta.accountId, 60, 90_000);
    const dir = await services.readDirectory();
    const bPeople = dir.people.filter((p) => p.work_email && !p.id.endsWith('-hx')).slice(0, 40);
    return {
      services,
      stack,
      admin,
      a: { accountId: ta.accountId, tokens: aTokens, keys: [ta.apiKey], sequenceId, webhookUrl: receiver.url },
      b: { accountId: tb.accountId, tokens: bTokens, keys: bKeys, webhookUrl: receiver.url, people: bPeople },
      stop: () => services.stop(),
    };
  } catch (e) {
    await services.stop();
    throw e;
  }
}

// ── Tenant B: the ordinary workload ─────────────────────────────────────────────────────────────────────

export interface Sample {
  route: string;
  ms: number;
  /** The answer's status; 0 when none came. */
  status: number;
  /** The expected status and answer; else `problem` says what was wrong. */
  ok: boolean;
  problem?: string;
}

export interface PhaseResult {
  samples: Sample[];
  failures: Sample[];
  p50: number;
  p95: number;
  /** Each round's people search, accept → completed poll. */
  searchTurnaroundMs: number[];
  /** Rounds started (all of them, unless the phase's deadline came first). */
  rounds: number;
  /** What the deadline cut off: calls not made, searches not seen completed. */
  cut: string[];
  wallMs: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The nearest-rank percentile (p in 0..1). */
export const percentile = (xs: number[], p: number): number => {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))]!;
};

const round1 = (x: number) => Math.round(x * 10) / 10;

/** The status of an answer the e2e client refused as off the contract (it throws, naming the status). */
const statusOf = (e: unknown) => Number(/ (\d{3}): /.exec(String(e))?.[1] ?? 0);

/**
 * One round of B: every call timed and checked against the one answer an ordinary workload expects; the
 * search polled until it completes. After `deadline` (performance.now()) no call is started: a search still
 * running then is a failure.
 */
async function roundOfB(stack: LocalStack, b: TenantB, i: number, deadline: number, out: Sample[], turnaround: number[], cut: string[]): Promise<void> {
  const app = new Client(stack, undefined, SOURCE_B);
  const api = new Client(stack, b.keys[i % b.keys.length]!, SOURCE_B);
  const token = b.tokens[i % b.tokens.length]!;
  const timed = async (route: string, expected: number, call: () => Promise<Reply>, check?: (r: Reply) => string | null): Promise<Reply | null> => {
    if (performance.now() > deadline) {
      cut.push(route);
      return null;
    }
    const t0 = performance.now();
    let r: Reply;
    try {
      r = await call();
    } catch (e) {
      out.push({ route, ms: performance.now() - t0, status: statusOf(e), ok: false, problem: String(e).slice(0, 300) });
      return null;
    }
    const ms = performance.now() - t0;
    const problem = r.status !== expected ? `status ${r.status}, expected ${expected}: ${JSON.stringify(r.body).slice(0, 200)}` : (check?.(r) ?? null);
    out.push({ route, ms, status: r.status, ok: problem === null, ...(problem ? { problem } : {}) });
    return problem === null ? r : null;
  };
  const route = (method: string, path: string, body?: unknown) => app.call(method, `http://localhost:${stack.port}/api/app/v1/${path}`, body, { authorization: `Bearer ${token}` });

  await timed('app GET account/', 200, () => route('GET', 'account/'), (r) => (r.body.id === b.accountId ? null : 'another account'));
  await timed('app GET jobs/', 200, () => route('GET', 'jobs/'));
  await timed('app GET sequences/', 200, () => route('GET', 'sequences/'));
  await timed('app GET charges/', 200, () => route('GET', 'charges/'));
  // Three addresses at live company domains: each looked up within B's own budget and deadline, none refused.
  const contacts = [0, 1, 2].map((j) => b.people[(i * 3 + j) % b.people.length]!).map((p) => ({ email: p.work_email!, first_name: p.first_name, company_name: 'Acme' }));
  await timed('app POST contact-checks/', 200, () => route('POST', 'contact-checks/', { contacts, steps: 1 }), (r) =>
    r.body.lookups?.checked === r.body.lookups?.domains && r.body.lookups?.timed_out === 0 && r.body.results?.every((x: { reason: string | null; unchecked?: string }) => x.reason === null && !x.unchecked)
      ? null
      : `contacts not all checked: ${JSON.stringify(r.body).slice(0, 300)}`,
  );
  const person = b.people[i % b.people.length]!;
  await timed('POST enrich/email/', 200, () => reply(api.typed.POST('/api/public/v1/enrich/email/', { body: { professional_url: person.professional_url } })), (r) => (r.body.email ? null : 'no email found'));

  const accepted = performance.now();
  const created = await timed('POST search/', 202, () => reply(api.typed.POST('/api/public/v1/search/', { body: { query: 'marketing managers', max_results: 25, webhook_url: b.webhookUrl } })));
  if (!created) return;
  for (;;) {
    const poll = await timed('GET search/{id}/', 200, () => reply(api.typed.GET('/api/public/v1/search/{job_id}/', { params: { path: { job_id: created.body.id } } })));
    if (poll?.body.status === 'completed') break;
    if (!poll) {
      // Its answer was wrong (already a failure), or the phase ended first.
      if (performance.now() > deadline) cut.push(`a search still running ${Math.round(performance.now() - accepted)} ms after it was accepted`);
      return;
    }
    if (poll.body.status !== 'pending' && poll.body.status !== 'running') {
      out.push({ route: 'search outcome', ms: 0, status: poll.status, ok: false, problem: `search ${poll.body.status}: ${JSON.stringify(poll.body.error)}` });
      return;
    }
    await sleep(100);
  }
  turnaround.push(performance.now() - accepted);
}

export interface BOptions {
  rounds: number;
  /** A round starts every `intervalMs` (or when the last ends, if later). */
  intervalMs: number;
}

/**
 * B's workload: `rounds` rounds, one every `intervalMs`, numbered from `first` (keys, users and contacts turn
 * with the round); none starts, and no call, past `deadlineMs` from the start.
 */
export async function runTenantB(stack: LocalStack, b: TenantB, opts: BOptions & { first?: number; deadlineMs?: number }): Promise<PhaseResult> {
  const samples: Sample[] = [];
  const turnaround: number[] = [];
  const cut: string[] = [];
  const t0 = performance.now();
  const deadline = t0 + (opts.deadlineMs ?? Number.POSITIVE_INFINITY);
  let rounds = 0;
  for (let k = 0; k < opts.rounds && performance.now() < deadline; k++) {
    const wait = t0 + k * opts.intervalMs - performance.now();
    if (wait > 0) await sleep(wait);
    await roundOfB(stack, b, (opts.first ?? 0) + k, deadline, samples, turnaround, cut);
    rounds++;
  }
  const ms = samples.filter((s) => s.route !== 'search outcome').map((s) => s.ms);
  return {
    samples,
    failures: samples.filter((s) => !s.ok),
    p50: round1(percentile(ms, 0.5)),
    p95: round1(percentile(ms, 0.95)),
    searchTurnaroundMs: turnaround.map(Math.round),
    rounds,
    cut,
    wallMs: Math.round(performance.now() - t0),
  };
}

// ── Tenant A: the noisy neighbour ───────────────────────────────────────────────────────────────────────

export interface RouteCount {
  sent: number;
  byStatus: Record<string, number>;
}

export interface ARun {
  byRoute: Record<string, RouteCount>;
  /** Ticks A skipped because `maxInFlight` of its requests were unanswered (the twin could not keep up). */
  skipped: number;
  /** Contact checks whose domains were past A's daily lookup budget (answered, with `over_budget` > 0). */
  overBudgetChecks: number;
  /** A's live keys at the end (its first and those the app made). */
  keys: number;
  /** Agentic searches accepted (202). */
  agenticAccepted: string[];
}

/** What A drives: the app's light reads, its replies pages, its contact checks, its writes, agentic searches. */
export type NoisePart = 'reads' | 'replies' | 'checks' | 'writes' | 'agentic';
export const ALL_NOISE: readonly NoisePart[] = ['reads', 'replies', 'checks', 'writes', 'agentic'];

export interface AOptions {
  /** A's offered rate as a multiple of what its account's budgets admit (2: half of it is refused). */
  pressure?: number;
  maxInFlight?: number;
  parts?: readonly NoisePart[];
}

/** A contact check of 500 addresses at new registrable domains, four in five of them dead (`.invalid`). */
const DEAD_CHECK_SIZE = 500;
let deadBatch = 0;
function deadContacts(): { email: string; first_name: string; company_name: string }[] {
  const n = deadBatch++;
  return Array.from({ length: DEAD_CHECK_SIZE }, (_, i) => ({ email: `pat${i}@d${n}x${i}.${i % 5 === 0 ? 'example' : 'invalid'}`, first_name: 'Pat', company_name: 'Dead Co' }));
}

/** A's offered rate of agentic searches before `pressure`: every key at its 2 a minute, with the 25 keys A may hold. */
const AGENTIC_PER_SECOND = (25 * 2) / 60;

/**
 * Start A's flood; `stop()` ends it, waits for its answers and returns what A got by route. A's calls use
 * plain fetch from SOURCE_A and read each answer whole (JSON only where A needs a value of it): the client of
 * the noise does what a real one does and nothing more, so the measure is of the service.
 */
export function startTenantA(stack: LocalStack, a: TenantA, opts: AOptions = {}): { stop(): Promise<ARun> } {
  const pressure = opts.pressure ?? 2;
  const maxInFlight = opts.maxInFlight ?? 32;
  const parts = new Set(opts.parts ?? ALL_NOISE);
  const send = fetchFrom(SOURCE_A);
  const run: ARun = { byRoute: {}, skipped: 0, overBudgetChecks: 0, keys: a.keys.length, agenticAccepted: [] };
  const inFlight = new Set<Promise<void>>();
  const base = `http://localhost:${stack.port}`;
  let users = 0;
  let keys = 0;
  const user = () => ({ authorization: `Bearer ${a.tokens[users++ % a.tokens.length]}` });

  const call = (route: string, method: string, path: string, headers: Record<string, string>, body?: unknown, use?: (status: number, json: any) => void) => {
    if (inFlight.size >= maxInFlight) {
      run.skipped++;
      return;
    }
    const count = (run.byRoute[route] ??= { sent: 0, byStatus: {} });
    count.sent++;
    const p = (async () => {
      let status = 0;
      try {
        const res = await send(`${base}${path}`, { method, headers: { 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
        status = res.status;
        if (use) use(status, await res.json().catch(() => null));
        else await res.arrayBuffer();
      } catch {
        status = 0;
      }
      count.byStatus[status] = (count.byStatus[status] ?? 0) + 1;
    })();
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
  };
  const appRead = (path: string, name = path) => () => call(`app GET ${name}`, 'GET', `/api/app/v1/${path}`, user());

  // Reads, one class in the app's budgets: every list of the app, and, weighted up, the replies page of 200
  // (charged by its bytes: about 80 tokens).
  const reads: (() => void)[] = [
    ...(parts.has('reads') ? ['account/', 'api-keys/', 'webhook-secrets/', 'charges/', 'sending-accounts/', 'sequences/', 'jobs/', 'emails/', 'prices/'].map((path) => appRead(path)) : []),
    ...(parts.has('reads') ? [appRead(`sequences/${a.sequenceId}/`, 'sequences/{id}/')] : []),
    ...Array.from({ length: parts.has('replies') ? 4 : 0 }, () => appRead(`sequences/${a.sequenceId}/replies/?page_size=200`, 'sequences/{id}/replies/')),
  ];
  // Contact checks, a class of their own counted in contacts: checks of 500 new domains (A's daily lookup
  // budget of 2,000 domains is gone after four), at `pressure` times the account's contacts a minute.
  const check = () =>
    call('app POST contact-checks/', 'POST', '/api/app/v1/contact-checks/', user(), { contacts: deadContacts(), steps: 1 }, (status, json) => {
      if (status === 200 && json?.lookups?.over_budget > 0) run.overBudgetChecks++;
    });
  // Writes: API keys only until the cap of 25 refuses one (409), then keys and the account's settings in turn.
  let capped = false;
  const newKey = () =>
    call('app POST api-keys/', 'POST', '/api/app/v1/api-keys/', user(), undefined, (status, json) => {
      if (status === 201 && typeof json?.key === 'string') run.keys = a.keys.push(json.key);
      if (status === 409) capped = true;
    });
  const writes: (() => void)[] = [newKey, () => (capped ? call('app PATCH account/', 'PATCH', '/api/app/v1/account/', user(), { auto_recharge: false }) : newKey())];
  // Agentic searches with every key A holds, the query of 2,000 characters, as many leads and credits as allowed.
  const agentic = () =>
    call('POST agentic-search/', 'POST', '/api/public/v1/agentic-search/', { 'x-api-key': a.keys[keys++ % a.keys.length]! }, { query: AGENTIC_QUERY, target_results: 50, max_credits: 2000, webhook_url: a.webhookUrl }, (status, json) => {
      if (status === 202 && typeof json?.id === 'string') run.agenticAccepted.push(json.id);
    });

  const timers: NodeJS.Timeout[] = [];
  const every = (perSecond: number, ticks: (() => void)[]) => {
    if (!ticks.length) return;
    let k = 0;
    ticks[k++ % ticks.length]!();
    timers.push(setInterval(() => ticks[k++ % ticks.length]!(), 1000 / (perSecond * pressure)));
  };
  every(APP_LIMITS.read.perAccount.perMinute / 60, reads);
  if (parts.has('checks')) every(APP_LIMITS.check.perAccount.perMinute / DEAD_CHECK_SIZE / 60, [check]);
  if (parts.has('writes')) every(APP_LIMITS.write.perAccount.perMinute / 60, writes);
  if (parts.has('agentic')) every(AGENTIC_PER_SECOND, [agentic]);
  return {
    stop: async () => {
      for (const t of timers) clearInterval(t);
      while (inFlight.size) await Promise.all([...inFlight]);
      return run;
    },
  };
}

/** Cancel A's agentic searches still running, so the stack stops on quiet workers (best effort: cleanup, not a check). */
export async function cancelAgentic(stack: LocalStack, a: TenantA, ids: string[]): Promise<void> {
  const api = new Client(stack, a.keys[0], SOURCE_A);
  for (const id of ids) await api.api('POST', `agentic-search/${id}/cancel/`).catch(() => undefined);
}

// ── The measurement ────────────────────────────────────────────────────────────────────────────────────

export interface NoisyMeasurement {
  alone: PhaseResult;
  noisy: PhaseResult;
  /** B's p95 while A is noisy over B's p95 alone. */
  ratio: number;
  a: ARun;
  /** Hostile sample-web pages (the `hx-` companies') A's agentic research read while B ran beside it. */
  hostilePagesRead: number;
  /** Each block's phases in the order they ran, with their p95 (what drifted, if anything did). */
  blocks: { order: ('alone' | 'noisy')[]; aloneP95: number; noisyP95: number; settled: boolean }[];
}

export interface MeasureOptions extends BOptions, AOptions {
  /** Rounds of B before measuring: the cold starts of B's functions, and the JIT of the twin and DynamoDB Local. */
  warmRounds?: number;
  /**
   * How long A runs once before measuring, then stops: the first load of A's functions (on the twin, every
   * function's modules are compiled in the one process the first time it runs, as a cold start in AWS is in
   * its own sandbox) happens once, not in the first noisy block.
   */
  warmAMs?: number;
  /** How long A runs before each of B's noisy blocks: its first bursts spent, its agentic searches started. */
  rampMs?: number;
  /** A noisy block ends this long after the time an alone block took, whatever B has done by then. */
  graceMs?: number;
  /**
   * The phases alternate in this many blocks (even), `rounds / blocks` rounds of B each, alone-noisy then
   * noisy-alone (ABBA), so a drift of the machine's load or a warm-up still under way falls on both phases alike.
   */
  blocks?: number;
  /** How long to wait, after A stops, for the twin's queues to empty before B runs alone again. */
  settleMs?: number;
}

/** Phases of B run in blocks, pooled into one. */
function pooled(parts: PhaseResult[]): PhaseResult {
  const samples = parts.flatMap((p) => p.samples);
  const ms = samples.filter((x) => x.route !== 'search outcome').map((x) => x.ms);
  return {
    samples,
    failures: parts.flatMap((p) => p.failures),
    p50: round1(percentile(ms, 0.5)),
    p95: round1(percentile(ms, 0.95)),
    searchTurnaroundMs: parts.flatMap((p) => p.searchTurnaroundMs),
    rounds: parts.reduce((n, p) => n + p.rounds, 0),
    cut: parts.flatMap((p) => p.cut),
    wallMs: parts.reduce((n, p) => n + p.wallMs, 0),
  };
}

function mergeRuns(runs: ARun[]): ARun {
  const out: ARun = { byRoute: {}, skipped: 0, overBudgetChecks: 0, keys: 0, agenticAccepted: [] };
  for (const r of runs) {
    for (const [route, c] of Object.entries(r.byRoute)) {
      const into = (out.byRoute[route] ??= { sent: 0, byStatus: {} });
      into.sent += c.sent;
      for (const [status, k] of Object.entries(c.byStatus)) into.byStatus[status] = (into.byStatus[status] ?? 0) + k;
    }
    out.skipped += r.skipped;
    out.overBudgetChecks += r.overBudgetChecks;
    out.keys = Math.max(out.keys, r.keys);
    out.agenticAccepted.push(...r.agenticAccepted);
  }
  return out;
}

/**
 * Warm B up and A (its functions' first load), then alternate B alone and B beside A in `blocks` blocks
 * (ABBA): for each noisy phase A starts, ramps up, floods while B runs, and stops (its agentic searches
 * cancelled, the twin's queues let empty) before B runs alone again. B's samples are pooled by phase: the
 * ratio compares like with like over the same stretch of time, whatever else the machine was doing.
 */
export async function measureNoisyNeighbour(world: NoisyWorld, opts: MeasureOptions): Promise<NoisyMeasurement> {
  const warmRounds = opts.warmRounds ?? 2;
  const blocks = opts.blocks ?? 2;
  if (blocks < 1 || blocks % 2 !== 0 && blocks !== 1) throw new Error('blocks: 1 or an even number');
  const perBlock = Math.ceil(opts.rounds / blocks);
  await runTenantB(world.stack, world.b, { rounds: warmRounds, intervalMs: opts.intervalMs });
  let next = warmRounds;
  const runs: ARun[] = [];
  if ((opts.warmAMs ?? 5000) > 0) {
    const warm = startTenantA(world.stack, world.a, opts);
    await sleep(opts.warmAMs ?? 5000);
    const a = await warm.stop();
    await cancelAgentic(world.stack, world.a, a.agenticAccepted);
    runs.push(a);
    await world.stack.settle(opts.settleMs ?? 20_000);
  }
  const alone: PhaseResult[] = [];
  const noisy: PhaseResult[] = [];
  const out: NoisyMeasurement['blocks'] = [];
  let hostilePagesRead = 0;
  let lastAloneMs = perBlock * opts.intervalMs;
  const runAlone = async (rounds: number) => {
    const r = await runTenantB(world.stack, world.b, { ...opts, rounds, first: next });
    next += rounds;
    lastAloneMs = r.wallMs;
    alone.push(r);
    return r;
  };
  const runNoisy = async (rounds: number) => {
    const served = world.stack.sampleWeb.served.length;
    const flood = startTenantA(world.stack, world.a, opts);
    let r: PhaseResult;
    let a: ARun;
    try {
      await sleep(opts.rampMs ?? 5000);
      r = await runTenantB(world.stack, world.b, { ...opts, rounds, first: next, deadlineMs: lastAloneMs + (opts.graceMs ?? 5_000) });
      next += rounds;
    } finally {
      a = await flood.stop();
      await cancelAgentic(world.stack, world.a, a.agenticAccepted);
    }
    hostilePagesRead += world.stack.sampleWeb.served.slice(served).filter((url) => url.startsWith('https://hx-')).length;
    runs.push(a);
    noisy.push(r);
    // What A left running (cancelled searches winding down, webhooks) ends before B runs alone again.
    const settled = await world.stack.settle(opts.settleMs ?? 20_000);
    return { r, settled };
  };
  for (let k = 0, left = opts.rounds; k < blocks; k++) {
    const rounds = Math.min(perBlock, left);
    left -= rounds;
    if (k % 2 === 0) {
      const a = await runAlone(rounds);
      const n = await runNoisy(rounds);
      out.push({ order: ['alone', 'noisy'], aloneP95: a.p95, noisyP95: n.r.p95, settled: n.settled });
    } else {
      const n = await runNoisy(rounds);
      const a = await runAlone(rounds);
      out.push({ order: ['noisy', 'alone'], aloneP95: a.p95, noisyP95: n.r.p95, settled: n.settled });
    }
  }
  const [aloneAll, noisyAll] = [pooled(alone), pooled(noisy)];
  return { alone: aloneAll, noisy: noisyAll, ratio: Math.round((noisyAll.p95 / aloneAll.p95) * 100) / 100, a: mergeRuns(runs), hostilePagesRead, blocks: out };
}
