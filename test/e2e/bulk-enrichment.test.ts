import type { LocalStack } from '../../shared/local/stack.js';
import type { Person } from '../../shared/directory/types.js';
import { PRICES } from '../../shared/accounts/prices.js';
import { Client, newTenant, reply, settleStack, startTestServices, type TestServices } from '../support/local.js';
import type { WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * Bulk enrichment (issue 34 item 1; docs/decisions.md#decisions-the-contract-leaves-open) from outside, as a client: 100 mixed items charge exactly what
 * the same 100 single calls charge on another account, with one signed webhook and per-item results in input
 * order; an invalid item is its own uncharged `invalid_input`; Idempotency-Key, 402, 409 and the 400s.
 */
let services: TestServices | undefined;
let stack: LocalStack;
let receiver: WebhookReceiver;
let admin: Client;
let people: Person[] = [];

beforeAll(async () => {
  const started = await startTestServices({ throttleMultiplier: 1000, directory: { people: 400, seed: 11 }, webhookReceiver: true });
  ({ stack, admin, receiver } = services = started);
  ({ people } = await started.readDirectory());
}, 120_000);
afterAll(async () => services?.stop());

const tenant = (account: Record<string, unknown> = {}) => newTenant(stack, account, { webhookReceiver: receiver });

const balance = async (accountId: string) => (await admin.console('GET', `accounts/${accountId}/`)).body.balance as number;
const charges = async (accountId: string) => (await admin.console('GET', `accounts/${accountId}/charges/?limit=200`)).body.results as any[];
const www = (url: string) => `https://www.${url}/`;

type Item = Record<string, unknown> & { kind: 'email' | 'professional_url' | 'professional_profile' | 'phone' };

/** 100 items, the four kinds interleaved, hits and misses of each (misses name people the directory does not hold). */
function mixedItems(): Item[] {
  const withEmail = people.filter((p) => p.work_email);
  const withPhone = people.filter((p) => p.phone);
  const withoutPhone = people.filter((p) => !p.phone);
  const items: Item[] = [];
  for (let i = 0; i < 25; i++) {
    const p = withEmail[i]!;
    const email: Item = i < 3
      ? { kind: 'email', first_name: p.first_name, last_name: p.last_name, domain: p.work_email!.split('@')[1]! }
      : i < 5 ? { kind: 'email', professional_url: `linkedin.com/in/nobody-here-${i}` } : { kind: 'email', professional_url: www(p.professional_url) };
    const q = withEmail[25 + i]!;
    const url: Item = i < 3 ? { kind: 'professional_url', email: `nobody${i}@nowhere-${i}.example` } : { kind: 'professional_url', email: q.work_email! };
    const r = people[60 + i]!;
    const profile: Item = i < 2 ? { kind: 'professional_profile', professional_url: `https://www.linkedin.com/in/no-profile-${i}` } : { kind: 'professional_profile', professional_url: r.professional_url };
    const s = i < 18 ? withPhone[i]! : withoutPhone[i]!;
    const phone: Item = i % 5 === 0 ? { kind: 'phone', email: s.work_email ?? `x${i}@nowhere.example` } : { kind: 'phone', professional_url: s.professional_url };
    items.push(email, url, profile, phone);
  }
  return items;
}

const SINGLE_PATH = {
  email: '/api/public/v1/enrich/email/',
  professional_url: '/api/public/v1/enrich/professional-url/',
  professional_profile: '/api/public/v1/enrich/professional-profile/',
} as const;

/** The same items as single calls, one after another; what each answered, in the bulk result's terms. */
async function singly(client: Client, items: Item[]): Promise<{ status: string; data: unknown }[]> {
  const out: { status: string; data: unknown; job?: string }[] = [];
  for (const { kind, ...body } of items) {
    if (kind === 'phone') {
      const r = await reply(client.typed.POST('/api/public/v1/enrich/phone/', { body: { ...(body as any), webhook_url: receiver.url } }));
      expect(r.status).toBe(202);
      out.push({ status: 'pending', data: null, job: r.body.id });
      continue;
    }
    const r = await reply(client.typed.POST(SINGLE_PATH[kind], { body: body as any }));
    expect([200, 404]).toContain(r.status);
    out.push({ status: r.status === 200 ? 'found' : 'not_found', data: r.status === 200 ? r.body : null });
  }
  await settleStack(admin);
  for (const o of out.filter((x) => x.job)) {
    const r = await reply(client.typed.GET('/api/public/v1/enrich/phone/{job_id}/', { params: { path: { job_id: o.job! } } }));
    const phone = r.body.result.phone as string | null;
    Object.assign(o, { status: phone ? 'found' : 'not_found', data: phone ? { phone } : null });
    delete o.job;
  }
  return out;
}

/** The audit records as a sorted list of (operation, status, charged), the bulk call's own record left out. */
const ledgerLines = (list: any[]) => list.filter((c) => c.operation !== 'bulk_enrich').map((c) => `${c.operation} ${c.charge_status} ${c.charged}`).sort();

describe('bulk enrichment', () => {
  test('bulk enrichment of 100 mixed items charges exactly what 100 single calls would, with one webhook and per-item results in input order', async () => {
    const items = mixedItems();
    const bulk = await tenant({ credits: 5000 });
    const one = await tenant({ credits: 5000 });
    const start = await balance(bulk.accountId);

    const accepted = await reply(bulk.client.typed.POST('/api/public/v1/enrich/bulk/', { body: { items: items as any, webhook_url: receiver.url } }));
    expect(accepted.status).toBe(202);
    expect(Object.keys(accepted.body).sort()).toEqual(['created_at', 'id', 'status']);
    // Reserved at acceptance: every item's single-call price (a phone's 50 until its miss is known).
    const most = items.reduce((n, i) => n + { email: 5, professional_url: 3, professional_profile: 2, phone: 50 }[i.kind], 0);
    expect(await balance(bulk.accountId)).toBe(start - most);
    await settleStack(admin);

    const polled = await reply(bulk.client.typed.GET('/api/public/v1/enrich/bulk/{job_id}/', { params: { path: { job_id: accepted.body.id } } }));
    expect(polled.body).toMatchObject({ id: accepted.body.id, status: 'completed', tier: 'bulk_enrich', error: null });
    const results = polled.body.result.results as any[];
    expect(results.map((r) => [r.index, r.kind])).toEqual(items.map((it, i) => [i, it.kind]));

    const expected = await singly(one.client, items);
    expect(results.map((r) => ({ status: r.status, data: r.data }))).toEqual(expected);
    // Hits and misses of every kind were in the mix.
    for (const kind of ['email', 'professional_url', 'professional_profile', 'phone']) {
      expect(new Set(results.filter((r) => r.kind === kind).map((r) => r.status))).toEqual(new Set(['found', 'not_found']));
    }
    const spent = start - (await balance(bulk.accountId));
    expect(spent).toBe(start - (await balance(one.accountId)));
    expect(polled.body.result.credits_charged).toBe(spent);
    expect(results.reduce((n, r) => n + r.credits_charged, 0)).toBe(spent);
    expect(polled.body.leads_returned).toBe(results.filter((r) => r.status === 'found').length);

    // One charge record per item, settled as its single call's; the bulk call's own record ends holding nothing.
    const bulkLedger = await charges(bulk.accountId);
    expect(ledgerLines(bulkLedger)).toEqual(ledgerLines(await charges(one.accountId)));
    expect(bulkLedger.filter((c) => c.reference === accepted.body.id)).toHaveLength(items.length + 1);
    expect(bulkLedger.filter((c) => c.operation === 'bulk_enrich').map((c) => [c.charge_status, c.reserved, c.charged])).toEqual([['released', 0, 0]]);
    expect(bulkLedger.every((c) => c.charge_status !== 'pending')).toBe(true);

    const hooks = receiver.for(accepted.body.id);
    expect(hooks).toHaveLength(1);
    expect(hooks[0]!.verified).toBe(true);
    expect(hooks[0]!.body).toEqual({ id: accepted.body.id, event_type: 'bulk_enrich.completed', ...polled.body.result });
  }, 120_000);

  test('a malformed item is its own invalid_input result, never charged; the other items go on', async () => {
    const t = await tenant();
    const start = await balance(t.accountId);
    const p = people.find((x) => x.work_email)!;
    const items = [
      { kind: 'email' },
      { kind: 'fax', email: p.work_email },
      'not an item',
      { kind: 'professional_profile', professional_url: 'https://example.com/jane' },
      { kind: 'email', professional_url: p.professional_url, webhook_url: receiver.url },
      { kind: 'professional_url', email: p.work_email, first_name: 'Mixed', last_name: 'Shapes', domain: 'example.com' },
      { kind: 'email', professional_url: p.professional_url },
    ];
    const r = await t.client.api('POST', 'enrich/bulk/', { items, webhook_url: receiver.url });
    expect(r.status).toBe(202);
    expect(await balance(t.accountId)).toBe(start - PRICES.email_enrich);
    await settleStack(admin);
    const polled = await t.client.api('GET', `enrich/bulk/${r.body.id}/`);
    const results = polled.body.result.results as any[];
    expect(results.map((x) => [x.index, x.kind, x.status, x.credits_charged, x.error?.code ?? null])).toEqual([
      [0, 'email', 'invalid_input', 0, 'invalid_input'],
      [1, null, 'invalid_input', 0, 'invalid_input'],
      [2, null, 'invalid_input', 0, 'invalid_input'],
      [3, 'professional_profile', 'invalid_input', 0, 'invalid_input'],
      [4, 'email', 'invalid_input', 0, 'invalid_input'],
      [5, 'professional_url', 'invalid_input', 0, 'invalid_input'],
      [6, 'email', 'found', PRICES.email_enrich, null],
    ]);
    expect(results[1].error.message).toMatch(/kind must be one of/);
    expect(results[4].error.message).toMatch(/webhook_url/);
    expect(results[6].data).toEqual({ email: p.work_email, email_status: 'unknown', email_status_reason: 'unverified' });
    expect(await balance(t.accountId)).toBe(start - PRICES.email_enrich);
    const ledger = (await charges(t.accountId)).filter((c) => c.operation !== 'bulk_enrich');
    expect(ledger).toHaveLength(7);
    expect(ledger.filter((c) => c.charged > 0).map((c) => c.operation)).toEqual(['email_enrich']);
    expect(ledger.filter((c) => c.charge_status === 'released')).toHaveLength(6);
  }, 60_000);

  test('Idempotency-Key: the same key and body return the same job and reserve nothing more; another body is 409', async () => {
    const t = await tenant();
    const p = people[5]!;
    const body = { items: [{ kind: 'professional_profile' as const, professional_url: p.professional_url }], webhook_url: receiver.url };
    const headers = { 'Idempotency-Key': 'bulk-key-1' };
    const first = await reply(t.client.typed.POST('/api/public/v1/enrich/bulk/', { body, params: { header: headers } }));
    expect(first.status).toBe(202);
    const afterFirst = await balance(t.accountId);
    const again = await reply(t.client.typed.POST('/api/public/v1/enrich/bulk/', { body, params: { header: headers } }));
    expect(again.status).toBe(202);
    expect(again.body.id).toBe(first.body.id);
    expect(await balance(t.accountId)).toBe(afterFirst);
    const other = await reply(t.client.typed.POST('/api/public/v1/enrich/bulk/', { body: { ...body, items: [{ kind: 'professional_profile', professional_url: people[6]!.professional_url }] }, params: { header: headers } }));
    expect(other.status).toBe(409);
    await settleStack(admin);
    const replayed = await reply(t.client.typed.POST('/api/public/v1/enrich/bulk/', { body, params: { header: headers } }));
    expect([replayed.status, replayed.body.id, replayed.body.status]).toEqual([202, first.body.id, 'completed']);
    expect((await charges(t.accountId)).filter((c) => c.operation === 'professional_profile_enrich')).toHaveLength(1);
    expect(receiver.for(first.body.id)).toHaveLength(1);
  }, 60_000);

  test('402 when the balance cannot cover every item, 409 without a signing secret; nothing reserved', async () => {
    const poor = await tenant({ credits: 57 });
    const p = people[7]!;
    const items = [{ kind: 'phone', professional_url: p.professional_url }, { kind: 'email', professional_url: p.professional_url }, { kind: 'professional_url', email: 'a@b.example' }];
    const r = await poor.client.api('POST', 'enrich/bulk/', { items, webhook_url: receiver.url });
    expect([r.status, r.body.error.code]).toEqual([402, 'insufficient_credits']);
    expect(await balance(poor.accountId)).toBe(57);
    const noSecret = await newTenant(stack);
    const s = await noSecret.client.api('POST', 'enrich/bulk/', { items, webhook_url: receiver.url });
    expect([s.status, s.body.error.code]).toEqual([409, 'conflict']);
  }, 60_000);

  test('400 for a body that is not an object, no items, more than 100, an unknown field or a bad webhook_url; audited as released', async () => {
    const t = await tenant();
    const item = { kind: 'email', professional_url: people[0]!.professional_url };
    for (const bad of [[item], { webhook_url: receiver.url }, { items: [], webhook_url: receiver.url }, { items: Array(101).fill(item), webhook_url: receiver.url }, { items: [item], webhook_url: receiver.url, surprise: 1 }, { items: [item] }, { items: [item], webhook_url: 'https://10.0.0.1/hook' }]) {
      const r = await t.client.api('POST', 'enrich/bulk/', bad);
      expect([r.status, r.body.error.code]).toEqual([400, 'invalid_request']);
    }
    expect((await charges(t.accountId)).map((c) => [c.charge_status, c.charged])).toEqual(Array(7).fill(['released', 0]));
  }, 60_000);
});
