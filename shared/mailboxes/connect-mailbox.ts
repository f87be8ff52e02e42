import * as z from '../core/zod.js';
import { secretBox } from '../adapters/secret-box.js';
import { providerSettings, type MailboxProviderKind } from '../adapters/oauth-providers.js';
import { authorizationUrl, exchangeCode, GrantRevokedError, newPkceVerifier, newState } from '../adapters/oauth-client.js';
import { providerMailboxApi } from '../adapters/oauth-mailbox-api.js';
import { getAccount } from '../accounts/accounts.repository.js';
import { createSendingAccount, listSendingAccounts, updateSendingAccount } from '../accounts/sending-accounts.repository.js';
import type { SendingAccount } from '../accounts/model.js';
import { serviceClock, type Clock } from '../core/clock.js';
import { isLocalMode, optionalEnv } from '../core/env.js';
import { AppError, NotFoundError, ValidationError } from '../core/errors.js';
import type { MailboxApiFactory } from './mailbox-provider.js';
import { sealTokens } from './mailbox-session.js';
import { putOAuthFlow, saveConnection, takeOAuthFlow } from './mailboxes.repository.js';

/**
 * Connecting a Google or Microsoft mailbox (DESIGN.md §2 console API):
 * 1. `start`: a PKCE verifier and a state, stored server-side for ten minutes, and the provider's
 *    authorization URL (offline access, the scopes of oauth-providers.ts);
 * 2. `complete` (the callback): the state is consumed (single use), the code exchanged with the verifier,
 *    the mailbox's address read from the provider, the sending account of that address created or
 *    reconnected, its tokens sealed, and its sync cursor set at "now", so only later mail is examined.
 */
const returnUrl = z.url().check(
  z.refine((u) => {
    // A value that is no URL at all has its issue from z.url() already; the refinement still runs after it.
    if (!URL.canParse(u)) return true;
    const url = new URL(u);
    return url.protocol === 'https:' || (isLocalMode() && url.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname));
  }, 'must be an https URL'),
);

export const ConnectMailboxSchema = z.strictObject({
  type: z.enum(['google', 'microsoft']),
  return_url: z.optional(returnUrl),
  /** Suggested to the provider's sign-in page (login_hint). */
  email: z.optional(z.email()),
});

export const OAuthCallbackSchema = z.object({
  state: z.string().check(z.minLength(1), z.maxLength(200)),
  code: z.optional(z.string().check(z.minLength(1), z.maxLength(4000))),
  error: z.optional(z.string().check(z.maxLength(200))),
  error_description: z.optional(z.string().check(z.maxLength(2000))),
});

class ProviderNotConfiguredError extends AppError {
  constructor(provider: string) {
    super(503, 'unavailable', `Connecting ${provider} mailboxes is not configured on this deployment.`);
  }
}

export function oauthRedirectUri(): string {
  return optionalEnv('OAUTH_REDIRECT_URI') ?? `${(optionalEnv('PUBLIC_BASE_URL') ?? 'http://localhost:3000').replace(/\/$/, '')}/api/console/v1/oauth/callback/`;
}

export async function startMailboxConnection(
  accountId: string,
  input: z.output<typeof ConnectMailboxSchema>,
  clock: Clock = serviceClock,
  target: { eaId?: string } = {},
): Promise<{ authorization_url: string; state: string; expires_at: string }> {
  if (!(await getAccount(accountId))) throw new NotFoundError('Account not found.');
  const settings = await providerSettings(input.type);
  if (!settings) throw new ProviderNotConfiguredError(input.type);
  const state = await newState();
  const verifier = await newPkceVerifier();
  const redirectUri = oauthRedirectUri();
  const now = clock.now();
  await putOAuthFlow(
    { state, account_id: accountId, provider: input.type, verifier_sealed: await (await secretBox()).seal(verifier), redirect_uri: redirectUri, return_url: input.return_url ?? null, login_hint: input.email ?? null, ea_id: target.eaId ?? null },
    now,
  );
  const url = await authorizationUrl(settings, { redirectUri, state, verifier, loginHint: input.email });
  return { authorization_url: url, state, expires_at: new Date(now.getTime() + 600_000).toISOString() };
}

