import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import type { LocalStack } from '../../shared/local/stack.js';
import { startTestStack } from '../support/local.js';
import { APP_LIMITS } from '../../shared/catalog/routes.js';
import { handler } from '../../functions/app/get-prices.js';

/**
 * The web app's per-user and per-account limits (issue 42, item 1), counted by the handler shell in DynamoDB
 * (DynamoDB Local here, the same code as in AWS): one user at full speed is refused at their own budget,
 * the users of another account keep all of theirs, and an account's users together are held to the account's.
 */
let stack: LocalStack;
beforeAll(async () => {
  stack = await startTestStack({ workers: false, gateway: false, throttleMultiplier: 1 });
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

let n = 0;
const unique = (what: string) => `${what}-${process.pid}-${Date.now()}-${n++}`;
const call = async (accountId: string, sub: string) => {
  const event = {
    httpMethod: 'GET',
    resource: '/api/app/v1/prices',
    path: '/api/app/v1/prices/',
    headers: {},
    pathParameters: null,
    queryStringParameters: null,
    body: null,
    isBase64Encoded: false,
    requestContext: { requestId: unique('req'), authorizer: { claims: { sub, 'custom:account_id': accountId } } },
  } as unknown as APIGatewayProxyEvent;
  const out = await handler(event, { functionName: 'app-get-prices', getRemainingTimeInMillis: () => 10_000 } as unknown as Context);
  return out.statusCode;
};
const burst = (accountId: string, sub: string, count: number) => Promise.all(Array.from({ length: count }, () => call(accountId, sub)));
const ok = (statuses: number[]) => statuses.filter((s) => s === 200).length;

test('one user at full speed is held to their own budget; another tenant’s user keeps the whole of theirs', async () => {
  const { perUser } = APP_LIMITS.read;
  const [busy, quiet] = [unique('acct'), unique('acct')];
  const flood = await burst(busy, unique('user'), perUser.burst * 3);
  // A burst, plus what refills while the flood runs (2/s): never the whole flood.
  expect(ok(flood)).toBeGreaterThanOrEqual(perUser.burst);
  expect(ok(flood)).toBeLessThan(perUser.burst + 10);
  expect(flood.filter((s) => s !== 200 && s !== 429)).toEqual([]);
  expect(await burst(quiet, unique('user'), perUser.burst)).toEqual(Array(perUser.burst).fill(200));
});

test('an account’s users together are held to the account’s budget, each within their own', async () => {
  const { perUser, perAccount } = APP_LIMITS.read;
  const account = unique('acct');
  const users = Array.from({ length: Math.ceil((perAccount.burst * 2) / perUser.burst) }, () => unique('user'));
  const statuses = (await Promise.all(users.map((u) => burst(account, u, perUser.burst)))).flat();
  expect(ok(statuses)).toBeGreaterThanOrEqual(perAccount.burst);
  expect(ok(statuses)).toBeLessThan(perAccount.burst + 15);
  expect(await call(unique('acct'), unique('user'))).toBe(200);
});
