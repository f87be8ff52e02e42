import { createHash } from 'node:crypto';
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent, PolicyDocument, Statement } from 'aws-lambda';
import { LruMap } from '../core/lru-map.js';

/**
 * API Gateway's side of a REQUEST Lambda authorizer with API key source AUTHORIZER, for the local gateway:
 * - no value in the identity source: 401 Unauthorized without calling the authorizer (the stack's
 *   UNAUTHORIZED gateway response answers it as 403 Forbidden);
 * - the authorizer's result is cached per identity-source value for the TTL, Deny results included, and
 *   the cached policy is evaluated against the method of every later request (an explicit Deny wins, no
 *   matching Allow is an implicit deny: both ACCESS_DENIED);
 * - an Allow without `usageIdentifierKey` is refused like an unknown API key (INVALID_API_KEY);
 * - an authorizer that throws `Unauthorized` is a 401, any other failure AUTHORIZER_FAILURE (500); neither
 *   is cached.
 * The cache holds at most `capacity` answers, keyed by a hash of the presented value (no secret in memory).
 */
export type EdgeOutcome =
  | { allowed: true; usageIdentifier: string; principalId: string; context: Record<string, unknown> }
  | { allowed: false; refusal: 'UNAUTHORIZED' | 'ACCESS_DENIED' | 'INVALID_API_KEY' | 'AUTHORIZER_FAILURE' };

export type AuthorizerFunction = (event: APIGatewayRequestAuthorizerEvent) => Promise<APIGatewayAuthorizerResult>;

/** IAM-style resource match: `*` any run of characters (slashes included), `?` any one character. */
export function resourceMatches(pattern: string, arn: string): boolean {
  const source = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${source}$`).test(arn);
}

function statementCovers(statement: Statement, methodArn: string): boolean {
  const s = statement as { Action?: string | string[]; Resource?: string | string[] };
  const actions = [s.Action ?? []].flat();
  const resources = [s.Resource ?? []].flat();
  return actions.some((a) => resourceMatches(a, 'execute-api:Invoke')) && resources.some((r) => resourceMatches(r, methodArn));
}

export function policyAllows(policy: PolicyDocument, methodArn: string): boolean {
  const covering = policy.Statement.filter((st) => statementCovers(st, methodArn));
  return !covering.some((st) => st.Effect === 'Deny') && covering.some((st) => st.Effect === 'Allow');
}

export class EdgeAuthorizer {
  private readonly cache: LruMap<string, { result: Promise<APIGatewayAuthorizerResult>; expiresAt: number }>;

  constructor(
    private readonly authorizer: () => Promise<AuthorizerFunction>,
    private readonly ttlSeconds: number,
    private readonly now: () => number = () => Date.now(),
    capacity = 10_000,
  ) {
    this.cache = new LruMap(capacity);
  }

  async authorize(identity: string | undefined, event: APIGatewayRequestAuthorizerEvent): Promise<EdgeOutcome> {
    if (!identity) return { allowed: false, refusal: 'UNAUTHORIZED' };
    let result: APIGatewayAuthorizerResult;
    try {
      result = await this.cachedResult(createHash('sha256').update(identity).digest('base64url'), event);
    } catch (e) {
      return { allowed: false, refusal: e instanceof Error && e.message === 'Unauthorized' ? 'UNAUTHORIZED' : 'AUTHORIZER_FAILURE' };
    }
    if (!policyAllows(result.policyDocument, event.methodArn)) return { allowed: false, refusal: 'ACCESS_DENIED' };
    if (!result.usageIdentifierKey) return { allowed: false, refusal: 'INVALID_API_KEY' };
    return { allowed: true, usageIdentifier: result.usageIdentifierKey, principalId: result.principalId, context: result.context ?? {} };
  }

  private cachedResult(identityHash: string, event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> {
    const cached = this.cache.get(identityHash);
    if (cached && cached.expiresAt > this.now()) return cached.result;
    // Requests that arrive while the first is being authorised share its answer.
    const result = this.authorizer().then((fn) => fn(event));
    if (this.ttlSeconds > 0) {
      this.cache.set(identityHash, { result, expiresAt: this.now() + this.ttlSeconds * 1000 });
      result.catch(() => {
        if (this.cache.get(identityHash)?.result === result) this.cache.set(identityHash, { result, expiresAt: 0 });
      });
    }
    return result;
  }
}
