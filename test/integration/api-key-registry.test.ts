import { createServer, type Server } from 'node:http';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { LocalStack } from '../../shared/local/stack.js';
import { startTestStack } from '../support/local.js';
import { documentClient, resetClients } from '../../shared/adapters/aws.js';
import { apiGatewayKeyRegistry } from '../../shared/adapters/api-key-registry.js';
import { createAccount } from '../../shared/accounts/accounts.repository.js';
import { PENDING_KEY_LEASE_MS, createApiKey, revokeApiKey } from '../../shared/accounts/api-keys.repository.js';
import { accountsKeys } from '../../shared/accounts/accounts.keys.js';
import { serviceClock, type Clock } from '../../shared/core/clock.js';
import { runAsFunction } from '../../shared/local/function-context.js';
import { sweep } from '../../shared/workers/sweep.js';
import { logger } from '../../shared/core/logger.js';

/**
 * Key creation and revocation against a loopback stand-in of the API Gateway management API (REST-JSON, as
 * the SDK speaks it), recording every request: API Gateway is given the usage identifier, never the secret.
 */
interface Recorded {
  method: string;
  url: string;
  body: string;
}

const PLAN_NAME = 'people-outreach-test-public-api';
let stack: LocalStack;
let stub: Server;
const recorded: Recorded[] = [];
let failPlanLookups = 0;
/** The stand-in's API keys: id → name (our key id). */
const gatewayKeys = new Map<string, string>();

beforeAll(async () => {
  stack = await startTestStack({ workers: false });
  stub = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    recorded.push({ method: req.method!, url: req.url!, body });
    const reply = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(payload === undefined ? '' : JSON.stringify(payload));
    };
    if (req.method === 'GET' && req.url!.startsWith('/usageplans')) {
      if (failPlanLookups > 0) {
        failPlanLookups--;
        return reply(400, { message: 'refused' }, { 'x-amzn-errortype': 'BadRequestException' });
      }
      return reply(200, { item: [{ id: 'other-plan', name: 'someone-else' }, { id: 'plan-1', name: PLAN_NAME }] });
    }
    if (req.method === 'POST' && req.url === '/apikeys') {
      const name = JSON.parse(body).name as string;
      gatewayKeys.set(`gw-${name}`, name);
      return reply(201, { id: `gw-${name}`, enabled: true });
    }
    if (req.method === 'GET' && req.url!.startsWith('/apikeys')) {
      const name = new URL(req.url!, 'http://stand-in').searchParams.get('name') ?? '';
      return reply(200, { item: [...gatewayKeys].filter(([, n]) => n.startsWith(name)).map(([id, n]) => ({ id, name: n, enabled: true })) });
    }
    if (req.method === 'POST' && req.url === '/usageplans/plan-1/keys') return reply(201, { id: JSON.parse(body).keyId, type: 'API_KEY' });
    if (req.method === 'DELETE' && req.url!.startsWith('/apikeys/')) {
      gatewayKeys.delete(decodeURIComponent(req.url!.slice('/apikeys/'.length)));
      return reply(202, undefined);
    }
    return reply(404, { message: 'not in this stand-in' });
  });
  await new Promise<void>((r) => stub.listen(0, '127.0.0.1', r));
  process.env.AWS_ENDPOINT_URL_API_GATEWAY = `http://127.0.0.1:${(stub.address() as { port: number }).port}`;
  process.env.USAGE_PLAN_NAME = PLAN_NAME;
  resetClients();
});
afterAll(async () => {
  await stack?.stop();
  await new Promise<void>((r) => stub?.close(() => r()));
  delete process.env.AWS_ENDPOINT_URL_API_GATEWAY;
});

const lookupRecord = async (hash: string) =>
  (await documentClient().send(new GetCommand({ TableName: process.env.ACCOUNTS_TABLE_NAME, Key: accountsKeys.apiKeyLookup(hash), ConsistentRead: true }))).Item!;

test('CreateApiKey receives the key’s usage identifier, never the secret; revocation deletes that API Gateway key', async () => {
  const registry = apiGatewayKeyRegistry();
  const account = await createAccount({ name: 'Acme', credits: 10, public_api: true, agentic_search: false, pilot: false, auto_recharge: false });
  recorded.length = 0;
  const created = [await createApiKey(account.id, serviceClock, registry), await createApiKey(account.id, serviceClock, registry)];

  const creations = recorded.filter((r) => r.method === 'POST' && r.url === '/apikeys').map((r) => JSON.parse(r.body));
  expect(creations).toHaveLength(2);
  for (const [i, key] of created.entries()) {
    const record = await lookupRecord(key.hash);
    expect(creations[i]).toEqual({ name: key.id, value: record.usage_identifier, enabled: true });
    expect(record.usage_identifier).not.toBe(key.key);
  }
  expect(recorded.filter((r) => r.url === '/usageplans/plan-1/keys').map((r) => JSON.parse(r.body))).toEqual(created.map((k) => ({ keyId: `gw-${k.id}`, keyType: 'API_KEY' })));
  // The plan is looked up once for this registry.
  expect(recorded.filter((r) => r.method === 'GET')).toHaveLength(1);

  const meta = (await documentClient().send(new GetCommand({ TableName: process.env.ACCOUNTS_TABLE_NAME, Key: accountsKeys.apiKeyMeta(account.id, created[0]!.id), ConsistentRead: true }))).Item!;
  await revokeApiKey(account.id, created[0]!.id, serviceClock, registry);
  expect(recorded.filter((r) => r.method === 'DELETE').map((r) => r.url)).toEqual([`/apikeys/${meta.gateway_key_id}`]);

  // Nothing that reached API Gateway carries a secret.
  for (const r of recorded) for (const key of created) expect(`${r.url} ${r.body}`).not.toContain(key.key);
});

