import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../shared/adapters/aws.js';
import { accountsKeys as K } from '../../shared/accounts/accounts.keys.js';
import { hashApiKey } from '../../shared/core/api-key-values.js';
import { KEY_USE_GRANULARITY_MS, keyUseDue } from '../../shared/accounts/key-use.repository.js';
import { tableName } from '../../shared/catalog/resource-names.js';
import type { LocalStack } from '../../shared/local/stack.js';
import { newAppTenant } from '../support/app-users.js';
import { startTestStack, reply } from '../support/local.js';

let stack: LocalStack;

beforeAll(async () => {
  stack = await startTestStack({ userPool: true, workers: false, throttleMultiplier: 100 });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

const keyRecord = async (apiKey: string) =>
  (await documentClient().send(new GetCommand({ TableName: tableName('accounts'), Key: K.apiKeyLookup(hashApiKey(apiKey)), ConsistentRead: true }))).Item;

test('a call with a key sets its last-used time on the app\'s keys page; a second call within the hour writes nothing', async () => {
  const tenant = await newAppTenant(stack, 'last-used@example.com');
  const listed = async () => ((await tenant.app.route('GET', 'api-keys/')).body.results as { id: string; last_used_at: string | null }[]).find((k) => k.id === tenant.keyId)!;
  expect((await listed()).last_used_at).toBeNull();

  const before = Date.now();
  expect((await reply(tenant.client.typed.GET('/api/public/v1/email/accounts/'))).status).toBe(200);
  const first = (await listed()).last_used_at;
  expect(first).not.toBeNull();
  expect(Date.parse(first!)).toBeGreaterThanOrEqual(before - 1000);
  expect((await keyRecord(tenant.apiKey))!.last_used_at).toBe(first);

  await new Promise((r) => setTimeout(r, 20));
  expect((await reply(tenant.client.typed.GET('/api/public/v1/email/accounts/'))).status).toBe(200);
  expect((await listed()).last_used_at).toBe(first);
  expect((await keyRecord(tenant.apiKey))!.last_used_at).toBe(first);
}, 120_000);

test('a use is due with no time recorded, or once the recorded one is an hour old', () => {
  const now = new Date('2026-11-23T12:00:00.000Z');
  expect(keyUseDue(null, now)).toBe(true);
  expect(keyUseDue(new Date(now.getTime() - KEY_USE_GRANULARITY_MS + 1).toISOString(), now)).toBe(false);
  expect(keyUseDue(new Date(now.getTime() - KEY_USE_GRANULARITY_MS).toISOString(), now)).toBe(true);
});
