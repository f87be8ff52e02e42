import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { LocalStack } from '../../shared/local/stack.js';
import { documentClient } from '../../shared/adapters/aws.js';
import { hashApiKey } from '../../shared/core/api-key-values.js';
import type { Job } from '../../shared/jobs/model.js';
import { jobsKeys } from '../../shared/jobs/jobs.keys.js';
import { newId } from '../../shared/core/ids.js';
import { accountsKeys } from '../../shared/accounts/accounts.keys.js';
import { Client, newTenant, startTestStack, reply } from '../support/local.js';
import { dynamoCallCounter } from '../support/probes.js';

/**
 * What an authenticated read costs in DynamoDB calls, counted by an SDK middleware on the document client
 * the gateway and every handler share, and what it must still honour: revocation at the next request and
 * the account's public_api flag.
 */
let stack: LocalStack;
let admin: Client;
let countCalls: ReturnType<typeof dynamoCallCounter>;

beforeAll(async () => {
  stack = await startTestStack({ throttleMultiplier: 1000 });
  admin = new Client(stack);
  countCalls = dynamoCallCounter('roundTripCounter');
});
afterAll(async () => {
  await stack?.stop();
});

/** The edge authorizer's read of a key it has not met within its TTL; later requests of that key skip it. */
const AUTHORIZER_READ = 'GetItemCommand';
/** A key's first request in an hour also records its "last used" (shared/accounts/key-use.repository.ts): one write an hour, beside the read. */
const KEY_USE_WRITE = 'TransactWriteItemsCommand';

async function callsOf<T>(fn: () => Promise<T>): Promise<{ calls: string[]; value: T }> {
  expect(await stack.settle(30_000)).toBe(true);
  return countCalls(fn);
}

async function completedJob(accountId: string, keyId: string, status: Job['status'] = 'completed'): Promise<string> {
  const id = newId('dj');
  const now = new Date().toISOString();
  const job: Job = {
    id,
    account_id: accountId,
    key_id: keyId,
    tier: 'people_search',
    status,
    created_at: now,
    updated_at: now,
    completed_at: now,
    leads_returned: 0,
    result: { results: [], total_returned: 0 },
    error: null,
    request: {},
    charge_id: 'ch_none',
  };
  await documentClient().send(new PutCommand({ TableName: process.env.JOBS_TABLE_NAME, Item: { ...jobsKeys.job(id), ...job } }));
  return id;
}