test('a refused usage-plan lookup is not remembered: the next key creation asks again', async () => {
  const registry = apiGatewayKeyRegistry();
  const account = await createAccount({ name: 'Beta', credits: 10, public_api: true, agentic_search: false, pilot: false, auto_recharge: false });
  recorded.length = 0;
  failPlanLookups = 1;
  await expect(createApiKey(account.id, serviceClock, registry)).rejects.toThrow('refused');
  expect(recorded.filter((r) => r.url === '/apikeys')).toEqual([]);
  const second = await createApiKey(account.id, serviceClock, registry);
  expect(second.key).toMatch(/^pk_/);
  await createApiKey(account.id, serviceClock, registry);
  expect(recorded.filter((r) => r.method === 'GET')).toHaveLength(2);
});

const clockAt = (ms: number): Clock => ({ now: () => new Date(ms) }) as Clock;
/** The sweeper's run, as the sweeper function (its grants), its "sweep finished" line kept out of the test output. */
async function sweepAsSweeper(clock: Clock, apiKeys: ReturnType<typeof apiGatewayKeyRegistry>) {
  const level = logger.getLevelName();
  logger.setLogLevel('WARN');
  try {
    return await runAsFunction('sweeper', () => sweep({ clock, apiKeys }));
  } finally {
    logger.setLogLevel(level);
  }
}
const accountsItem = async (key: { pk: string; sk: string }) =>
  (await documentClient().send(new GetCommand({ TableName: process.env.ACCOUNTS_TABLE_NAME, Key: key, ConsistentRead: true }))).Item;

test.each(['reserved', 'registered'] as const)('a key left pending by a create that died after "%s" is rolled back by the sweeper 60 s on, its API Gateway key too, and not before', async (step) => {
  const registry = apiGatewayKeyRegistry();
  const account = await createAccount({ name: 'Gamma', credits: 10, public_api: true, agentic_search: false, pilot: false, auto_recharge: false });
  const t0 = Date.now();
  let keyId = '';
  const dead = createApiKey(account.id, clockAt(t0), registry, {
    afterStep: async (s) => {
      if (s === step) throw new Error(`crash after ${s}`);
    },
  });
  await expect(dead).rejects.toThrow(`crash after ${step}`);
  const listing = await pendingListing(account.id);
  keyId = listing.key_id as string;
  const gatewayKeysOf = () => [...gatewayKeys].filter(([, name]) => name === keyId).map(([id]) => id);
  expect(gatewayKeysOf()).toEqual(step === 'registered' ? [`gw-${keyId}`] : []);
  const records = async () => [!!(await accountsItem(accountsKeys.apiKeyMeta(account.id, keyId))), !!(await accountsItem(accountsKeys.apiKeyLookup(listing.hash as string)))];

  // Within the 60 s the create may still be running: the sweeper (with the sweeper's grants) leaves it alone.
  await sweepAsSweeper(clockAt(t0 + PENDING_KEY_LEASE_MS - 1_000), registry);
  expect(await records()).toEqual([true, true]);
  expect(gatewayKeysOf()).toHaveLength(step === 'registered' ? 1 : 0);
  expect((await accountsItem(accountsKeys.account(account.id)))?.live_keys).toBe(1);

  // Past them: both records, the place under the cap and the API Gateway key (found by its name) are gone.
  const report = await sweepAsSweeper(clockAt(t0 + PENDING_KEY_LEASE_MS + 1_000), registry);
  // (The earlier create whose plan lookup was refused left a pending key too: it goes in the same run.)
  expect(report.failed).toBe(0);
  expect(report.ended).toBeGreaterThanOrEqual(1);
  expect(await records()).toEqual([false, false]);
  expect(gatewayKeysOf()).toEqual([]);
  expect((await accountsItem(accountsKeys.account(account.id)))?.live_keys).toBe(0);
  // Nothing left on the due index for it: a later sweep finds nothing to do.
  expect((await sweepAsSweeper(clockAt(t0 + 10 * PENDING_KEY_LEASE_MS), registry)).examined).toBe(0);
});

/** The account's one pending key listing (`ACCOUNT#<id>` / `KEY#<key_id>`, state pending). */
async function pendingListing(accountId: string): Promise<Record<string, unknown>> {
  const { queryAll } = await import('../../shared/adapters/aws.js');
  const items = await queryAll<Record<string, unknown>>({
    TableName: process.env.ACCOUNTS_TABLE_NAME!,
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
    FilterExpression: '#s = :pending',
    ExpressionAttributeNames: { '#s': 'state' },
    ExpressionAttributeValues: { ':pk': accountsKeys.accountPk(accountId), ':p': 'KEY#', ':pending': 'pending' },
    ConsistentRead: true,
  });
  expect(items).toHaveLength(1);
  return items[0]!;
}
