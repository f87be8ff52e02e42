import { jest } from '@jest/globals';
import { invokeRoute } from '../../../shared/local/gateway.js';
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
