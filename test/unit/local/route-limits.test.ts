import { jest } from '@jest/globals';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { binaryBodies, invokeRoute, lambdaRequestRefusal, proxyBody } from '../../../shared/local/gateway.js';
import { ROUTE_LIMITS, type RouteDef } from '../../../shared/catalog/routes.js';

const route = (timeoutSeconds?: number): RouteDef => ({ method: 'GET', path: '/api/public/v1/x/', module: 'functions/x.ts', auth: 'public', bindings: {}, ...(timeoutSeconds ? { timeoutSeconds } : {}) });
const answer = (body: string) => async () => ({ statusCode: 200, body });
const never = () => new Promise<never>(() => undefined);

test('a response within Lambda\'s 6 MB passes; one over it is the 502 API Gateway answers', async () => {
  const fits = 'x'.repeat(ROUTE_LIMITS.responseBytes - 100);
  await expect(invokeRoute(route(), answer(fits))).resolves.toEqual({ statusCode: 200, body: fits });
  await expect(invokeRoute(route(), answer('x'.repeat(ROUTE_LIMITS.responseBytes)))).resolves.toEqual({ refused: { status: 502, message: 'Internal server error' } });
});

test('a function past its own timeout is a 502; one allowed longer than 29 s meets the integration timeout, a 504', async () => {
  await expect(invokeRoute(route(0.05), never)).resolves.toEqual({ refused: { status: 502, message: 'Internal server error' } });
  jest.useFakeTimers();
  try {
    const waiting = invokeRoute(route(60), never);
    await jest.advanceTimersByTimeAsync(ROUTE_LIMITS.integrationTimeoutSeconds * 1000);
    await expect(waiting).resolves.toEqual({ refused: { status: 504, message: 'Endpoint request timed out' } });
  } finally {
    jest.useRealTimers();
  }
});

test('a handler error is not a timeout: it propagates to the gateway\'s crash answer', async () => {
  await expect(invokeRoute(route(), async () => { throw new Error('boom'); })).rejects.toThrow('boom');
});

describe('request bodies within Lambda\'s 6 MB request payload (the event, body base64-encoded on the public and console API)', () => {
  const publicRoute = route();
  const appRoute: RouteDef = { ...route(), auth: 'user' };
  /** A proxy event as the local gateway builds it, around a body of `bytes` bytes. */
  const eventWith = (r: RouteDef, bytes: number) =>
    ({
      resource: r.path,
      path: r.path,
      httpMethod: 'POST',
      headers: { 'content-type': 'application/json' },
      multiValueHeaders: { 'content-type': ['application/json'] },
      queryStringParameters: null,
      multiValueQueryStringParameters: null,
      pathParameters: null,
      stageVariables: null,
      requestContext: {},
      ...proxyBody(binaryBodies(r), 'application/json', Buffer.alloc(bytes, 'a')),
    }) as unknown as APIGatewayProxyEvent;
  /** The largest body a route takes: the last size whose event Lambda accepts. */
  const largestBody = (r: RouteDef) => {
    let [fits, refused] = [0, ROUTE_LIMITS.payloadBytes];
    while (refused - fits > 1) {
      const mid = Math.floor((fits + refused) / 2);
      if (lambdaRequestRefusal(eventWith(r, mid))) refused = mid;
      else fits = mid;
    }
    return fits;
  };

  test('the public and console API pass any body with a content type base64-encoded; the web app API passes text; no body is null', () => {
    expect(proxyBody(binaryBodies(publicRoute), 'application/json', Buffer.from('{"a":1}'))).toEqual({ body: Buffer.from('{"a":1}').toString('base64'), isBase64Encoded: true });
    expect(proxyBody(binaryBodies(appRoute), 'application/json', Buffer.from('{"a":1}'))).toEqual({ body: '{"a":1}', isBase64Encoded: false });
    expect(proxyBody(binaryBodies(publicRoute), undefined, Buffer.from('x=1'))).toEqual({ body: 'x=1', isBase64Encoded: false });
    expect(proxyBody(true, 'application/json', Buffer.alloc(0))).toEqual({ body: null, isBase64Encoded: false });
  });

  test('base64 (4/3) makes the public API\'s largest body about 4.5 MB: 3/4 of Lambda\'s 6 MB less the event around it, far below API Gateway\'s 10 MB', () => {
    const largest = largestBody(publicRoute);
    const bound = (ROUTE_LIMITS.requestBytes * 3) / 4;
    expect(largest).toBeLessThan(bound);
    expect(largest).toBeGreaterThan(bound - 2048);
    expect(lambdaRequestRefusal(eventWith(publicRoute, largest + 1))).toEqual({ status: 413, message: 'Request Too Long' });
    expect(lambdaRequestRefusal(eventWith(publicRoute, largest))).toBeNull();
  });

  test('the web app API, bodies as text, takes up to about 6 MB (less the event and JSON escaping)', () => {
    const largest = largestBody(appRoute);
    expect(largest).toBeLessThan(ROUTE_LIMITS.requestBytes);
    expect(largest).toBeGreaterThan(ROUTE_LIMITS.requestBytes - 2048);
  });
});