describe('one DynamoDB round trip per authenticated read', () => {
  test('a poll reads the key record and the job in one BatchGetItem; a revocation holds at the next poll', async () => {
    const t = await newTenant(stack);
    const jobId = await completedJob(t.accountId, t.keyId);
    const first = await callsOf(() => reply(t.client.typed.GET('/api/public/v1/search/{job_id}/', { params: { path: { job_id: jobId } } })));
    expect(first.calls).toEqual([AUTHORIZER_READ, 'BatchGetItemCommand', KEY_USE_WRITE]);
    const poll = await callsOf(() => reply(t.client.typed.GET('/api/public/v1/search/{job_id}/', { params: { path: { job_id: jobId } } })));
    expect(poll.value.status).toBe(200);
    expect(poll.value.body).toMatchObject({ id: jobId, status: 'completed', tier: 'people_search', result: { results: [], total_returned: 0 } });
    expect(poll.calls).toEqual(['BatchGetItemCommand']);

    expect((await reply(t.client.typed.GET('/api/public/v1/enrich/phone/{job_id}/', { params: { path: { job_id: jobId } } }))).status).toBe(404);
    const other = await newTenant(stack);
    const foreign = await callsOf(() => reply(other.client.typed.GET('/api/public/v1/search/{job_id}/', { params: { path: { job_id: jobId } } })));
    expect(foreign.value.status).toBe(404);
    expect(foreign.calls).toEqual([AUTHORIZER_READ, 'BatchGetItemCommand', KEY_USE_WRITE]);

    expect((await admin.console('DELETE', `accounts/${t.accountId}/api-keys/${t.keyId}/`)).status).toBe(204);
    const revoked = await reply(t.client.typed.GET('/api/public/v1/search/{job_id}/', { params: { path: { job_id: jobId } } }));
    expect(revoked.status).toBe(403);
    expect(revoked.body).toEqual({ message: 'Forbidden' });
  });

  test('an unfinished job is read on every poll; a finished one is held and never changes', async () => {
    const t = await newTenant(stack);
    const jobId = await completedJob(t.accountId, t.keyId, 'running');
    expect((await reply(t.client.typed.GET('/api/public/v1/search/{job_id}/', { params: { path: { job_id: jobId } } }))).body.status).toBe('running');
    await documentClient().send(
      new UpdateCommand({ TableName: process.env.JOBS_TABLE_NAME, Key: jobsKeys.job(jobId), UpdateExpression: 'SET #s = :c', ExpressionAttributeNames: { '#s': 'status' }, ExpressionAttributeValues: { ':c': 'completed' } }),
    );
    const after = await callsOf(() => reply(t.client.typed.GET('/api/public/v1/search/{job_id}/', { params: { path: { job_id: jobId } } })));
    expect(after.value.body.status).toBe('completed');
    expect(after.calls).toEqual(['BatchGetItemCommand']);
    const again = await reply(t.client.typed.GET('/api/public/v1/search/{job_id}/', { params: { path: { job_id: jobId } } }));
    expect(again.body).toEqual(after.value.body);
  });

  test('an unknown key costs the authorizer its one key read, then nothing while its Deny is cached; no key costs nothing', async () => {
    const unknown = await callsOf(() => reply(new Client(stack, 'pk_unknown').typed.GET('/api/public/v1/search/{job_id}/', { params: { path: { job_id: 'dj_x' } } })));
    expect(unknown.value.status).toBe(403);
    expect(unknown.value.body).toEqual({ message: 'Forbidden' });
    expect(unknown.calls).toEqual([AUTHORIZER_READ]);
    const again = await callsOf(() => reply(new Client(stack, 'pk_unknown').typed.GET('/api/public/v1/emails/')));
    expect(again.value.body).toEqual({ message: 'Forbidden' });
    expect(again.calls).toEqual([]);
    const none = await callsOf(() => reply(new Client(stack).typed.GET('/api/public/v1/search/{job_id}/', { params: { path: { job_id: 'dj_x' } } })));
    expect(none.value.body).toEqual({ message: 'Forbidden' });
    expect(none.calls).toEqual([]);
  });

  test('GET /emails/{id}/ is one BatchGetItem once the key has been seen; lists query alongside the key read', async () => {
    const t = await newTenant(stack);
    const first = await callsOf(() => reply(t.client.typed.GET('/api/public/v1/emails/{id}/', { params: { path: { id: 'em_00000000000000000000000000' } } })));
    expect(first.value.status).toBe(404);
    expect(first.calls).toEqual([AUTHORIZER_READ, 'BatchGetItemCommand', KEY_USE_WRITE, 'GetItemCommand']);
    const warm = await callsOf(() => reply(t.client.typed.GET('/api/public/v1/emails/{id}/', { params: { path: { id: 'em_00000000000000000000000000' } } })));
    expect(warm.value.status).toBe(404);
    expect(warm.value.body.error.code).toBe('not_found');
    expect(warm.calls).toEqual(['BatchGetItemCommand']);
    const list = await callsOf(() => reply(t.client.typed.GET('/api/public/v1/emails/')));
    expect(list.value.body).toEqual({ count: 0, count_exact: true, page: 1, page_size: expect.any(Number), total_pages: 0, results: [], next_cursor: null });
    // The walk of the list index's first page alongside the key read; a page that reaches the end needs no count.
    expect([...list.calls].sort()).toEqual(['BatchGetItemCommand', 'QueryCommand']);
    const senders = await callsOf(() => reply(t.client.typed.GET('/api/public/v1/email/accounts/')));
    expect(senders.value.body).toEqual({ accounts: [] });
    expect([...senders.calls].sort()).toEqual(['BatchGetItemCommand', 'QueryCommand']);
  });

  test('a read that ran alongside the key check is thrown away when the key was revoked meanwhile', async () => {
    const t = await newTenant(stack, {}, { sender: { email: 'rep@acme.test', type: 'google' } });
    expect((await reply(t.client.typed.GET('/api/public/v1/email/accounts/'))).body.accounts).toHaveLength(1);
    await admin.console('DELETE', `accounts/${t.accountId}/api-keys/${t.keyId}/`);
    const after = await reply(t.client.typed.GET('/api/public/v1/email/accounts/'));
    expect(after.status).toBe(403);
    expect(after.body).toEqual({ message: 'Forbidden' });
  });

  test('the console PATCH of public_api keeps every key record in step: off is 403 permission_denied on every key at once', async () => {
    const t = await newTenant(stack);
    const second = new Client(stack, (await admin.console('POST', `accounts/${t.accountId}/api-keys/`)).body.key);
    const jobId = await completedJob(t.accountId, t.keyId);
    expect((await reply(t.client.typed.GET('/api/public/v1/search/{job_id}/', { params: { path: { job_id: jobId } } }))).status).toBe(200);
    const off = await admin.console('PATCH', `accounts/${t.accountId}/`, { public_api: false });
    expect(off.status).toBe(200);
    expect(off.body.public_api).toBe(false);
    for (const client of [t.client, second]) {
      const r = await reply(client.typed.GET('/api/public/v1/search/{job_id}/', { params: { path: { job_id: jobId } } }));
      expect(r.status).toBe(403);
      expect(r.body.error.code).toBe('permission_denied');
    }
    expect((await admin.console('GET', `accounts/${t.accountId}/`)).body.public_api).toBe(false);
    const third = new Client(stack, (await admin.console('POST', `accounts/${t.accountId}/api-keys/`)).body.key);
    expect((await reply(third.typed.GET('/api/public/v1/search/{job_id}/', { params: { path: { job_id: jobId } } }))).body.error.code).toBe('permission_denied');
    expect((await admin.console('PATCH', `accounts/${t.accountId}/`, { public_api: true })).status).toBe(200);
    for (const client of [t.client, second, third]) expect((await reply(client.typed.GET('/api/public/v1/search/{job_id}/', { params: { path: { job_id: jobId } } }))).status).toBe(200);
  });

  test('a key record written before it carried public_api falls back to the account', async () => {
    const t = await newTenant(stack, { public_api: false });
    await documentClient().send(
      new UpdateCommand({ TableName: process.env.ACCOUNTS_TABLE_NAME, Key: accountsKeys.apiKeyLookup(hashApiKey(t.apiKey)), UpdateExpression: 'REMOVE public_api' }),
    );
    const jobId = await completedJob(t.accountId, t.keyId);
    const r = await callsOf(() => reply(t.client.typed.GET('/api/public/v1/search/{job_id}/', { params: { path: { job_id: jobId } } })));
    expect(r.value.body.error.code).toBe('permission_denied');
    expect(r.calls).toEqual([AUTHORIZER_READ, 'BatchGetItemCommand', 'GetItemCommand']);
  });
});
