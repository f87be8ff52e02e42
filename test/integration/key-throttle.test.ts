import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { LocalStack } from '../../shared/local/stack.js';
import { startTestStack } from '../support/local.js';
import { documentClient } from '../../shared/adapters/aws.js';
import { accountsKeys } from '../../shared/accounts/accounts.keys.js';
import { takeKeyToken } from '../../shared/accounts/key-throttle.repository.js';
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
