import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, ServiceClient, ServiceProcess } from '../support/service-process.js';
import { FlakyWebhookReceiver } from '../support/flaky-webhook-receiver.js';
import { until } from '../support/probes.js';
import { ledgerTotals } from '../support/ledger-audit.js';
import { mulberry32, seededFraction, type SeededRandom } from '../support/seeded-random.js';

/**
 * The crash suite (issue 9, item 8), from outside: the service runs as `npm start` runs it, takes a mixed
 * workload from two tenants (one on auto-recharge with a low balance) while it is SIGKILLed at seeded
 * points and restarted on the same data directory, and is then left to settle on an advancing service
 * clock. Afterwards nothing may be stuck, pending, lost, unbalanced or sent twice. Only the public API, the
 * console API and the local dev controls are used, plus a read of the credit ledger, which no API lists.
 *
 * The local mail sink lives in the service's memory, so each life's mailbox is read just before its kill:
 * a send in the few milliseconds between that read and the kill goes unseen.
 */
const SEEDS = (process.env.CRASH_SEEDS ?? '1').split(',').map(Number);
const SCENARIOS_PER_SEED = 22;
const CONCURRENCY = 6;
const FIRST_ATTEMPT_FAILURE_SHARE = 0.3;
const ADMIN_TOKEN = 'crash-suite-admin-token';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const EMAIL_ID = /em_[0-9a-z]{26}/;

interface Person {
  first_name: string;
  last_name: string;
  professional_url: string;
  work_email: string;
  phone: string | null;
}

interface Tenant {
  label: string;
  accountId: string;
  apiKey: string;
  initialBalance: number;
}

type JobKind = 'search' | 'phone';
type EmailPlan = 'approve_now' | 'approve_best_time' | 'approve_at' | 'edit_then_approve' | 'cancel' | 'leave';

type Scenario =
  | { kind: 'search'; tenant: Tenant; query: string }
  | { kind: 'phone'; tenant: Tenant; identity: Record<string, string> }
  | { kind: 'sync'; tenant: Tenant; path: string; body: Record<string, string> }
  | { kind: 'email'; tenant: Tenant; review: 'required'; plan: EmailPlan }
  | { kind: 'email'; tenant: Tenant; review: 'none'; plan: 'cancel' | 'leave' }
  | { kind: 'clock'; seconds: number }
  | { kind: 'topup'; tenant: Tenant; amount: number };

const QUERIES = [
  'Chief Financial Officers',
  'VP of Sales in the United States',
  'software engineers',
  'CEOs in Sweden',
  'marketing managers at software companies',
  'nurses',
  'Head of Finance',
  'directors of engineering in Europe',
];

let service: ServiceProcess;
let client: ServiceClient;
let dataDir: string;
let people: Person[];
/** Every message the mail sink held in each life of the service, by life number. */
const mailByLife = new Map<number, any[]>();

async function readMailbox(): Promise<void> {
  const life = service.lives;
  const r = await client.console('GET', 'dev/mailbox/', undefined, 'never');
  if (r.status !== 200 || life !== service.lives) return;
  const messages = r.body.messages as any[];
  if (messages.length >= (mailByLife.get(life)?.length ?? 0)) mailByLife.set(life, messages);
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'crash-suite-'));
  service = new ServiceProcess({
    dataDir,
    port: await freePort(),
    adminToken: ADMIN_TOKEN,
    // A small directory keeps the first start short; the throttles are not what this suite tests.
    env: { DIRECTORY_PEOPLE: '800', LOCAL_THROTTLE_MULTIPLIER: '1000', SETTLE_TIMEOUT_MS: '8000' },
  });
  await service.start();
  client = new ServiceClient(service);
  people = readFileSync(join(dataDir, 'directory.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line.includes('"type":"person"'))
    .map((line) => JSON.parse(line) as Person & { type: string })
    .filter((p) => p.work_email && p.professional_url);
}, 240_000);

afterAll(async () => {
  await service?.stop();
  if (dataDir && !process.env.CRASH_KEEP_DATA) rmSync(dataDir, { recursive: true, force: true });
});

