import { JwtVerifier } from 'aws-jwt-verify';
import type { Jwks } from 'aws-jwt-verify/jwk';

/**
 * The local gateway's stand-in for API Gateway's Cognito user-pool authorizer: `Authorization: Bearer <ID
 * token>` verified against the pool's JWKS (signature, issuer, audience = the app client, expiry, token_use
 * `id`). What it lets through carries the token's claims as `requestContext.authorizer.claims`, string
 * values as API Gateway passes them; anything else is the authorizer's 401 {"message":"Unauthorized"}.
 */
export interface UserTokenVerifier {
  claimsOf(authorization: string | undefined): Promise<Record<string, string> | null>;
}

export async function userTokenVerifier(pool: { issuer: string; clientId: string }): Promise<UserTokenVerifier> {
  const jwksUri = `${pool.issuer}/.well-known/jwks.json`;
  const verifier = JwtVerifier.create({
    issuer: pool.issuer,
    audience: pool.clientId,
    jwksUri,
    customJwtCheck: ({ payload }) => {
      if (payload.token_use !== 'id') throw new Error('not an ID token');
    },
  });
  // The pool's keys are read once, over loopback; cognito-local never rotates them.
  const res = await fetch(jwksUri);
  if (!res.ok) throw new Error(`JWKS of the local user pool: ${res.status}`);
  verifier.cacheJwks((await res.json()) as Jwks);
  return {
    async claimsOf(authorization) {
      const m = /^Bearer (\S+)$/.exec(authorization ?? '');
      if (!m) return null;
      try {
        const payload = await verifier.verify(m[1]!);
        return Object.fromEntries(Object.entries(payload).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
      } catch {
        return null;
      }
    },
  };
}
