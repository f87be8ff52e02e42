import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { consoleRoute, openRoute, publicRoute, requestCookieHeaders } from '../../../shared/http/handler.js';
import { AppError, ConflictError, ContentionError, UpstreamError } from '../../../shared/core/errors.js';

/** Black-box: build a handler with the real shell, call it with an API Gateway proxy event, compare the response. */
function proxyEvent(overrides: Partial<APIGatewayProxyEvent> = {}): APIGatewayProxyEvent {
  return {
    resource: '/api/console/v1/accounts/',
    path: '/api/console/v1/accounts/',
    httpMethod: 'POST',
    headers: { 'content-type': 'application/json' },
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    body: '{}',
    isBase64Encoded: false,
    requestContext: { requestId: 'req-7f3a9c' } as APIGatewayProxyEvent['requestContext'],
    ...overrides,
  };
}

const context = {
  functionName: 'test-fn',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:test-fn',
  memoryLimitInMB: '512',
  awsRequestId: 'aws-req-1',
  logGroupName: '/aws/lambda/test-fn',
  logStreamName: 'stream',
  callbackWaitsForEmptyEventLoop: false,
  getRemainingTimeInMillis: () => 10_000,
} as Context;

describe('the handler shell', () => {
  const SECRET = 'pk_live_9fK2mQ7xZbV4tR8sW1yN3cH6jL0pD5eA';
  const SQL = `SELECT * FROM accounts WHERE api_key = '${SECRET}' AND balance > 0`;

  test('an unexpected exception answers a generic 500 with the request id and nothing of the original', async () => {
    const error = new Error(`ValidationException: ${SQL}`);
    const handler = consoleRoute({}, async () => {
      throw error;
    });
    const res = await handler(proxyEvent(), context);
    expect(res.statusCode).toBe(500);
    expect(JSON.parse(res.body)).toEqual({ error: { code: 'internal_error', message: 'Internal error.' } });
    expect(res.headers).toMatchObject({ 'Content-Type': 'application/json', 'X-Request-Id': 'req-7f3a9c' });
    expect(error.stack).toContain('handler.test.ts');
    for (const leak of [SECRET, 'SELECT', 'accounts', 'ValidationException', 'handler.test.ts', '    at ']) expect(res.body).not.toContain(leak);
  });

  test('a handler still running just before the function times out answers a generic 500 instead of being killed', async () => {
    const handler = consoleRoute({}, () => new Promise(() => undefined));
    const res = await handler(proxyEvent(), { ...context, getRemainingTimeInMillis: () => 30 });
    expect(res.statusCode).toBe(500);
    expect(JSON.parse(res.body)).toEqual({ error: { code: 'internal_error', message: 'Internal error.' } });
  });

  test('a domain error that is not exposed is generic too; an exposed one keeps its code and message', async () => {
    const hidden = await consoleRoute({}, async () => {
      throw new AppError(500, 'ledger_corrupt', `ledger mismatch for ${SECRET}`);
    })(proxyEvent(), context);
    expect(hidden.statusCode).toBe(500);
    expect(JSON.parse(hidden.body)).toEqual({ error: { code: 'internal_error', message: 'Internal error.' } });

    const conflict = await consoleRoute({}, async () => {
      throw new ConflictError('At most 3 accounts may hold the pilot flag.');
    })(proxyEvent(), context);
    expect(conflict.statusCode).toBe(409);
    expect(JSON.parse(conflict.body)).toEqual({ error: { code: 'conflict', message: 'At most 3 accounts may hold the pilot flag.' } });

    const upstream = await consoleRoute({}, async () => {
      throw new UpstreamError();
    })(proxyEvent(), context);
    expect(upstream.statusCode).toBe(502);
    expect(JSON.parse(upstream.body).error.code).toBe('upstream_error');
  });

  test('unresolved contention on a balance is a retryable 503 contention with Retry-After, never 402', async () => {
    const res = await consoleRoute({}, async () => {
      throw new ContentionError();
    })(proxyEvent(), context);
    expect(res.statusCode).toBe(503);
    expect(res.headers).toMatchObject({ 'Retry-After': '1', 'X-Request-Id': 'req-7f3a9c' });
    expect(JSON.parse(res.body)).toEqual({ error: { code: 'contention', message: expect.stringMatching(/retry/i) } });
  });

  test('a body that is not JSON is a 400 before the use case runs', async () => {
    let ran = false;
    const res = await consoleRoute({}, async () => {
      ran = true;
      return { status: 200, body: {} };
    })(proxyEvent({ body: '{"name":' }), context);
    expect(res.statusCode).toBe(400);
    expect(JSON.parse(res.body).error.code).toBe('invalid_request');
    expect(ran).toBe(false);
  });

  test('a public route without x-api-key answers the edge 403 without reading anything', async () => {
    let ran = false;
    const handler = publicRoute({}, async () => {
      ran = true;
      return { status: 200, body: {} };
    });
    const res = await handler(proxyEvent({ path: '/api/public/v1/email/accounts/', httpMethod: 'GET', body: null }), context);
    expect(res.statusCode).toBe(403);
    expect(JSON.parse(res.body)).toEqual({ message: 'Forbidden' });
    expect(res.headers).toMatchObject({ 'X-Request-Id': 'req-7f3a9c' });
    expect(ran).toBe(false);
    const testEmailRoute = publicRoute({ auth: 'handler' }, async () => ({ status: 200 }));
    const unauthorized = await testEmailRoute(proxyEvent({ body: null }), context);
    expect(unauthorized.statusCode).toBe(401);
    expect(JSON.parse(unauthorized.body).error.code).toBe('unauthorized');
  });

  test('a path without the trailing slash is unknown to the gateway', async () => {
    const res = await consoleRoute({}, async () => ({ status: 200, body: {} }))(proxyEvent({ path: '/api/console/v1/accounts' }), context);
    expect(res.statusCode).toBe(403);
    expect(JSON.parse(res.body)).toEqual({ message: 'Missing Authentication Token' });
  });
});

describe('cookies, as a REST API proxy integration carries them', () => {
  test('each Set-Cookie is its own value in multiValueHeaders; the other headers stay in headers', async () => {
    const handler = openRoute(async () => ({ status: 302, headers: { location: 'https://app.example/' }, cookies: ['a=1; Path=/x/; HttpOnly', 'b=; Max-Age=0'] }));
    const out = await handler(proxyEvent({ httpMethod: 'GET', body: null }), context);
    expect(out.statusCode).toBe(302);
    expect(out.multiValueHeaders).toEqual({ 'Set-Cookie': ['a=1; Path=/x/; HttpOnly', 'b=; Max-Age=0'] });
    expect(out.headers).toMatchObject({ location: 'https://app.example/', 'X-Request-Id': 'req-7f3a9c' });
    const plain = await openRoute(async () => ({ status: 200, body: {} }))(proxyEvent({ httpMethod: 'GET', body: null }), context);
    expect(plain.multiValueHeaders).toBeUndefined();
  });

  test('the request\'s Cookie headers come from multiValueHeaders (every value), else headers, whatever the name\'s case', () => {
    expect(requestCookieHeaders(proxyEvent({ headers: { Cookie: 'last=1' }, multiValueHeaders: { Cookie: ['first=1', 'last=1'] } }))).toEqual(['first=1', 'last=1']);
    expect(requestCookieHeaders(proxyEvent({ headers: { cookie: 'only=1' }, multiValueHeaders: {} }))).toEqual(['only=1']);
    expect(requestCookieHeaders(proxyEvent({ headers: {}, multiValueHeaders: {} }))).toEqual([]);
  });
});
