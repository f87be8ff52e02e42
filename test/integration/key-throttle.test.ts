import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { LocalStack } from '../../shared/local/stack.js';
import { startTestStack } from '../support/local.js';
import { documentClient } from '../../shared/adapters/aws.js';
import { accountsKeys } from '../../shared/accounts/accounts.keys.js';
import { addKeyDebt, takeKeyToken } from '../../shared/accounts/key-throttle.repository.js';
import { tableName } from '../../shared/catalog/resource-names.js';
import { RETENTION } from '../../shared/catalog/tables.js';

/**
 * The per-key token bucket of handler_key routes (test emails), against DynamoDB Local: the same two
 * conditional updates as in AWS, with an injected clock.
 */
let stack: LocalStack;
beforeAll(async () => {
  stack = await startTestStack({ workers: false, gateway: false });
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

const SPEC = { perMinute: 1, burst: 2 };
const T0 = Date.parse('2026-11-23T10:00:00Z');
let n = 0;
const freshKey = () => `hash-${Date.now()}-${n++}`;
const allowed = (verdicts: { allowed: boolean }[]) => verdicts.filter((v) => v.allowed).length;

test('1 per minute with a burst of 2: two pass at once, the third waits a minute, then one per minute', async () => {
  const key = freshKey();
  const at = (s: number) => takeKeyToken(key, 'POST /t/', SPEC, 1, T0 + s * 1000);
  expect([(await at(0)).allowed, (await at(1)).allowed]).toEqual([true, true]);
  const third = await at(2);
  expect(third).toEqual({ allowed: false, retryAfterSeconds: 58 });
  expect((await at(59)).allowed).toBe(false);
  expect((await at(60)).allowed).toBe(true);
  expect((await at(61)).allowed).toBe(false);
  expect((await at(120)).allowed).toBe(true);
  // A quiet spell refills the bucket to its burst, never beyond it.
  expect([(await at(600)).allowed, (await at(600)).allowed, (await at(600)).allowed]).toEqual([true, true, false]);
});

test('20 concurrent requests of one key from a full bucket: exactly the burst pass', async () => {
  const key = freshKey();
  const verdicts = await Promise.all(Array.from({ length: 20 }, () => takeKeyToken(key, 'POST /t/', SPEC, 1, T0)));
  expect(allowed(verdicts)).toBe(2);
  expect(verdicts.filter((v) => !v.allowed).every((v) => v.retryAfterSeconds === 60)).toBe(true);
});

test('buckets are per key and per route', async () => {
  const [a, b] = [freshKey(), freshKey()];
  for (const key of [a, b]) for (const route of ['POST /t/', 'GET /t/{id}/']) {
    const verdicts = [];
    for (let i = 0; i < 3; i++) verdicts.push(await takeKeyToken(key, route, SPEC, 1, T0));
    expect([key === a, route, allowed(verdicts)]).toEqual([key === a, route, 2]);
  }
});

test('the multiplier (the twin only) scales rate and burst alike', async () => {
  const key = freshKey();
  const verdicts = [];
  for (let i = 0; i < 25; i++) verdicts.push(await takeKeyToken(key, 'POST /t/', SPEC, 10, T0));
  expect(allowed(verdicts)).toBe(20);
});

test('the bucket item carries a TTL an hour past the moment it is full again, and lives apart from the key record', async () => {
  const key = freshKey();
  await takeKeyToken(key, 'POST /t/', SPEC, 1, T0);
  const item = (await documentClient().send(new GetCommand({ TableName: tableName('accounts'), Key: accountsKeys.apiKeyThrottle(key, 'POST /t/') }))).Item!;
  expect(item.pk).toBe(`RATE#${key}`);
  expect(item.tat).toBe(T0 + 60_000);
  // Full again at T0 + τ + T = T0 + 120 s.
  expect(item.expires_at).toBe(Math.floor((T0 + 120_000) / 1000) + RETENTION.key_throttle.seconds + 1);
});

test('a request may cost several tokens: it passes when that many are there, and Retry-After says when they will be', async () => {
  const key = freshKey();
  const spec = { perMinute: 60, burst: 10 };
  const at = (s: number, cost: number) => takeKeyToken(key, 'app check', spec, 1, T0 + s * 1000, cost);
  expect(await at(0, 10)).toEqual({ allowed: true, retryAfterSeconds: 0 });
  expect(await at(0, 1)).toEqual({ allowed: false, retryAfterSeconds: 1 });
  // One token back a second: at 1 s there is one, five are there at 5 s.
  expect(await at(1, 5)).toEqual({ allowed: false, retryAfterSeconds: 4 });
  expect(await at(5, 5)).toEqual({ allowed: true, retryAfterSeconds: 0 });
  expect(await at(5, 1)).toEqual({ allowed: false, retryAfterSeconds: 1 });
  // A cost past the burst is the burst (it could never pass otherwise).
  expect(await at(600, 50)).toEqual({ allowed: true, retryAfterSeconds: 0 });
  expect(await at(600, 1)).toEqual({ allowed: false, retryAfterSeconds: 1 });
});

test('a debt taken after a request takes the bucket below empty: the next request waits until it is paid, and the TTL follows', async () => {
  const key = freshKey();
  const spec = { perMinute: 60, burst: 10 };
  expect((await takeKeyToken(key, 'app read', spec, 1, T0)).allowed).toBe(true);
  await addKeyDebt(key, 'app read', spec, 20, 1, T0);
  // tat = T0 + 21 s; a request needs tat ≤ now + 9 s.
  expect(await takeKeyToken(key, 'app read', spec, 1, T0 + 1000)).toEqual({ allowed: false, retryAfterSeconds: 11 });
  expect((await takeKeyToken(key, 'app read', spec, 1, T0 + 11_000)).allowed).toBe(false);
  expect((await takeKeyToken(key, 'app read', spec, 1, T0 + 12_000)).allowed).toBe(true);
  const item = (await documentClient().send(new GetCommand({ TableName: tableName('accounts'), Key: accountsKeys.apiKeyThrottle(key, 'app read') }))).Item!;
  expect(item.tat).toBe(T0 + 22_000);
  expect(item.expires_at).toBeGreaterThanOrEqual(Math.floor((T0 + 22_000) / 1000) + RETENTION.key_throttle.seconds);
  // A debt on an idle bucket (tat in the past) starts from now.
  await addKeyDebt(key, 'app read', spec, 30, 1, T0 + 600_000);
  expect(await takeKeyToken(key, 'app read', spec, 1, T0 + 600_000)).toEqual({ allowed: false, retryAfterSeconds: 21 });
});

test('a key past its limit is refused on the tat its bucket last answered with, without a DynamoDB call, until its tokens may be back', async () => {
  const key = freshKey();
  const spec = { perMinute: 60, burst: 2 };
  let updates = 0;
  documentClient().middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'UpdateItemCommand') updates++;
      return next(args);
    },
    { step: 'initialize', name: 'throttleUpdateCounter' },
  );
  try {
    const at = (ms: number) => takeKeyToken(key, 'app read', spec, 1, T0 + ms);
    expect([(await at(0)).allowed, (await at(0)).allowed]).toEqual([true, true]);
    const before = updates;
    // tat = T0 + 2 s: the next token is there at T0 + 1 s. The first refusal asks DynamoDB, the flood after it does not.
    const flood = [];
    for (let i = 0; i < 50; i++) flood.push(await at(10 + i * 10));
    expect(flood.every((v) => !v.allowed && v.retryAfterSeconds === 1)).toBe(true);
    expect(updates - before).toBe(1);
    // Past the moment a token may be back, DynamoDB decides again.
    expect((await at(1000)).allowed).toBe(true);
    expect(updates - before).toBe(3);
  } finally {
    documentClient().middlewareStack.remove('throttleUpdateCounter');
  }
});
