import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import * as z from 'zod';
import { userRoute } from '../../shared/http/handler.js';
import type { LocalStack } from '../../shared/local/stack.js';
import { startTestStack } from '../support/local.js';

// The shell counts each user and account in DynamoDB token buckets before the handler runs (the web app's
// per-user and per-account limits), so it runs here beside the run's DynamoDB Local.
let stack: LocalStack;
beforeAll(async () => {
  stack = await startTestStack({ gateway: false, workers: false });
});
afterAll(async () => {
  await stack?.stop();
});

/** Black-box: the web app's handler shell takes the account from the authorizer's claims and nothing else. */
function appEvent(claims: Record<string, string> | null, overrides: Partial<APIGatewayProxyEvent> = {}): APIGatewayProxyEvent {
  return {
    resource: '/api/app/v1/api-keys/{key_id}/',
    path: '/api/app/v1/api-keys/key_01jabcdefghjkmnpqrstvwxyz0/',
    httpMethod: 'DELETE',
    headers: {},
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: { key_id: 'key_01jabcdefghjkmnpqrstvwxyz0' },
    stageVariables: null,
    body: null,
    isBase64Encoded: false,
    requestContext: { requestId: 'req-1', authorizer: claims ? { claims } : null } as APIGatewayProxyEvent['requestContext'],
    ...overrides,
  };
}

const context = { functionName: 'app-fn', awsRequestId: 'aws-1', getRemainingTimeInMillis: () => 10_000 } as Context;
const echo = userRoute({}, async ({ accountId, userSub, params }) => ({ status: 200, body: { accountId, userSub, params } }));

describe('userRoute', () => {
  test('the account and user are the token claims’, whatever the path or body say', async () => {
    const r = await echo(appEvent({ sub: 'user-1', 'custom:account_id': 'acct_01jabcdefghjkmnpqrstvwxyz0' }, { body: '{"account_id":"acct_other"}' }), context);
    expect(r.statusCode).toBe(200);
    expect(JSON.parse(r.body)).toEqual({ accountId: 'acct_01jabcdefghjkmnpqrstvwxyz0', userSub: 'user-1', params: { key_id: 'key_01jabcdefghjkmnpqrstvwxyz0' } });
  });

  test.each([
    ['no authorizer context', null],
    ['claims without the account attribute', { sub: 'user-1' }],
    ['an empty account attribute', { sub: 'user-1', 'custom:account_id': '' }],
  ])('%s is the authorizer’s 401 {"message":"Unauthorized"}', async (_what, claims) => {
    const r = await echo(appEvent(claims), context);
    expect([r.statusCode, JSON.parse(r.body)]).toEqual([401, { message: 'Unauthorized' }]);
  });

  test('an id of the wrong shape is 404 before the handler runs; a query that fails its schema is 400 with details', async () => {
    const claims = { sub: 'user-1', 'custom:account_id': 'acct_01jabcdefghjkmnpqrstvwxyz0' };
    const malformed = await echo(appEvent(claims, { pathParameters: { key_id: 'key_nope' } }), context);
    expect(malformed.statusCode).toBe(404);
    const listed = userRoute({ query: z.strictObject({ limit: z.coerce.number().int().max(10) }) }, async ({ queryParams }) => ({ status: 200, body: queryParams }));
    const event = (q: Record<string, string>) => appEvent(claims, { resource: '/api/app/v1/charges/', path: '/api/app/v1/charges/', pathParameters: null, queryStringParameters: q });
    expect(JSON.parse((await listed(event({ limit: '5' }), context)).body)).toEqual({ limit: 5 });
    const bad = await listed(event({ limit: '50' }), context);
    expect(bad.statusCode).toBe(400);
    expect(JSON.parse(bad.body).error.details[0].path).toBe('limit');
  });
});
