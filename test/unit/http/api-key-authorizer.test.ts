import type { APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { asUsageIdentifier, hashApiKey, newUsageIdentifier } from '../../../shared/core/api-key-values.js';
import type { KeyGrant } from '../../../shared/accounts/key-grant.repository.js';
import { authorizeApiKey, presentedKey, publicApiMethods } from '../../../shared/http/api-key-authorizer.js';

const METHOD_ARN = 'arn:aws:execute-api:eu-west-1:123456789012:abc123/prod/GET/api/public/v1/search/dj_01/';
const KEY = 'pk_live-secret';

function event(headers: Record<string, string> | null): Pick<APIGatewayRequestAuthorizerEvent, 'headers' | 'methodArn'> {
  return { headers, methodArn: METHOD_ARN };
}

/** A fake key table: the authorizer must ask it by hash, never by the presented key. */
function table(grants: Record<string, KeyGrant>) {
  const asked: string[] = [];
  const lookup = async (keyHash: string) => {
    asked.push(keyHash);
    return grants[keyHash] ?? null;
  };
  return { asked, lookup };
}

const live: KeyGrant = { keyId: 'key_1', accountId: 'acct_1', revoked: false, usageIdentifier: asUsageIdentifier('uid0123456789abcdef0123456789abcdef01234567') };

describe('the API-key authorizer', () => {
  test('a live key: Allow on every public method of the stage, with the key’s usage identifier, principal = key id', async () => {
    const { asked, lookup } = table({ [hashApiKey(KEY)]: live });
    const result = await authorizeApiKey(event({ 'X-Api-Key': KEY }), lookup);
    expect(asked).toEqual([hashApiKey(KEY)]);
    expect(result).toEqual({
      principalId: 'key_1',
      usageIdentifierKey: live.usageIdentifier,
      policyDocument: { Version: '2012-10-17', Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: 'arn:aws:execute-api:eu-west-1:123456789012:abc123/prod/*/api/public/v1/*' }] },
    });
    expect(JSON.stringify(result)).not.toContain(KEY);
  });

  test.each([
    ['an unknown key', { 'x-api-key': 'pk_unknown' }],
    ['a revoked key', { 'x-api-key': 'pk_revoked' }],
    ['no key', {}],
    ['an empty key', { 'x-api-key': '' }],
    ['no headers at all', null],
  ])('%s: Deny on every public method (cached like an Allow), no usage identifier', async (_what, headers) => {
    const { lookup } = table({ [hashApiKey('pk_revoked')]: { ...live, revoked: true } });
    const result = await authorizeApiKey(event(headers), lookup);
    expect(result.policyDocument.Statement).toEqual([{ Action: 'execute-api:Invoke', Effect: 'Deny', Resource: publicApiMethods(METHOD_ARN) }]);
    expect(result.usageIdentifierKey).toBeUndefined();
  });

  test('a key record from before usage identifiers: the presented key, the value it was registered under, stays its identifier', async () => {
    const { lookup } = table({ [hashApiKey(KEY)]: { ...live, usageIdentifier: null } });
    const result = await authorizeApiKey(event({ 'x-api-key': KEY }), lookup);
    expect(result.policyDocument.Statement[0]).toMatchObject({ Effect: 'Allow' });
    expect(result.usageIdentifierKey).toBe(KEY);
  });

  test('the header is found whatever its case; no key means no lookup', async () => {
    expect(presentedKey({ headers: { 'X-API-KEY': 'a' } })).toBe('a');
    expect(presentedKey({ headers: { 'x-api-key': 'b' } })).toBe('b');
    expect(presentedKey({ headers: { authorization: 'c' } })).toBeUndefined();
    const { asked, lookup } = table({});
    await authorizeApiKey(event({}), lookup);
    expect(asked).toEqual([]);
  });

  test('usage identifiers are random and alphanumeric, 20–128 characters (API Gateway’s rule for key values)', () => {
    const ids = Array.from({ length: 50 }, () => newUsageIdentifier());
    expect(new Set(ids).size).toBe(50);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9]{20,128}$/);
  });
});