async function createTenant(label: string, account: Record<string, unknown>, receiver: FlakyWebhookReceiver, seed: number): Promise<Tenant> {
  const a = await client.console('POST', 'accounts/', { name: label, ...account });
  if (a.status !== 201) throw new Error(`account: ${a.status} ${JSON.stringify(a.body)}`);
  const key = await client.console('POST', `accounts/${a.body.id}/api-keys/`);
  const secret = await client.console('POST', `accounts/${a.body.id}/webhook-secrets/`);
  const sender = await client.console('POST', `accounts/${a.body.id}/sending-accounts/`, { email: `sender.${seed}.${a.body.id.slice(-6)}@crash-suite.test`, type: 'google' });
  for (const r of [key, secret, sender]) if (r.status !== 201) throw new Error(`tenant set-up: ${r.status} ${JSON.stringify(r.body)}`);
  receiver.addSecret(secret.body.secret);
  return { label, accountId: a.body.id, apiKey: key.body.key, initialBalance: a.body.balance };
}

function planWorkload(rand: SeededRandom, standard: Tenant, recharging: Tenant): Scenario[] {
  const paying = () => (rand.chance(0.3) ? recharging : standard);
  const person = () => rand.pick(people);
  const kinds = ['search', 'search', 'phone', 'phone', 'phone', 'sync', 'sync', 'sync', 'sync', 'sync', 'required', 'required', 'required', 'required', 'none', 'none', 'clock'] as const;
  const scenarios: Scenario[] = [{ kind: 'topup', tenant: standard, amount: 100 }];
  while (scenarios.length < SCENARIOS_PER_SEED) {
    const kind = rand.pick(kinds);
    if (kind === 'search') scenarios.push({ kind, tenant: paying(), query: rand.pick(QUERIES) });
    else if (kind === 'phone') {
      const p = person();
      scenarios.push({ kind, tenant: paying(), identity: rand.chance(0.5) ? { email: p.work_email } : { professional_url: p.professional_url } });
    } else if (kind === 'sync') {
      const p = person();
      const shape = rand.pick(['email', 'email-miss', 'professional-url', 'professional-profile'] as const);
      const tenant = paying();
      if (shape === 'email') scenarios.push({ kind, tenant, path: 'enrich/email/', body: { professional_url: p.professional_url } });
      else if (shape === 'email-miss') scenarios.push({ kind, tenant, path: 'enrich/email/', body: { professional_url: `linkedin.com/in/nobody-${rand.int(1, 1e9)}` } });
      else if (shape === 'professional-url') scenarios.push({ kind, tenant, path: 'enrich/professional-url/', body: { email: p.work_email } });
      else scenarios.push({ kind, tenant, path: 'enrich/professional-profile/', body: { professional_url: `https://www.${p.professional_url}/` } });
    } else if (kind === 'required') {
      const plan = rand.pick(['approve_now', 'approve_now', 'approve_best_time', 'approve_at', 'edit_then_approve', 'cancel', 'leave'] as const);
      scenarios.push({ kind: 'email', tenant: paying(), review: 'required', plan });
    } else if (kind === 'none') scenarios.push({ kind: 'email', tenant: paying(), review: 'none', plan: rand.chance(0.25) ? 'cancel' : 'leave' });
    else scenarios.push({ kind: 'clock', seconds: rand.pick([600, 3600, 4 * 3600]) });
  }
  return scenarios;
}

interface SeedLog {
  /** Jobs by id, known from their acceptance answer or, when a kill took that answer, from their charge. */
  jobs: Map<string, { kind: JobKind; tenant: Tenant; source: 'accepted' | 'charge' }>;
  emails: Map<string, Tenant>;
  /** Credits of top-ups answered 200, by account id. */
  acknowledgedTopups: Map<string, number>;
  answers: Record<string, number>;
}

async function pollEmail(tenant: Tenant, id: string, done: (e: any) => boolean, ms: number): Promise<any | null> {
  for (const deadline = Date.now() + ms; Date.now() < deadline; await sleep(500)) {
    const r = await client.api(tenant.apiKey, 'GET', `emails/${id}/`);
    if (r.status === 200 && done(r.body)) return r.body;
  }
  return null;
}

