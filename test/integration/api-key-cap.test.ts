import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { LocalStack } from '../../shared/local/stack.js';
import { startTestStack } from '../support/local.js';
import { documentClient } from '../../shared/adapters/aws.js';
import type { ApiKeyRegistry } from '../../shared/adapters/api-key-registry.js';
import { createAccount } from '../../shared/accounts/accounts.repository.js';
import { MAX_LIVE_API_KEYS, PENDING_KEY_LEASE_MS, createApiKey, revokeApiKey, type ApiKeyCreateStep } from '../../shared/accounts/api-keys.repository.js';
import { listApiKeys } from '../../shared/accounts/credentials.repository.js';
import { readKeyGrant } from '../../shared/accounts/key-grant.repository.js';
import { accountsKeys } from '../../shared/accounts/accounts.keys.js';
import { serviceClock, type Clock } from '../../shared/core/clock.js';
import { ConflictError } from '../../shared/core/errors.js';

/**
 * At most 25 live API keys per account, counted in the same transaction as the key's record (issue 42, item 5),
 * and no half-created key: a create stopped after any step leaves no usable key, and the account's next
 * create rolls it back, API Gateway key included. The registry is a stand-in recording what it was asked.
 */
let stack: LocalStack;
beforeAll(async () => {
  stack = await startTestStack({ workers: false, gateway: false });
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

function fakeRegistry() {
  const live = new Map<string, string>(); // gateway key id → name (our key id)
  const registry: ApiKeyRegistry = {
    register: async (keyId) => {
      const id = `gw-${keyId}`;
      live.set(id, keyId);
      return id;
    },
    unregister: async (id) => {
      if (id) live.delete(id);
    },
    release: async (keyId, id) => {
      for (const [gw, name] of [...live]) if (gw === id || (id === null && name === keyId)) live.delete(gw);
    },
  };
  return { registry, live };
}

const newAccount = () => createAccount({ name: 'Cap', credits: 10, public_api: true, agentic_search: false, pilot: false, auto_recharge: false });
const accountItem = async (id: string) => (await documentClient().send(new GetCommand({ TableName: process.env.ACCOUNTS_TABLE_NAME, Key: accountsKeys.account(id), ConsistentRead: true }))).Item!;
const crashAt = (step: ApiKeyCreateStep) => ({ afterStep: async (s: ApiKeyCreateStep) => { if (s === step) throw new Error(`crash after ${s}`); } });
const clockAt = (ms: number): Clock => ({ now: () => new Date(ms) }) as Clock;

test('30 concurrent creates on one account: exactly 25 keys, the other 5 answered 409 conflict; a revocation makes room for one', async () => {
  const account = await newAccount();
  const { registry, live } = fakeRegistry();
  const results = await Promise.allSettled(Array.from({ length: 30 }, () => createApiKey(account.id, serviceClock, registry)));
  const made = results.filter((r) => r.status === 'fulfilled');
  const refused = results.flatMap((r) => (r.status === 'rejected' ? [r.reason] : []));
  expect([made.length, refused.length]).toEqual([MAX_LIVE_API_KEYS, 5]);
  for (const e of refused) {
    expect(e).toBeInstanceOf(ConflictError);
    expect([e.statusCode, e.code, e.message]).toEqual([409, 'conflict', 'This account already holds 25 live API keys, the most it may hold; revoke one before creating another.']);
  }
  expect((await listApiKeys(account.id)).filter((k) => !k.revoked_at)).toHaveLength(25);
  expect([live.size, (await accountItem(account.id)).live_keys]).toEqual([25, 25]);

  const first = (made[0] as PromiseFulfilledResult<{ id: string }>).value.id;
  await revokeApiKey(account.id, first, serviceClock, registry);
  await revokeApiKey(account.id, first, serviceClock, registry); // twice: the place is given back once
  expect((await accountItem(account.id)).live_keys).toBe(24);
  await createApiKey(account.id, serviceClock, registry);
  await expect(createApiKey(account.id, serviceClock, registry)).rejects.toThrow(ConflictError);
}, 60_000);

test.each(['reserved', 'registered'] as const)('a create that dies after "%s" leaves no usable key, and the next create rolls it back (no orphan API Gateway key)', async (step) => {
  const account = await newAccount();
  const { registry, live } = fakeRegistry();
  const t0 = Date.now();
  const dead = createApiKey(account.id, clockAt(t0), registry, crashAt(step));
  await expect(dead).rejects.toThrow(`crash after ${step}`);

  // Nothing usable: the key record refuses the key, the listing does not show it, revoking it is a 404.
  expect(await listApiKeys(account.id)).toEqual([]);
  expect((await accountItem(account.id)).live_keys).toBe(1);
  expect(live.size).toBe(step === 'registered' ? 1 : 0);
  const orphanName = step === 'registered' ? [...live.values()][0]! : null;
  expect((await readKeyGrantOfPending(account.id))?.revoked).toBe(true);
  if (orphanName) {
    await expect(revokeApiKey(account.id, orphanName, serviceClock, registry)).rejects.toThrow('API key not found.');
  }

  // Within the lease a concurrent create leaves it alone; after it, the next create rolls it back.
  const within = await createApiKey(account.id, clockAt(t0 + 1_000), registry);
  expect((await accountItem(account.id)).live_keys).toBe(2);
  const after = await createApiKey(account.id, clockAt(t0 + PENDING_KEY_LEASE_MS + 1_000), registry);
  expect((await accountItem(account.id)).live_keys).toBe(2);
  expect([...live.values()].sort()).toEqual([within.id, after.id].sort());
  expect((await listApiKeys(account.id)).map((k) => k.id).sort()).toEqual([within.id, after.id].sort());
  expect((await readKeyGrant(after.hash))?.revoked).toBe(false);
  expect(await readKeyGrantOfPending(account.id)).toBeNull();
}, 60_000);

/** The key record of the account's pending key, found through its listing item. */
async function readKeyGrantOfPending(accountId: string) {
  const { queryAll } = await import('../../shared/adapters/aws.js');
  const items = await queryAll<Record<string, unknown>>({
    TableName: process.env.ACCOUNTS_TABLE_NAME!,
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
    FilterExpression: '#s = :pending',
    ExpressionAttributeNames: { '#s': 'state' },
    ExpressionAttributeValues: { ':pk': accountsKeys.accountPk(accountId), ':p': 'KEY#', ':pending': 'pending' },
    ConsistentRead: true,
  });
  return items.length ? readKeyGrant(items[0]!.hash as string) : null;
}
