import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { LocalStack } from '../../shared/local/stack.js';
import { documentClient } from '../../shared/adapters/aws.js';
import { hashApiKey } from '../../shared/core/api-key-values.js';
import { accountsKeys } from '../../shared/accounts/accounts.keys.js';
import { Client, newTenant, startTestStack, reply } from '../support/local.js';
import { dynamoCallCounter } from '../support/probes.js';

/**
 * The edge path of a public API key on the local gateway: the stack's authorizer module runs before the
 * handler, its answer cached per key for the TTL, and the handler's own read of the key record is what
 * refuses a key revoked inside that TTL. DynamoDB calls are counted on the document client the gateway
 * (authorizer) and the handlers share.
 */
let stack: LocalStack;
let admin: Client;
let callsOf: ReturnType<typeof dynamoCallCounter>;

beforeAll(async () => {
  stack = await startTestStack({ workers: false });
  admin = new Client(stack);
  callsOf = dynamoCallCounter('authorizerCallCounter');
});
afterAll(async () => {
  await stack?.stop();
});

const NO_SUCH_JOB = 'dj_00000000000000000000000000';

describe('API keys through the authorizer path', () => {
  test('the key record holds a usage identifier that is neither the key nor its hash', async () => {
    const t = await newTenant(stack);
    const record = (await documentClient().send(new GetCommand({ TableName: process.env.ACCOUNTS_TABLE_NAME, Key: accountsKeys.apiKeyLookup(hashApiKey(t.apiKey)), ConsistentRead: true }))).Item!;
    expect(record.usage_identifier).toMatch(/^[A-Za-z0-9]{20,128}$/);
    expect(record.usage_identifier).not.toBe(t.apiKey);
    expect(record.usage_identifier).not.toBe(hashApiKey(t.apiKey));
    expect(JSON.stringify(record)).not.toContain(t.apiKey);
  });

  test('a key revoked while its Allow is cached is refused at the very next request, by the handler’s read', async () => {
    const t = await newTenant(stack);
    const first = await callsOf(() => reply(t.client.typed.GET('/api/public/v1/search/{job_id}/', { params: { path: { job_id: NO_SUCH_JOB } } })));
    expect(first.value.status).toBe(404);
    // The authorizer's read, then the handler's, and the key's first use in the hour recorded beside it.
    expect(first.calls).toEqual(['GetItemCommand', 'BatchGetItemCommand', 'TransactWriteItemsCommand']);

    expect((await admin.console('DELETE', `accounts/${t.accountId}/api-keys/${t.keyId}/`)).status).toBe(204);
    const next = await callsOf(() => reply(t.client.typed.GET('/api/public/v1/search/{job_id}/', { params: { path: { job_id: NO_SUCH_JOB } } })));
    expect(next.value.status).toBe(403);
    expect(next.value.body).toEqual({ message: 'Forbidden' });
    // No authorizer read: the edge let it through on its cached Allow; the handler's read refused it.
    expect(next.calls).toEqual(['BatchGetItemCommand']);
  });

  test('a key revoked before the edge met it is refused by the authorizer, and the handler never runs', async () => {
    const t = await newTenant(stack);
    expect((await admin.console('DELETE', `accounts/${t.accountId}/api-keys/${t.keyId}/`)).status).toBe(204);
    const r = await callsOf(() => reply(t.client.typed.GET('/api/public/v1/search/{job_id}/', { params: { path: { job_id: NO_SUCH_JOB } } })));
    expect(r.value.status).toBe(403);
    expect(r.value.body).toEqual({ message: 'Forbidden' });
    expect(r.calls).toEqual(['GetItemCommand']);
  });

  test('a burst of an unknown key answers 403, never 429, even past the route’s burst', async () => {
    // POST /search/ allows a burst of 2 per key (docs/decisions.md#limits).
    const stranger = new Client(stack, 'pk_never-issued');
    const burst = await callsOf(() => Promise.all(Array.from({ length: 30 }, () => reply(stranger.typed.POST('/api/public/v1/search/', { body: { query: 'cto', max_results: 25, webhook_url: 'http://127.0.0.1:9/hook' } })))));
    expect(burst.value.map((r) => r.status)).toEqual(Array(30).fill(403));
    for (const r of burst.value) expect(r.body).toEqual({ message: 'Forbidden' });
    // One authorizer read for the whole burst: its Deny is shared and cached.
    expect(burst.calls).toEqual(['GetItemCommand']);
  });

  test('throttles count per key (usage identifier), not per account: a second key of the same account is not held back', async () => {
    const t = await newTenant(stack);
    const second = new Client(stack, (await admin.console('POST', `accounts/${t.accountId}/api-keys/`)).body.key);
    const body = { query: 'cto', max_results: 25, webhook_url: 'http://127.0.0.1:9/hook' };
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await reply(t.client.typed.POST('/api/public/v1/search/', { body: body }))).status);
    // No signing secret: the handler answers 409 for the two the burst admits; the third is throttled.
    expect(statuses).toEqual([409, 409, 429]);
    expect((await reply(second.typed.POST('/api/public/v1/search/', { body: body }))).status).toBe(409);
  });
});