async function runScenario(s: Scenario, index: number, seed: number, receiver: FlakyWebhookReceiver, log: SeedLog): Promise<void> {
  const note = (what: string, status: number) => (log.answers[`${what} ${status}`] = (log.answers[`${what} ${status}`] ?? 0) + 1);
  switch (s.kind) {
    case 'search':
    case 'phone': {
      const path = s.kind === 'search' ? 'search/' : 'enrich/phone/';
      const body = s.kind === 'search' ? { query: s.query, max_results: 25, webhook_url: receiver.url } : { ...s.identity, webhook_url: receiver.url };
      const r = await client.api(s.tenant.apiKey, 'POST', path, body, { headers: { 'idempotency-key': `crash-${seed}-${index}` } });
      note(`POST ${path}`, r.status);
      if (r.status === 202) log.jobs.set(r.body.id, { kind: s.kind, tenant: s.tenant, source: 'accepted' });
      return;
    }
    case 'sync': {
      const r = await client.api(s.tenant.apiKey, 'POST', s.path, s.body);
      note(`POST ${s.path}`, r.status);
      return;
    }
    case 'clock': {
      const r = await client.console('POST', 'dev/clock/', { advance_seconds: s.seconds }, 'never');
      note('POST dev/clock/', r.status);
      return;
    }
    case 'topup': {
      // An unanswered top-up may or may not have landed, so it is not repeated; the ledger says which.
      const r = await client.console('POST', `accounts/${s.tenant.accountId}/credits/`, { amount: s.amount }, 'never');
      note('POST credits/', r.status);
      if (r.status === 200) log.acknowledgedTopups.set(s.tenant.accountId, (log.acknowledgedTopups.get(s.tenant.accountId) ?? 0) + s.amount);
      return;
    }
    case 'email': {
      const create = await client.api(s.tenant.apiKey, 'POST', 'emails/', {
        to: { email: `lead.${seed}.${index}@prospect.example`, first_name: 'Alex', company_name: 'Northwind Robotics', context: 'Opened a new warehouse' },
        instructions: 'Short and friendly: introduce our warehouse automation platform and ask for a 15-minute call.',
        review: s.review,
      });
      note('POST emails/', create.status);
      if (create.status !== 202) return;
      const id = create.body.id as string;
      log.emails.set(id, s.tenant);
      if (s.plan === 'leave') return;
      if (s.review === 'none') {
        note('POST cancel/', (await client.api(s.tenant.apiKey, 'POST', `emails/${id}/cancel/`)).status);
        return;
      }
      const drafted = await pollEmail(s.tenant, id, (e) => e.status !== 'drafting', 15_000);
      if (drafted?.status !== 'pending_review') return;
      if (s.plan === 'cancel') {
        note('POST cancel/', (await client.api(s.tenant.apiKey, 'POST', `emails/${id}/cancel/`)).status);
        return;
      }
      if (s.plan === 'edit_then_approve') note('PATCH emails/', (await client.api(s.tenant.apiKey, 'PATCH', `emails/${id}/`, { subject: 'A quick question about your warehouse' })).status);
      const schedule =
        s.plan === 'approve_at'
          ? { schedule: 'at', send_at: new Date(Date.parse(drafted.created_at) + 2 * 86_400_000).toISOString() }
          : { schedule: s.plan === 'approve_best_time' ? 'best_time' : 'now' };
      note('POST approve/', (await client.api(s.tenant.apiKey, 'POST', `emails/${id}/approve/`, schedule)).status);
      return;
    }
  }
}

async function settle(): Promise<void> {
  await client.console('POST', 'dev/settle/');
}

async function advance(seconds: number): Promise<Date> {
  const r = await client.console('POST', 'dev/clock/', { advance_seconds: seconds });
  if (r.status !== 200) throw new Error(`dev/clock: ${r.status} ${JSON.stringify(r.body)}`);
  return new Date(r.body.now);
}

async function allPages(tenant: Tenant): Promise<any[]> {
  const out: any[] = [];
  for (let page = 1; ; page++) {
    const r = await client.api(tenant.apiKey, 'GET', `emails/?page=${page}&page_size=200`);
    if (r.status !== 200) throw new Error(`list emails: ${r.status} ${JSON.stringify(r.body)}`);
    out.push(...r.body.results);
    if (page >= r.body.total_pages) return out;
  }
}

const count = <T>(items: T[], key: (t: T) => string): Record<string, number> =>
  items.reduce<Record<string, number>>((acc, t) => ((acc[key(t)] = (acc[key(t)] ?? 0) + 1), acc), {});

