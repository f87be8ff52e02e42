import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { hashApiKey } from '../core/api-key-values.js';
import type { KeyGrant } from '../accounts/key-grant.repository.js';
import { API_KEY_AUTHORIZER } from '../catalog/authorizer.js';
import { PUBLIC_BASE } from '../catalog/routes.js';

/**
 * The edge check of a public API key (REQUEST Lambda authorizer, API key source AUTHORIZER): hash the
 * presented key, read its record, and answer Allow with the key's usage identifier — the API Gateway key
 * value its usage plan throttles by — or Deny, which API Gateway answers 403 `{"message":"Forbidden"}`
 * (gateway response ACCESS_DENIED). A Deny rather than an `Unauthorized` error, because a Deny is a result
 * API Gateway caches: a burst of one unknown key costs one read, not one per request.
 *
 * The answer is cached per key for the whole public API (API_KEY_AUTHORIZER.resultTtlSeconds), so the
 * policy names every public method of the stage, not just the one called: a cached answer is reused for
 * every route the key calls next.
 */
export type KeyGrantLookup = (keyHash: string) => Promise<KeyGrant | null>;

export function presentedKey(event: Pick<APIGatewayRequestAuthorizerEvent, 'headers'>): string | undefined {
  for (const [name, value] of Object.entries(event.headers ?? {})) {
    if (name.toLowerCase() === API_KEY_AUTHORIZER.identityHeader && value) return value;
  }
  return undefined;
}

/** `arn:…:execute-api:<region>:<account>:<api>/<stage>/<VERB>/<path>` → every public API method of that stage. */
export function publicApiMethods(methodArn: string): string {
  const [api, stage] = methodArn.split('/');
  return `${api}/${stage}/*${PUBLIC_BASE}*`;
}

function policy(principalId: string, effect: 'Allow' | 'Deny', methodArn: string): APIGatewayAuthorizerResult {
  return {
    principalId,
    policyDocument: { Version: '2012-10-17', Statement: [{ Action: 'execute-api:Invoke', Effect: effect, Resource: publicApiMethods(methodArn) }] },
  };
}

export async function authorizeApiKey(event: Pick<APIGatewayRequestAuthorizerEvent, 'headers' | 'methodArn'>, lookup: KeyGrantLookup): Promise<APIGatewayAuthorizerResult> {
  const raw = presentedKey(event);
  const grant = raw ? await lookup(hashApiKey(raw)) : null;
  if (!raw || !grant || grant.revoked) return policy('anonymous', 'Deny', event.methodArn);
  // A key created before usage identifiers existed was registered with API Gateway under its own value;
  // that value is what its usage plan knows it by until the key is rotated (docs/security.md "API keys").
  return { ...policy(grant.keyId, 'Allow', event.methodArn), usageIdentifierKey: grant.usageIdentifier ?? raw };
}