export async function completeMailboxConnection(
  query: z.output<typeof OAuthCallbackSchema>,
  deps: { clock?: Clock; api?: MailboxApiFactory } = {},
): Promise<{ account: SendingAccount & { account_id: string }; returnUrl: string | null }> {
  const clock = deps.clock ?? serviceClock;
  const flow = await takeOAuthFlow(query.state, clock.now());
  if (!flow) throw new ValidationError('Unknown, used or expired state: start the connection again.');
  if (query.error || !query.code) throw new ValidationError(`The provider did not grant access: ${query.error ?? 'no code'}${query.error_description ? ` (${query.error_description})` : ''}.`);
  const settings = await providerSettings(flow.provider);
  if (!settings) throw new ProviderNotConfiguredError(flow.provider);
  const callback = new URL(flow.redirect_uri);
  callback.searchParams.set('code', query.code);
  callback.searchParams.set('state', query.state);
  const verifier = await (await secretBox()).open(flow.verifier_sealed);
  const tokens = await exchangeCode(settings, callback, { verifier, state: flow.state }).catch((e: unknown) => {
    if (e instanceof GrantRevokedError) throw new ValidationError(`The provider refused the authorization code: ${e.reason}`);
    throw e;
  });
  const api = (deps.api ?? providerMailboxApi)(flow.provider, settings.apiBase, tokens.accessToken);
  const email = await api.address();
  const cursor = await api.startCursor();

  const sameMailbox = (a: SendingAccount) => a.type === flow.provider && a.email.toLowerCase() === email;
  const accounts = await listSendingAccounts(flow.account_id, clock);
  const existing = accounts.find((a) => a.id === flow.ea_id && sameMailbox(a)) ?? accounts.find(sameMailbox);
  const ea =
    existing ??
    (await createSendingAccount(flow.account_id, { email, type: flow.provider, connected: false, sending_enabled: true, daily_limit: 50, health: 'connecting', timezone: 'UTC' }, clock));
  await saveConnection({
    ea_id: ea.id,
    account_id: flow.account_id,
    provider: flow.provider,
    email,
    tokens_sealed: await sealTokens(tokens),
    access_expires_ms: tokens.expiresAtMs,
    cursor,
    cursor_rev: 0,
    status: 'active',
    connected_at: clock.now().toISOString(),
  });
  const account = await updateSendingAccount(ea.id, { connected: true, health: 'healthy' }, clock);
  return { account, returnUrl: flow.return_url };
}

/** Refused: a `google` or `microsoft` account is connected by its owner's consent, through `connect/`. */
export class ConsentRequiredError extends ValidationError {
  constructor(type: string) {
    super(`A ${type} sending account is connected by its owner's consent: start it with POST accounts/{id}/sending-accounts/connect/ ({"type": "${type}"}).`, [
      { path: 'type', message: 'google and microsoft accounts are connected through sending-accounts/connect/' },
    ]);
  }
}

const LOOPBACK = /^http:\/\/(127\.0\.0\.1|localhost|\[::1\])[:/]/;

/** Whether this deployment's provider is the twin's emulator (local mode, authorize endpoint on loopback). */
export async function hasEmulatedConsent(type: MailboxProviderKind): Promise<boolean> {
  if (!isLocalMode()) return false;
  const settings = await providerSettings(type);
  return settings !== null && LOOPBACK.test(settings.authorizationEndpoint);
}

/**
 * DESIGN.md §2: on the twin a `google` or `microsoft` sending account created with `POST
 * …/sending-accounts/` connects by itself, along the path `connect/` and the callback take: a started
 * connection, the emulated provider's consent (its authorize endpoint redirects with a code), then the
 * callback's code exchange, sealed tokens and sync cursor.
 */
export async function connectThroughEmulatedConsent(accountId: string, ea: SendingAccount & { type: MailboxProviderKind }, clock: Clock = serviceClock): Promise<SendingAccount> {
  if (!(await hasEmulatedConsent(ea.type))) throw new ConsentRequiredError(ea.type);
  const started = await startMailboxConnection(accountId, { type: ea.type, email: ea.email }, clock, { eaId: ea.id });
  const consent = await fetch(started.authorization_url, { redirect: 'manual' });
  await consent.body?.cancel();
  const location = consent.headers.get('location');
  if (consent.status !== 302 || !location) throw new Error(`the emulated ${ea.type} consent answered ${consent.status}`);
  const callback = new URL(location);
  const { account } = await completeMailboxConnection({ state: callback.searchParams.get('state') ?? '', code: callback.searchParams.get('code') ?? undefined }, { clock });
  return account;
}
