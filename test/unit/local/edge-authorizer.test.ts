import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { EdgeAuthorizer, policyAllows, resourceMatches } from '../../../shared/local/edge-authorizer.js';
import { authorizeApiKey } from '../../../shared/http/api-key-authorizer.js';
import { asUsageIdentifier, hashApiKey } from '../../../shared/core/api-key-values.js';

const API = 'arn:aws:execute-api:us-east-1:000000000000:local/local';

function request(method: string, path: string, key?: string): APIGatewayRequestAuthorizerEvent {
  return { type: 'REQUEST', methodArn: `${API}/${method}${path}`, headers: key ? { 'x-api-key': key } : {} } as unknown as APIGatewayRequestAuthorizerEvent;
}

/** The real authorizer over a key table held in memory, counting its invocations; a clock the test moves. */
function setup(ttlSeconds = 300) {
  let now = 1_000_000;
  const keys = new Map<string, { revoked: boolean }>([[hashApiKey('pk_good'), { revoked: false }]]);
  const calls: string[] = [];
  const fn = async (event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> => {
    calls.push(event.methodArn);
    return authorizeApiKey(event, async (hash) => {
      const k = keys.get(hash);
      return k ? { keyId: 'key_1', accountId: 'acct_1', revoked: k.revoked, usageIdentifier: asUsageIdentifier('uidabc') } : null;
    });
  };
  const edge = new EdgeAuthorizer(async () => fn, ttlSeconds, () => now);
  return { edge, calls, keys, advance: (ms: number) => (now += ms) };
}

describe('the local edge plays API Gateway’s side of the authorizer', () => {
  test('no identity: UNAUTHORIZED without calling the authorizer', async () => {
    const { edge, calls } = setup();
    expect(await edge.authorize(undefined, request('GET', '/api/public/v1/emails/'))).toEqual({ allowed: false, refusal: 'UNAUTHORIZED' });
    expect(calls).toEqual([]);
  });

  test('an Allow is cached per key for the TTL and reused for other methods; then asked again', async () => {
    const { edge, calls, keys, advance } = setup(300);
    const first = await edge.authorize('pk_good', request('GET', '/api/public/v1/search/dj_1/', 'pk_good'));
    expect(first).toEqual({ allowed: true, usageIdentifier: 'uidabc', principalId: 'key_1', context: {} });
    keys.get(hashApiKey('pk_good'))!.revoked = true;
    advance(299_000);
    expect((await edge.authorize('pk_good', request('POST', '/api/public/v1/emails/', 'pk_good'))).allowed).toBe(true);
    expect(calls).toHaveLength(1);
    advance(1_000);
    expect(await edge.authorize('pk_good', request('POST', '/api/public/v1/emails/', 'pk_good'))).toEqual({ allowed: false, refusal: 'ACCESS_DENIED' });
    expect(calls).toHaveLength(2);
  });

  test('a Deny is cached too: a burst of one unknown key invokes the authorizer once', async () => {
    const { edge, calls } = setup();
    const outcomes = await Promise.all(Array.from({ length: 20 }, () => edge.authorize('pk_nope', request('GET', '/api/public/v1/emails/', 'pk_nope'))));
    expect(new Set(outcomes.map((o) => JSON.stringify(o)))).toEqual(new Set([JSON.stringify({ allowed: false, refusal: 'ACCESS_DENIED' })]));
    expect(calls).toHaveLength(1);
  });

  test('TTL 0 disables the cache', async () => {
    const { edge, calls } = setup(0);
    await edge.authorize('pk_good', request('GET', '/api/public/v1/emails/', 'pk_good'));
    await edge.authorize('pk_good', request('GET', '/api/public/v1/emails/', 'pk_good'));
    expect(calls).toHaveLength(2);
  });

  test('failures: Unauthorized is a 401 refusal, anything else AUTHORIZER_FAILURE; neither is cached; an Allow without a usage identifier is INVALID_API_KEY', async () => {
    let answer: () => Promise<APIGatewayAuthorizerResult> = async () => {
      throw new Error('Unauthorized');
    };
    let invocations = 0;
    const edge = new EdgeAuthorizer(async () => () => (invocations++, answer()), 300);
    const req = request('GET', '/api/public/v1/emails/', 'k');
    expect(await edge.authorize('k', req)).toEqual({ allowed: false, refusal: 'UNAUTHORIZED' });
    answer = async () => {
      throw new Error('boom');
    };
    expect(await edge.authorize('k', req)).toEqual({ allowed: false, refusal: 'AUTHORIZER_FAILURE' });
    answer = async () => ({ principalId: 'p', policyDocument: { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: 'execute-api:Invoke', Resource: `${API}/*` }] } });
    expect(await edge.authorize('k', req)).toEqual({ allowed: false, refusal: 'INVALID_API_KEY' });
    expect(invocations).toBe(3);
  });

  test('policy evaluation: wildcards span slashes, an explicit Deny wins, no matching Allow is a deny', () => {
    const arn = `${API}/GET/api/public/v1/search/dj_1/`;
    expect(resourceMatches(`${API}/*/api/public/v1/*`, arn)).toBe(true);
    expect(resourceMatches(`${API}/POST/api/public/v1/*`, arn)).toBe(false);
    expect(resourceMatches(`${API}/G?T/api/public/v1/*`, arn)).toBe(true);
    const allow = { Effect: 'Allow' as const, Action: 'execute-api:Invoke', Resource: `${API}/*` };
    expect(policyAllows({ Version: '2012-10-17', Statement: [allow] }, arn)).toBe(true);
    expect(policyAllows({ Version: '2012-10-17', Statement: [allow, { Effect: 'Deny' as const, Action: 'execute-api:*', Resource: [`${API}/GET/*`] }] }, arn)).toBe(false);
    expect(policyAllows({ Version: '2012-10-17', Statement: [{ ...allow, Resource: `${API}/*/api/console/*` }] }, arn)).toBe(false);
  });
});
