import * as z from '../core/zod.js';
import { sealContext, secretBox } from '../adapters/secret-box.js';
import { providerSettings, type MailboxProviderKind } from '../adapters/oauth-providers.js';
import { authorizationUrl, exchangeCode, GrantRevokedError, newPkceVerifier, newState } from '../adapters/oauth-client.js';
import { providerMailboxApi } from '../adapters/oauth-mailbox-api.js';
import { getAccount } from '../accounts/accounts.repository.js';
import { createSendingAccount, listSendingAccounts, updateSendingAccount } from '../accounts/sending-accounts.repository.js';
import type { SendingAccount } from '../accounts/model.js';
import { serviceClock, type Clock } from '../core/clock.js';
import { isLocalMode, optionalEnv } from '../core/env.js';
import { AppError, NotFoundError, ValidationError } from '../core/errors.js';
import { OAUTH_CALLBACK_PATH } from '../catalog/routes.js';
import { BINDING_SECONDS, bindingMatches, newBrowserBinding, type BrowserBinding } from './browser-binding.js';
import type { MailboxApiFactory } from '../ports/mailbox-provider.js';
import { sealTokens } from './mailbox-session.js';
import { putOAuthFlow, saveConnection, takeOAuthFlow } from './mailboxes.repository.js';

/**
 * Connecting a Google or Microsoft mailbox (docs/decisions.md#connecting-a-mailbox):
 * 1. `start` (the web app's `sending-accounts/connect/`, or the console's for an operator): a PKCE verifier
 *    and a state, stored server-side for ten minutes with the hash of a browser-binding nonce (the nonce goes
 *    to the browser in a cookie, browser-binding.ts), and the provider's authorization URL (offline access,
 *    the scopes of oauth-providers.ts), whose redirect URI is the public callback;
 * 2. `complete` (the public callback): the state is consumed (single use, whatever follows), the browser's
 *    cookie checked against it, the code exchanged with the verifier, the mailbox's address read from the
 *    provider, the sending account of that address created or reconnected, its tokens sealed, and its sync
 *    cursor set at "now", so only later mail is examined. Every failure is an `OAuthCallbackFailure` with a
 *    short code the callback puts in its redirect, never an error page.
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

/** The web app's start: the provider only; the account is the signed-in user's and the way back is the app's page. */
export const AppConnectMailboxSchema = z.strictObject({
  type: z.enum(['google', 'microsoft']),
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

/**
 * Why a callback connected nothing, as the `error` of its redirect: `invalid_state` (unknown, used or expired),
 * `browser_mismatch` (no binding cookie, or another browser's), the provider's own OAuth error code
 * (`access_denied`, …; `provider_error` when it sent none usable), `invalid_grant` (the code was refused),
 * `unavailable` (provider not configured). Anything unexpected is the callback's `server_error`.
 */
export class OAuthCallbackFailure extends Error {
  constructor(
    readonly code: string,
    /** Where the flow's starter asked to come back to; null when the state named no flow. */
    readonly returnUrl: string | null,
    detail: string,
  ) {
    super(`mailbox connection failed (${code}): ${detail}`);
    this.name = 'OAuthCallbackFailure';
  }
}

const publicBase = () => (optionalEnv('PUBLIC_BASE_URL') ?? 'http://localhost:3000').replace(/\/$/, '');

/** The public callback the providers redirect to: `OAUTH_REDIRECT_URI` in AWS (the web app's domain), else `<PUBLIC_BASE_URL>/oauth/callback/`. */
export function oauthRedirectUri(): string {
  return optionalEnv('OAUTH_REDIRECT_URI') ?? `${publicBase()}${OAUTH_CALLBACK_PATH}`;
}

/** The web app's sending-accounts page, where a callback lands unless the starter gave a `return_url`. */
export function appSendingAccountsUrl(): string {
  const app = optionalEnv('WEB_APP_URL') ?? `${publicBase()}/app/`;
  return `${app}#/sending-accounts`;
}

/** `to` with `sending_account=ea_…` or `error=…` in its query string (before any `#/page` fragment). */
export function callbackLanding(to: string, outcome: { sending_account: string } | { error: string }): string {
  const url = new URL(to);
  for (const [k, v] of Object.entries(outcome)) url.searchParams.set(k, v);
  return url.toString();
}

export interface StartedConnection {
  authorization_url: string;
  state: string;
  expires_at: string;
  /** The browser binding: its cookie goes on the start's answer, never in a body. */
  binding: BrowserBinding;
}

export async function startMailboxConnection(
  accountId: string,
  input: z.output<typeof ConnectMailboxSchema>,
  clock: Clock = serviceClock,
  target: { eaId?: string } = {},
): Promise<StartedConnection> {
  if (!(await getAccount(accountId))) throw new NotFoundError('Account not found.');
  const settings = await providerSettings(input.type);
  if (!settings) throw new ProviderNotConfiguredError(input.type);
  const state = await newState();
  const verifier = await newPkceVerifier();
  const redirectUri = oauthRedirectUri();
  const binding = newBrowserBinding(redirectUri);
  const now = clock.now();
  await putOAuthFlow(
    {
      state,
      account_id: accountId,
      provider: input.type,
      verifier_sealed: await (await secretBox()).seal(verifier, sealContext.oauthVerifier(state)),
      nonce_hash: binding.nonceHash,
      redirect_uri: redirectUri,
      return_url: input.return_url ?? null,
      login_hint: input.email ?? null,
      ea_id: target.eaId ?? null,
    },
    now,
  );
  const url = await authorizationUrl(settings, { redirectUri, state, verifier, loginHint: input.email });
  return { authorization_url: url, state, expires_at: new Date(now.getTime() + BINDING_SECONDS * 1000).toISOString(), binding };
}

/** A provider's OAuth error code as sent (`access_denied`, `consent_required`, …); anything else is `provider_error`. */
const providerErrorCode = (error: string) => (/^[a-z_]{1,64}$/.test(error) ? error : 'provider_error');

/**
 * The callback's use case. `nonce` is the binding cookie the browser presented (null without one). The
 * state is taken (deleted) before anything is checked, so a state is tried once whatever the outcome: a
 * callback without the right cookie spends it, and the flow must be started again from the right browser.
 */
export async function completeMailboxConnection(
  query: Record<string, string>,
  nonce: string | null,
  deps: { clock?: Clock; api?: MailboxApiFactory } = {},
): Promise<{ account: SendingAccount & { account_id: string }; returnUrl: string | null }> {
  const clock = deps.clock ?? serviceClock;
  const parsed = OAuthCallbackSchema.safeParse(query);
  if (!parsed.success) throw new OAuthCallbackFailure('invalid_state', null, 'no usable state in the query');
  const q = parsed.data;
  const flow = await takeOAuthFlow(q.state, clock.now());
  if (!flow) throw new OAuthCallbackFailure('invalid_state', null, 'unknown, used or expired state');
  const fail = (code: string, detail: string) => new OAuthCallbackFailure(code, flow.return_url, detail);
  if (!bindingMatches(nonce, flow.nonce_hash)) throw fail('browser_mismatch', nonce ? 'another browser\'s binding cookie' : 'no binding cookie');
  if (q.error || !q.code) throw fail(q.error ? providerErrorCode(q.error) : 'provider_error', q.error ? `the provider answered ${q.error}` : 'no code');
  const settings = await providerSettings(flow.provider);
  if (!settings) throw fail('unavailable', `${flow.provider} is not configured`);
  const callback = new URL(flow.redirect_uri);
  callback.searchParams.set('code', q.code);
  callback.searchParams.set('state', q.state);
  const verifier = await (await secretBox()).open(flow.verifier_sealed, sealContext.oauthVerifier(flow.state));
  const tokens = await exchangeCode(settings, callback, { verifier, state: flow.state }).catch((e: unknown) => {
    if (e instanceof GrantRevokedError) throw fail('invalid_grant', e.reason);
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
    tokens_sealed: await sealTokens(ea.id, tokens),
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
 * docs/decisions.md#connecting-a-mailbox: on the twin a `google` or `microsoft` sending account created with `POST
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
  // In process, the nonce is handed over as the browser's cookie would carry it.
  const { account } = await completeMailboxConnection(Object.fromEntries(callback.searchParams), started.binding.nonce, { clock });
  return account;
}