/** Everything the invariants are judged on, read from outside after the service has settled. */
async function audit(tenants: Tenant[], log: SeedLog, receiver: FlakyWebhookReceiver, now: Date) {
  const charges: (any & { tenant: Tenant })[] = [];
  const balances: { tenant: string; balance: number; expected: number; initial: number; topups: number; purchases: number; charged: number; pendingReserved: number }[] = [];
  for (const t of tenants) {
    const list = await client.console('GET', `accounts/${t.accountId}/charges/`);
    const account = await client.console('GET', `accounts/${t.accountId}/`);
    if (list.status !== 200 || account.status !== 200) throw new Error(`console reads: ${list.status} ${account.status}`);
    const own = list.body.results as any[];
    charges.push(...own.map((c) => ({ ...c, tenant: t })));
    const ledger = await ledgerTotals(dataDir, t.accountId);
    const charged = own.reduce((sum, c) => sum + (c.charged ?? 0), 0);
    const pendingReserved = own.filter((c) => c.charge_status === 'pending').reduce((sum, c) => sum + c.reserved, 0);
    const expected = t.initialBalance + ledger.topups + ledger.purchases - charged - pendingReserved;
    balances.push({ tenant: t.label, balance: account.body.balance, expected, initial: t.initialBalance, topups: ledger.topups, purchases: ledger.purchases, charged, pendingReserved });
    // Jobs whose acceptance answer was lost to a kill are still known by their reservation.
    for (const c of own) {
      if (typeof c.reference === 'string' && c.reference.startsWith('dj_') && !log.jobs.has(c.reference)) {
        if (c.operation === 'people_search') log.jobs.set(c.reference, { kind: 'search', tenant: t, source: 'charge' });
        if (c.operation === 'phone_enrich') log.jobs.set(c.reference, { kind: 'phone', tenant: t, source: 'charge' });
      }
    }
  }

  const jobs: { id: string; kind: JobKind; status: string; source: string; charge: string }[] = [];
  for (const [id, { kind, tenant, source }] of log.jobs) {
    const r = await client.api(tenant.apiKey, 'GET', `${kind === 'search' ? 'search' : 'enrich/phone'}/${id}/`);
    const charge = charges.find((c) => c.reference === id)?.charge_status ?? 'none';
    jobs.push({ id, kind, status: r.status === 200 ? r.body.status : `http_${r.status}`, source, charge });
  }

  // Emails whose create answer was lost to a kill are found by listing.
  const emails = new Map<string, any>();
  for (const t of tenants) for (const e of await allPages(t)) emails.set(e.id, e);
  const unlisted = [...log.emails.keys()].filter((id) => !emails.has(id));
  // A reservation names its email even when the listing does not show it.
  const chargedUnlisted = charges.filter((c) => c.operation === 'outreach_email' && !emails.has(c.reference) && !log.emails.has(c.reference));
  unlisted.push(...chargedUnlisted.map((c) => c.reference as string));
  for (const id of unlisted) {
    const tenant = log.emails.get(id) ?? chargedUnlisted.find((c) => c.reference === id)!.tenant;
    const r = await client.api(tenant.apiKey, 'GET', `emails/${id}/`);
    emails.set(id, r.status === 200 ? r.body : { id, status: `http_${r.status}`, scheduled_for: null, review_expires_at: null });
  }
  const stuckEmails = [...emails.values()]
    .filter(
      (e) =>
        e.status.startsWith('http_') ||
        e.status === 'drafting' ||
        e.status === 'sending' ||
        (e.status === 'queued' && (!e.scheduled_for || Date.parse(e.scheduled_for) <= now.getTime())) ||
        (e.status === 'pending_review' && Date.parse(e.review_expires_at) <= now.getTime()),
    )
    .map((e) => ({ id: e.id, status: e.status, scheduled_for: e.scheduled_for, review_expires_at: e.review_expires_at }));

  const mail = [...mailByLife.values()].flat().filter((m) => emails.has(String(m.message_id ?? '').match(EMAIL_ID)?.[0] ?? ''));
  const sendsPerEmail = count(mail, (m) => String(m.message_id).match(EMAIL_ID)![0]);
  const sendsPerMessageId = count(mail, (m) => String(m.message_id));
  const duplicateSends = Object.entries(sendsPerEmail)
    .filter(([, n]) => n > 1)
    .map(([id, n]) => ({ id, sends: n, status: emails.get(id)?.status }));
  const sentUnseen = [...emails.values()].filter((e) => (e.status === 'sent' || e.status === 'replied') && !sendsPerEmail[e.id]).map((e) => e.id);

  const webhookProblems = jobs.flatMap((j) => {
    const got = receiver.for(j.id);
    const ids = new Set(got.map((d) => d.webhookId));
    const problems: string[] = [];
    if (!got.some((d) => d.status >= 200 && d.status < 300)) problems.push(`never delivered (${got.length} attempts)`);
    if (ids.size > 1) problems.push(`${ids.size} different webhook-ids`);
    if (got.some((d) => !d.verified)) problems.push('unverified signature');
    return problems.length ? [{ id: j.id, kind: j.kind, status: j.status, problems }] : [];
  });

  return {
    jobs,
    charges,
    balances,
    emails,
    mail,
    sendsPerMessageId,
    violations: {
      nonTerminalJobs: jobs.filter((j) => j.status !== 'completed' && j.status !== 'failed'),
      pendingCharges: charges.filter((c) => c.charge_status === 'pending').map((c) => ({ tenant: c.tenant.label, operation: c.operation, reference: c.reference, reserved: c.reserved, created_at: c.created_at })),
      unbalanced: balances.filter((b) => b.balance !== b.expected),
      acknowledgedTopupsMissing: tenants.filter((t) => (log.acknowledgedTopups.get(t.accountId) ?? 0) > balances.find((b) => b.tenant === t.label)!.topups).map((t) => t.label),
      duplicateSends,
      duplicateMessageIds: Object.entries(sendsPerMessageId).filter(([, n]) => n > 1).map(([id]) => id),
      stuckEmails,
      unlistedEmails: unlisted,
      webhookProblems,
    },
    sentUnseen,
  };
}

