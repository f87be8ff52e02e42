import { createServer, type Server } from 'node:http';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { LocalStack } from '../../shared/local/stack.js';
import { startTestStack } from '../support/local.js';
import { documentClient, resetClients } from '../../shared/adapters/aws.js';
import { apiGatewayKeyRegistry } from '../../shared/adapters/api-key-registry.js';
import { createAccount } from '../../shared/accounts/accounts.repository.js';
import { createApiKey, revokeApiKey } from '../../shared/accounts/api-keys.repository.js';
import { accountsKeys } from '../../shared/accounts/accounts.keys.js';
import { serviceClock } from '../../shared/core/clock.js';

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
    if (req.method === 'POST' && req.url === '/apikeys') return reply(201, { id: `gw-${JSON.parse(body).name}`, enabled: true });
    if (req.method === 'POST' && req.url === '/usageplans/plan-1/keys') return reply(201, { id: JSON.parse(body).keyId, type: 'API_KEY' });
    if (req.method === 'DELETE' && req.url!.startsWith('/apikeys/')) return reply(202, undefined);
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
