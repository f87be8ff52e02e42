import type { LocalStack } from '../../shared/local/stack.js';
import { Client, newTenant, startTestStack, reply } from '../support/local.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let stack: LocalStack;
let admin: Client;

beforeAll(async () => {
  stack = await startTestStack();
  admin = new Client(stack);
});
afterAll(async () => {
  await stack?.stop();
});

// The public API is called through the typed client; `client.api` remains for what the document does not
// describe: unknown paths and a method a route does not have.
describe('the local gateway behaves like API Gateway', () => {
  test('readiness', async () => {
    const r = await admin.call('GET', `http://localhost:${stack.port}/healthz`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: 'ok' });
  });

  test('missing key → 403 Forbidden with a request id', async () => {
    const r = await reply(new Client(stack).typed.GET('/api/public/v1/email/accounts/'));
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ message: 'Forbidden' });
    expect(r.headers.get('x-request-id')).toMatch(UUID);
  });

  test('unknown key and Bearer-prefixed key → 403 Forbidden', async () => {
    const t = await newTenant(stack);
    expect((await reply(new Client(stack, 'pk_not-a-real-key').typed.GET('/api/public/v1/email/accounts/'))).body).toEqual({ message: 'Forbidden' });
    const bearer = await reply(new Client(stack, `Bearer ${t.apiKey}`).typed.GET('/api/public/v1/email/accounts/'));
    expect(bearer.status).toBe(403);
    expect(bearer.body).toEqual({ message: 'Forbidden' });
    const ok = await reply(t.client.typed.GET('/api/public/v1/email/accounts/'));
    expect(ok.status).toBe(200);
  });

  test('unknown path and missing trailing slash → 403 Missing Authentication Token', async () => {
    const t = await newTenant(stack);
    for (const path of ['email/accounts', 'nope/', 'email/accounts/x/']) {
      const r = await t.client.api('GET', path);
      expect(r.status).toBe(403);
      expect(r.body).toEqual({ message: 'Missing Authentication Token' });
      expect(r.headers.get('x-request-id')).toMatch(UUID);
    }
    // A registered path with an unregistered method is also unknown to API Gateway.
    const wrongMethod = await t.client.api('DELETE', 'email/accounts/');
    expect(wrongMethod.body).toEqual({ message: 'Missing Authentication Token' });
  });

  test('every response carries a distinct UUID request id', async () => {
    const t = await newTenant(stack);
    const a = await reply(t.client.typed.GET('/api/public/v1/email/accounts/'));
    const b = await reply(t.client.typed.GET('/api/public/v1/email/accounts/'));
    expect(a.headers.get('x-request-id')).toMatch(UUID);
    expect(b.headers.get('x-request-id')).toMatch(UUID);
    expect(a.headers.get('x-request-id')).not.toBe(b.headers.get('x-request-id'));
  });

  test('revocation is effective at the next request; other keys keep working', async () => {
    const t = await newTenant(stack);
    const second = await admin.console('POST', `accounts/${t.accountId}/api-keys/`);
    expect((await reply(t.client.typed.GET('/api/public/v1/email/accounts/'))).status).toBe(200);
    const del = await admin.console('DELETE', `accounts/${t.accountId}/api-keys/${t.keyId}/`);
    expect(del.status).toBe(204);
    const after = await reply(t.client.typed.GET('/api/public/v1/email/accounts/'));
    expect(after.status).toBe(403);
    expect(after.body).toEqual({ message: 'Forbidden' });
    expect((await reply(new Client(stack, second.body.key).typed.GET('/api/public/v1/email/accounts/'))).status).toBe(200);
  });

  test('throttling is per key: the burst is honoured, then 429; another key is unaffected', async () => {
    const a = await newTenant(stack);
    const b = await newTenant(stack);
    // GET /email/accounts/ has burst 50 and refills at 10/s (600/min, docs/decisions.md#decisions-the-contract-leaves-open): fire 200 at once.
    const t0 = Date.now();
    const replies = await Promise.all(Array.from({ length: 200 }, () => reply(a.client.typed.GET('/api/public/v1/email/accounts/'))));
    const elapsedMs = Date.now() - t0;
    const ok = replies.filter((r) => r.status === 200).length;
    const limited = replies.filter((r) => r.status === 429);
    expect(ok).toBeGreaterThanOrEqual(50);
    // Never more than the burst plus what refilled while the requests were in flight.
    expect(ok).toBeLessThanOrEqual(50 + Math.ceil(elapsedMs / 100) + 1);
    expect(limited.length).toBeGreaterThan(0);
    expect(limited.length).toBe(200 - ok);
    expect(limited[0]!.body).toEqual({ message: 'Too Many Requests' });
    expect(limited[0]!.headers.get('x-request-id')).toMatch(UUID);
    expect((await reply(b.client.typed.GET('/api/public/v1/email/accounts/'))).status).toBe(200);
  });

  test('docs/decisions.md#limits throttles hold per route: POST /search/ allows a burst of 2', async () => {
    const t = await newTenant(stack);
    const body = { query: 'cto', max_results: 25, webhook_url: 'http://127.0.0.1:9/hook' };
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await reply(t.client.typed.POST('/api/public/v1/search/', { body: body }))).status);
    // No signing secret: the first two reach the handler (409); the third is stopped at the gateway.
    expect(statuses).toEqual([409, 409, 429]);
    expect((await reply(t.client.typed.GET('/api/public/v1/email/accounts/'))).status).toBe(200);
  });

  test('an account not eligible for the public API → 403 permission_denied', async () => {
    const t = await newTenant(stack, { public_api: false });
    const r = await reply(t.client.typed.GET('/api/public/v1/email/accounts/'));
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe('permission_denied');
  });
});

