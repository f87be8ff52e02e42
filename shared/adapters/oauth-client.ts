import type * as oidc from 'openid-client';
import { isLocalMode } from '../core/env.js';
import { once } from '../core/once.js';
import type { ProviderSettings } from './oauth-providers.js';

/**
 * OAuth 2.0 authorization code with PKCE (S256) and refresh, through openid-client. Plain HTTP is allowed
 * only on the twin, whose emulators listen on loopback. A refused grant (`invalid_grant`: revoked,
 * expired or consent withdrawn; Microsoft words it as an AADSTS error with the same code) is a
 * `GrantRevokedError`; anything else propagates as a provider failure.
 */
export interface TokenSet {
  accessToken: string;
  refreshToken: string;
  /** Wall-clock ms at which the access token stops working. */
  expiresAtMs: number;
}

export class GrantRevokedError extends Error {
  constructor(readonly reason: string) {
    super(`the provider refused the grant: ${reason}`);
    this.name = 'GrantRevokedError';
  }
}

// openid-client loads with the first OAuth call, not at init (a lazy package in Lambda, docs/benchmarks.md "Cold starts").
const openid = /* @__PURE__ */ once(() => import('openid-client'));

async function configuration(p: ProviderSettings): Promise<oidc.Configuration> {
  const oidc = await openid();
  const config = new oidc.Configuration({ issuer: p.issuer, authorization_endpoint: p.authorizationEndpoint, token_endpoint: p.tokenEndpoint }, p.clientId, p.clientSecret);
  if (isLocalMode() && /^http:\/\/(127\.0\.0\.1|localhost|\[::1\])[:/]/.test(p.tokenEndpoint)) oidc.allowInsecureRequests(config);
  return config;
}

export async function newPkceVerifier(): Promise<string> {
  return (await openid()).randomPKCECodeVerifier();
}

export async function newState(): Promise<string> {
  return (await openid()).randomState();
}

export async function authorizationUrl(p: ProviderSettings, opts: { redirectUri: string; state: string; verifier: string; loginHint?: string }): Promise<string> {
  const params: Record<string, string> = {
    redirect_uri: opts.redirectUri,
    scope: p.scopes.join(' '),
    state: opts.state,
    code_challenge: await (await openid()).calculatePKCECodeChallenge(opts.verifier),
    code_challenge_method: 'S256',
    ...(opts.loginHint ? { login_hint: opts.loginHint } : {}),
    // Google issues a refresh token only with offline access, and again on reconnect only with consent.
    ...(p.kind === 'google' ? { access_type: 'offline', prompt: 'consent' } : {}),
  };
  return (await openid()).buildAuthorizationUrl(await configuration(p), params).toString();
}

function tokensOf(r: oidc.TokenEndpointResponse, previousRefresh: string | null): TokenSet {
  const refreshToken = r.refresh_token ?? previousRefresh;
  if (!refreshToken) throw new Error('the provider issued no refresh token (offline access was not granted)');
  return { accessToken: r.access_token, refreshToken, expiresAtMs: Date.now() + (r.expires_in ?? 3600) * 1000 };
}

async function mapGrantError(e: unknown): Promise<never> {
  if (e instanceof (await openid()).ResponseBodyError && e.error === 'invalid_grant') throw new GrantRevokedError(e.error_description ?? e.error);
  throw e;
}

/** The callback's code for tokens; `callbackUrl` is the redirect URI with the provider's query string. */
export async function exchangeCode(p: ProviderSettings, callbackUrl: URL, checks: { verifier: string; state: string }): Promise<TokenSet> {
  const r = await (await openid()).authorizationCodeGrant(await configuration(p), callbackUrl, { pkceCodeVerifier: checks.verifier, expectedState: checks.state }).catch(mapGrantError);
  return tokensOf(r, null);
}

export async function refreshTokens(p: ProviderSettings, refreshToken: string): Promise<TokenSet> {
  const r = await (await openid()).refreshTokenGrant(await configuration(p), refreshToken).catch(mapGrantError);
  return tokensOf(r, refreshToken);
}
