import type { LocalStack } from '../../shared/local/stack.js';
import { ROUTE_LIMITS } from '../../shared/catalog/routes.js';
import { newTenant, startTestStack } from '../support/local.js';

/**
 * The request-size limits of the deployed public API, against the real local gateway: API Gateway refuses a body
 * over 10 MB, and, the API listing every media type as binary, hands the function its body base64-encoded, so
 * Lambda's 6 MB request payload refuses a body of about 4.5 MB already (docs/deploying.md "AWS quotas and limits").
 * Both answers are API Gateway's 413 {"message":"Request Too Long"}, before the function runs.
 */
let stack: LocalStack;
let apiKey: string;

beforeAll(async () => {
  stack = await startTestStack({ workers: false });
  ({ apiKey } = await newTenant(stack));
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

/** POST a JSON body of exactly `bytes` bytes to `emails/` with the tenant's key (raw fetch: a 413 is no contract answer). */
async function postOfSize(bytes: number): Promise<{ status: number; body: unknown }> {
  const prefix = '{"note":"';
  const body = `${prefix}${'a'.repeat(bytes - prefix.length - 2)}"}`;
  expect(Buffer.byteLength(body)).toBe(bytes);
  const res = await fetch(`${stack.baseUrl}emails/`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': apiKey }, body });
  return { status: res.status, body: await res.json() };
}

const MB = 1_000_000;

test('a 4.4 MB body reaches the function (which refuses it as invalid, 400)', async () => {
  const answer = await postOfSize(4.4 * MB);
  expect(answer.status).toBe(400);
});

test('a 4.8 MB body, within API Gateway\'s 10 MB but base64-encoded past Lambda\'s 6 MB, is refused with 413 before the function', async () => {
  const answer = await postOfSize(4.8 * MB);
  expect(answer).toEqual({ status: 413, body: { message: 'Request Too Long' } });
});

test('a body over API Gateway\'s 10 MB is refused with 413 as it arrives', async () => {
  const answer = await postOfSize(ROUTE_LIMITS.payloadBytes + 1);
  expect(answer).toEqual({ status: 413, body: { message: 'Request Too Long' } });
});