describe('console API', () => {
  test('requires the admin token', async () => {
    const r = await admin.call('POST', `${stack.consoleUrl}accounts/`, { name: 'x' });
    expect(r.status).toBe(403);
    const wrong = await admin.call('POST', `${stack.consoleUrl}accounts/`, { name: 'x' }, { 'x-admin-token': 'wrong' });
    expect(wrong.status).toBe(403);
  });

  test('accounts: defaults, read back, validation, unknown fields rejected', async () => {
    const created = await admin.console('POST', 'accounts/', { name: 'Acme' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^acct_[0-9a-z]{26}$/),
      name: 'Acme',
      balance: 1250,
      public_api: true,
      agentic_search: false,
      pilot: false,
      auto_recharge: false,
      attachments_enabled: false,
      followup_days: [3, 7, 14],
      created_at: expect.any(String),
    });
    expect(new Date(created.body.created_at).toISOString()).toBe(created.body.created_at);
    const read = await admin.console('GET', `accounts/${created.body.id}/`);
    expect(read.body).toEqual(created.body);
    const bad = await admin.console('POST', 'accounts/', { name: 'x', credits: -1, extra: true });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_request');
    expect(bad.body.error.details.map((d: { path: string }) => d.path).sort()).toEqual(expect.arrayContaining(['credits']));
    expect((await admin.console('GET', 'accounts/acct_00000000000000000000000000/')).status).toBe(404);
  });

  test('malformed JSON → 400 invalid_request', async () => {
    const r = await admin.call('POST', `${stack.consoleUrl}accounts/`, '{"name":', { 'x-admin-token': stack.adminToken });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('invalid_request');
  });

  test('API keys are shown once and stored hashed', async () => {
    const a = await admin.console('POST', 'accounts/', { name: 'Keys' });
    const k = await admin.console('POST', `accounts/${a.body.id}/api-keys/`);
    expect(k.status).toBe(201);
    expect(Object.keys(k.body).sort()).toEqual(['id', 'key']);
    expect(k.body.key.length).toBeGreaterThan(40);
    const { ScanCommand } = await import('@aws-sdk/lib-dynamodb');
    const { documentClient } = await import('../../shared/adapters/aws.js');
    const all = await documentClient().send(new ScanCommand({ TableName: process.env.ACCOUNTS_TABLE_NAME }));
    expect(JSON.stringify(all.Items)).not.toContain(k.body.key);
  });

  test('webhook signing secrets: whsec_, sealed at rest, revocable', async () => {
    const a = await admin.console('POST', 'accounts/', { name: 'Hooks' });
    const s = await admin.console('POST', `accounts/${a.body.id}/webhook-secrets/`);
    expect(s.status).toBe(201);
    expect(s.body.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{20,}$/);
    const { ScanCommand } = await import('@aws-sdk/lib-dynamodb');
    const { documentClient } = await import('../../shared/adapters/aws.js');
    const all = await documentClient().send(new ScanCommand({ TableName: process.env.ACCOUNTS_TABLE_NAME }));
    expect(JSON.stringify(all.Items)).not.toContain(s.body.secret.slice(6));
    expect((await admin.console('DELETE', `accounts/${a.body.id}/webhook-secrets/${s.body.id}/`)).status).toBe(204);
    expect((await admin.console('DELETE', `accounts/${a.body.id}/webhook-secrets/whsec_nope/`)).status).toBe(404);
  });

  test('credits top-up and charge list', async () => {
    const a = await admin.console('POST', 'accounts/', { name: 'Credits', credits: 10 });
    const top = await admin.console('POST', `accounts/${a.body.id}/credits/`, { amount: 15 });
    expect(top.status).toBe(200);
    expect(top.body.balance).toBe(25);
    expect((await admin.console('POST', `accounts/${a.body.id}/credits/`, { amount: 0 })).status).toBe(400);
    const charges = await admin.console('GET', `accounts/${a.body.id}/charges/`);
    expect(charges.status).toBe(200);
    expect(charges.body).toEqual({ results: [], next_cursor: null });
  });

  test('pilot flag: at most PILOT_ACCOUNT_LIMIT accounts', async () => {
    // The default limit is 3; earlier accounts in this file hold none.
    for (let i = 0; i < 3; i++) expect((await admin.console('POST', 'accounts/', { name: `p${i}`, pilot: true })).status).toBe(201);
    const fourth = await admin.console('POST', 'accounts/', { name: 'p4', pilot: true });
    expect(fourth.status).toBe(409);
    expect(fourth.body.error.code).toBe('conflict');
  });

  test('sending accounts: every SPEC field, defaults, PATCH, tenant isolation', async () => {
    const a = await newTenant(stack);
    const b = await newTenant(stack);
    const created = await admin.console('POST', `accounts/${a.accountId}/sending-accounts/`, { email: 'rep@acme.test', type: 'microsoft' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^ea_[0-9a-z]{26}$/),
      email: 'rep@acme.test',
      type: 'microsoft',
      connected: true,
      sending_enabled: true,
      // A new mailbox warms up (docs/decisions.md#decisions-the-contract-leaves-open): the effective limit is the ramp's first step, the configured one beside it.
      daily_limit: 20,
      configured_daily_limit: 50,
      sent_today: 0,
      health: 'warming_up',
      warmup: { started_at: expect.any(String), day: 1, ramp_limit: 20, complete: false },
      engagement: { window_days: 7, sent: 0, bounced_hard: 0, complained: 0, bounce_rate: 0, complaint_rate: 0 },
      timezone: 'UTC',
    });
    expect((await admin.console('POST', `accounts/${a.accountId}/sending-accounts/`, { email: 'x@acme.test', type: 'pigeon' })).status).toBe(400);
    const patched = await admin.console('PATCH', `sending-accounts/${created.body.id}/`, { connected: false, health: 'reauth_required', daily_limit: 20 });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ connected: false, health: 'reauth_required', daily_limit: 20 });
    expect((await admin.console('PATCH', `sending-accounts/ea_00000000000000000000000000/`, { connected: true })).status).toBe(404);

    const listA = await reply(a.client.typed.GET('/api/public/v1/email/accounts/'));
    expect(listA.status).toBe(200);
    expect(listA.body).toEqual({
      accounts: [
        {
          id: created.body.id,
          email: 'rep@acme.test',
          type: 'microsoft',
          connected: false,
          sending_enabled: true,
          daily_limit: 20,
          sent_today: 0,
          health: 'reauth_required',
          configured_daily_limit: 20,
          warmup: { started_at: created.body.warmup.started_at, day: 1, ramp_limit: null, complete: true },
        },
      ],
    });
    const listB = await reply(b.client.typed.GET('/api/public/v1/email/accounts/'));
    expect(listB.body).toEqual({ accounts: [] });
  });
});
