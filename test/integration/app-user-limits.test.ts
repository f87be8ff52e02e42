import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import type { LocalStack } from '../../shared/local/stack.js';
import { startTestStack } from '../support/local.js';
import { APP_LIMITS } from '../../shared/catalog/routes.js';
import { handler } from '../../functions/app/get-prices.js';
import { handler as checkHandler } from '../../functions/app/check-sequence-contacts.js';
import { handler as repliesHandler } from '../../functions/app/sequence-replies.js';
import { newId } from '../../shared/core/ids.js';
import { recordReply } from '../../shared/outreach/emails.repository.js';
import { newSequenceWrite, writeTogether } from '../../shared/sequences/sequences.repository.js';
import type { SequenceRecord } from '../../shared/sequences/model.js';

/**
 * The web app's per-user and per-account limits (issue 42, item 1), counted by the handler shell in DynamoDB
 * (DynamoDB Local here, the same code as in AWS): one user at full speed is refused at their own budget,
 * the users of another account keep all of theirs, and an account's users together are held to the account's.
 * A request takes what it costs: a contact check its contacts, a read one token per 64 KiB of its answer.
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
type Route = { fn: typeof handler; method: string; resource: string; path: string; pathParameters?: Record<string, string>; query?: Record<string, string>; body?: unknown };
const PRICES: Route = { fn: handler, method: 'GET', resource: '/api/app/v1/prices', path: '/api/app/v1/prices/' };
const send = async (route: Route, accountId: string, sub: string) => {
  const event = {
    httpMethod: route.method,
    resource: route.resource,
    path: route.path,
    headers: {},
    pathParameters: route.pathParameters ?? null,
    queryStringParameters: route.query ?? null,
    body: route.body === undefined ? null : JSON.stringify(route.body),
    isBase64Encoded: false,
    requestContext: { requestId: unique('req'), authorizer: { claims: { sub, 'custom:account_id': accountId } } },
  } as unknown as APIGatewayProxyEvent;
  return route.fn(event, { functionName: 'app-route', getRemainingTimeInMillis: () => 10_000 } as unknown as Context);
};
const call = async (accountId: string, sub: string) => (await send(PRICES, accountId, sub)).statusCode;
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

test('a contact check takes one token per contact from the check budget: a 10,000-row import (20 checks of 500) passes, the 21st check waits for 500 tokens', async () => {
  const [account, user] = [unique('acct'), unique('user')];
  // Refused bodies (steps 9) are counted as any other: the tokens are taken before the body is read.
  const check: Route = { fn: checkHandler, method: 'POST', resource: '/api/app/v1/contact-checks', path: '/api/app/v1/contact-checks/', body: { contacts: Array.from({ length: 500 }, (_, i) => ({ email: `p${i}@import.test`, first_name: 'Pat' })), steps: 9 } };
  const statuses: number[] = [];
  for (let i = 0; i < 20; i++) statuses.push((await send(check, account, user)).statusCode);
  expect(statuses).toEqual(Array(20).fill(400));
  const refused = await send(check, account, user);
  // 500 tokens at 5,000 a minute: 6 s, less what refilled while the 20 ran.
  expect([refused.statusCode, Number(refused.headers?.['Retry-After']) >= 3 && Number(refused.headers?.['Retry-After']) <= 6]).toEqual([429, true]);
  // The reads of the same user and account are a budget of their own.
  expect(await call(account, user)).toBe(200);
}, 60_000);

test('a read is charged by its answer: after a replies page of 5 MB (80 tokens) the user waits for their reads and the account is held too; another account is not', async () => {
  const account = unique('acct');
  const at = new Date().toISOString();
  const s = { id: newId('sq'), account_id: account, name: 'replies', status: 'active', created_at: at, updated_at: at, instructions: 'Hi.', steps: 1, reply_to: null, cc: [], bcc: [], contacts: [], total_emails: 0, drafted: 0 } as unknown as SequenceRecord;
  await writeTogether([newSequenceWrite(s, new Date(Date.parse(at) + 3_600_000))]);
  for (let i = 0; i < 60; i += 10) {
    await Promise.all(
      Array.from({ length: 10 }, (_, j) =>
        recordReply(account, newId('em').slice(3), {
          email_id: newId('em'),
          from_email: `lead${i + j}@prospect.test`,
          from_name: 'Lead',
          subject: 'Re: Hello',
          body_plain: 'Thanks, tell me more. '.repeat(4100).slice(0, 90_000),
          classification: 'reply',
          received_at: new Date(Date.parse(at) - (i + j) * 60_000).toISOString(),
          sequence_id: s.id,
          kind: 'reply',
        }),
      ),
    );
  }
  const replies: Route = { fn: repliesHandler, method: 'GET', resource: '/api/app/v1/sequences/{sequence_id}/replies', path: `/api/app/v1/sequences/${s.id}/replies/`, pathParameters: { sequence_id: s.id }, query: { page_size: '200' } };
  const [reader, colleague] = [unique('user'), unique('user')];
  const page = await send(replies, account, reader);
  const bytes = Buffer.byteLength(page.body);
  expect([page.statusCode, bytes > 5_000_000]).toEqual([200, true]);
  // 80 tokens: 40 s of the user's 2 a second, past their 30-token burst (14.5 s): about 25 s to wait.
  const next = await send(PRICES, account, reader);
  const userWait = Number(next.headers?.['Retry-After']);
  expect([next.statusCode, userWait >= 20 && userWait <= 27]).toEqual([429, true]);
  // The account's bucket (5 a second, burst 60) took the same 80: its other users wait a few seconds too.
  const colleagues = await send(PRICES, account, colleague);
  expect([colleagues.statusCode, Number(colleagues.headers?.['Retry-After']) >= 1]).toEqual([429, true]);
  expect(await call(unique('acct'), unique('user'))).toBe(200);
}, 60_000);