const holds = (v: Record<string, unknown[]>) => Object.values(v).every((list) => list.length === 0);

describe('crash suite: SIGKILL at seeded points under a mixed workload', () => {
  test.each(SEEDS)(
    'seed %i: every job terminal, every charge settled, the ledger balanced, nothing sent twice, every webhook delivered under one id',
    async (seed) => {
      const t0 = Date.now();
      const rand = mulberry32(seed);
      const requestsBefore = client.stats.requests;
      const killsBefore = service.kills;
      const startingBefore = service.startingMs;
      const receiver = await new FlakyWebhookReceiver((jobId) => seededFraction(seed, jobId) < FIRST_ATTEMPT_FAILURE_SHARE).start();
      try {
        const standard = await createTenant(`crash ${seed} standard`, { credits: 1250 }, receiver, seed);
        const recharging = await createTenant(`crash ${seed} auto-recharge`, { credits: 12, auto_recharge: true }, receiver, seed);
        const scenarios = planWorkload(rand, standard, recharging);
        const jitters = scenarios.map(() => rand.int(0, 200));
        const killPoints = Array.from({ length: 3 }, () => ({ afterStarted: rand.int(3, SCENARIOS_PER_SEED - 3), delayMs: rand.int(0, 600) })).sort((a, b) => a.afterStarted - b.afterStarted);

        const log: SeedLog = { jobs: new Map(), emails: new Map(), acknowledgedTopups: new Map(), answers: {} };
        let started = 0;
        let workloadDone = false;
        const worker = async () => {
          for (let i = started++; i < scenarios.length; i = started++) {
            await sleep(jitters[i]!);
            await runScenario(scenarios[i]!, i, seed, receiver, log);
          }
        };
        const workload = Promise.all(Array.from({ length: CONCURRENCY }, worker)).finally(() => (workloadDone = true));
        let killsDuringWorkload = 0;
        const killer = (async () => {
          for (const point of killPoints) {
            while (started < point.afterStarted && !workloadDone) await sleep(20);
            await sleep(point.delayMs);
            await readMailbox();
            if (!workloadDone) killsDuringWorkload++;
            await service.kill();
            await service.start();
          }
        })();
        await Promise.all([workload, killer]);
        const workloadMs = Date.now() - t0;

        // Let every timer come due: webhook retries (5 s … 10 h), send slots, 7-day review windows, the sweeper.
        await settle();
        for (const seconds of [60, 3600, 86_400, 3 * 86_400, 5 * 86_400]) {
          await advance(seconds);
          await settle();
        }
        let now = await advance(1);
        let report = await audit([standard, recharging], log, receiver, now);
        for (const deadline = Date.now() + 8_000; !holds(report.violations) && Date.now() < deadline; ) {
          now = await advance(600);
          await settle();
          await sleep(1000);
          await readMailbox();
          report = await audit([standard, recharging], log, receiver, now);
        }
        await readMailbox();
        report = await audit([standard, recharging], log, receiver, now);

        const deliveries = report.jobs.flatMap((j) => receiver.for(j.id));
        console.log(
          `crash seed ${seed}: ${JSON.stringify(
            {
              requests: client.stats.requests - requestsBefore,
              answers: log.answers,
              kills: service.kills - killsBefore,
              killsDuringWorkload,
              jobs: { total: report.jobs.length, byStatus: count(report.jobs, (j) => j.status) },
              emails: { total: report.emails.size, byStatus: count([...report.emails.values()], (e) => e.status) },
              sends: report.mail.length,
              sentButUnseenBySink: report.sentUnseen.length,
              duplicateSends: report.violations.duplicateSends.length,
              webhookDeliveries: { total: deliveries.length, non2xx: deliveries.filter((d) => d.status >= 300).length, jobsUndelivered: report.violations.webhookProblems.length },
              charges: count(report.charges, (c) => c.charge_status),
              balances: report.balances,
              violations: Object.fromEntries(Object.entries(report.violations).map(([k, v]) => [k, v.length])),
              wallSeconds: {
                total: Math.round((Date.now() - t0) / 100) / 10,
                workloadAndKills: Math.round(workloadMs / 100) / 10,
                restarting: Math.round((service.startingMs - startingBefore) / 100) / 10,
                settling: Math.round((Date.now() - t0 - workloadMs) / 100) / 10,
              },
            },
            null,
            1,
          )}`,
        );

        expect(service.kills - killsBefore).toBeGreaterThanOrEqual(3);
        expect(report.jobs.length).toBeGreaterThan(0);
        expect(report.violations).toEqual({
          nonTerminalJobs: [],
          pendingCharges: [],
          unbalanced: [],
          acknowledgedTopupsMissing: [],
          duplicateSends: [],
          duplicateMessageIds: [],
          stuckEmails: [],
          unlistedEmails: [],
          webhookProblems: [],
        });
      } finally {
        await receiver.stop();
      }
    },
    300_000,
  );
});

// Last, so the first life's banner has long been printed and the suite's workload is not delayed.
test("npm start prints the demo account's webhook signing secret, and the demo account's deliveries verify with it", async () => {
  // /healthz answers before the demo account is made: the banner follows it.
  const log = join(dataDir, 'server-0.log');
  expect(await until(() => readFileSync(log, 'utf8').includes('Ctrl-C stops everything'), 30_000, 50)).toBe(true);
  const banner = readFileSync(log, 'utf8');
  const apiKey = /^\s*API key\s+(\S+)$/m.exec(banner)?.[1];
  const secret = /^\s*Webhook secret\s+(whsec_\S+)/m.exec(banner)?.[1];
  expect(apiKey).toMatch(/^pk_/);
  expect(secret).toMatch(/^whsec_/);
  // A receiver holding only the printed secret, as a newcomer following the banner would run one. It checks the
  // signature of the delivery's id, timestamp and body alone: after the suite's clock moves, the timestamp is
  // the service clock's, which the library's five-minute tolerance would refuse.
  const receiver = await new FlakyWebhookReceiver(() => false).start();
  receiver.addSecret(secret!);
  try {
    const person = people.find((p) => p.phone) ?? people[0]!;
    const accepted = await client.api(apiKey!, 'POST', 'enrich/phone/', { email: person.work_email, webhook_url: receiver.url });
    expect(accepted.status).toBe(202);
    expect(await until(() => receiver.for(accepted.body.id).length > 0, 20_000, 50)).toBe(true);
    const deliveries = receiver.for(accepted.body.id);
    expect(deliveries.every((d) => d.verified)).toBe(true);
  } finally {
    await receiver.stop();
  }
}, 60_000);
