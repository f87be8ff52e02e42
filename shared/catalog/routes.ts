import type { Bindings } from './bindings.js';
import { OPENAPI_DOCUMENT } from './document.js';

/**
 * The route table: the one source of truth for every HTTP route. The CDK stack builds one Lambda and one
 * API Gateway method per row, with its throttle (per key in the usage plan for `api_key` routes, stage-wide
 * method settings for the others); the local gateway serves the same rows.
 *
 * auth:
 * - `api_key`: the API-key authorizer checks `x-api-key` at the edge (403 {"message":"Forbidden"};
 *   authorizer.ts), the handler confirms it and maps it to the account.
 * - `handler_key`: no edge check; the handler checks the key itself and answers 401 `unauthorized`
 *   (test-email routes, docs/decisions.md#decisions-the-contract-leaves-open).
 * - `admin`: the console API; IAM auth in AWS, `x-admin-token` locally.
 * - `public`: no credential (open-tracking pixel, one-click unsubscribe, the OAuth callback, privacy requests).
 * - `user`: the customer web app's API (`/api/app/v1/`): `Authorization: Bearer <Cognito ID token>`, checked
 *   at the edge by a Cognito user-pool authorizer in AWS and through the pool's JWKS by the local gateway
 *   (401 {"message":"Unauthorized"}); the handler takes the account from the token's `custom:account_id`.
 */
export type Auth = 'api_key' | 'handler_key' | 'admin' | 'public' | 'user';
export type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

export interface Throttle {
  /** Sustained requests per minute (docs/decisions.md#limits). */
  perMinute: number;
  burst: number;
}

export interface RouteDef {
  method: Method;
  /** Full path with trailing slash and `{param}` segments. */
  path: string;
  /** Handler module relative to the repo root; it exports `handler`. */
  module: string;
  auth: Auth;
  /** Per caller: per key for `api_key` and `handler_key` routes, stage-wide for `admin`, `public` and `user` ones. */
  throttle?: Throttle;
  /**
   * `handler_key` routes only: the stage-wide method throttle at the gateway, a ceiling for all callers
   * together. The gateway cannot count per key for keys no usage plan knows, so the handler applies
   * `throttle` per key itself (`shared/accounts/key-throttle.repository.ts`).
   */
  edgeThrottle?: Throttle;
  /**
   * `handler_key` routes only: the name of the per-key bucket `throttle` is counted in, when routes share one
   * (the test-email catch-all of docs/decisions.md#limits is one limit for POST and GET together). Without it, each route has its own.
   */
  keyThrottleBucket?: string;
  bindings: Bindings;
  timeoutSeconds?: number;
  /** Files (repo-relative) the handler reads at run time, copied into its bundle at the same relative path. */
  assets?: string[];
}

/** Scalar's standalone reference renderer, served to the browser from our own origin (no CDN). */
export const SCALAR_BUNDLE = 'node_modules/@scalar/api-reference/dist/browser/standalone.js';

export const PUBLIC_BASE = '/api/public/v1/';
export const CONSOLE_BASE = '/api/console/v1/';
/** The customer web app's API; the public OpenAPI document leaves it out. */

/** The public OAuth callback the mailbox providers redirect the user's browser to (docs/decisions.md#connecting-a-mailbox). */
export const OAUTH_CALLBACK_PATH = '/oauth/callback/';

const pub = (p: string) => `${PUBLIC_BASE}${p}`;
const con = (p: string) => `${CONSOLE_BASE}${p}`;
const app = (p: string) => `${APP_BASE}${p}`;

/** The per-key bucket both test-email routes count in (docs/decisions.md#limits: one catch-all). */
const TEST_EMAILS_BUCKET = 'test-emails';

const T = {
  read: { perMinute: 600, burst: 50 },
  consoleWrite: { perMinute: 600, burst: 50 },
  // Image proxies fetch pixels in bursts when a campaign lands; 50/s sustained covers thousands of opens a minute.
  openPixel: { perMinute: 3000, burst: 100 },
  // The confirmation page (GET): a person's browser, or a link scanner fetching every link of a message.
  unsubscribe: { perMinute: 600, burst: 50 },
  // RFC 8058 one-click (POST): never refused short of the stage's ceiling for any method (a refusal is a
  // compliance failure). No per-source rule below it but the flood cap ONE_CLICK_UNSUBSCRIBE_FLOOD.
  oneClickUnsubscribe: { perMinute: 60_000, burst: 2000 },
  // The catch-all of docs/decisions.md#limits, per key, counted by the handler in one bucket for both test-email routes.
  testEmails: { perMinute: 1, burst: 2 },
  // Every pilot key together: at most PILOT_ACCOUNT_LIMIT accounts, each held to 10 new tests an hour.
  testEmailsEdge: { perMinute: 60, burst: 10 },
  // Every user's browser coming back from a provider's consent screen, together: connections are rare, and
  // each callback is one state lookup (a state is 256 bits of randomness, so there is nothing to guess at).
  oauthCallback: { perMinute: 120, burst: 20 },
  // A privacy request (no key, no sign-in; docs/privacy.md) mails a verification link: every caller together,
  // the stage's ceiling on mail the form can cause; each address gets at most 3 a day on top (the handler).
  privacyRequest: { perMinute: 60, burst: 10 },
  // The privacy page's reads and confirms of a link (a person's browser): one lookup of a 256-bit token each.
  privacyLink: { perMinute: 300, burst: 30 },
} satisfies Record<string, Throttle>;

import { APP_BASE, APP_LIMITS } from './app-limits.js';
export { APP_BASE } from './app-limits.js';
export { APP_LIMITS, appLimitOf, type AppLimit, type AppLimitClass } from './app-limits.js';

/**
 * The stage's default method throttle (resource path `/*`, method `*`): a ceiling on each method for all
 * clients together, wherever the method has no setting of its own (routes no API key identifies carry theirs).
 * API-key routes are throttled per key by the usage plan; this bounds their sum at a tenth of the account's
 * regional 10,000 requests/s, so one hot method cannot take the account's API Gateway and Lambda capacity
 * from the others. Requests per second, as API Gateway takes them.
 */
export const STAGE_METHOD_CEILING = { rateLimit: 1000, burstLimit: 2000 } as const;

/** The evaluation windows AWS WAF offers a rate-based rule, in seconds. */
export type RateWindowSeconds = 60 | 120 | 300 | 600;

/**
 * A per-source-address limit at the edge: an AWS WAF rate-based rule (aggregated by IP) in AWS, a counter per
 * remote address in the local gateway. A request counts when its whole URI path, percent-decoded once (WAF's
 * URL_DECODE), matches one of `paths` and none of `excludePaths`, anchored at both ends (`^…$`; on the
 * execute-api host the stage name may stand in front), and its method is one of `methods` (any when absent).
 * Patterns are route paths: `{param}` is one segment, a trailing `*` any rest, a trailing slash optional (API
 * Gateway routes `/a/b` to `/a/b/`). Anchored, so an encoded `x%2Fopenapi.json/` under the API is counted as
 * an API-key route, never taken for the contract. Every matching request counts, refused ones too, as WAF
 * estimates the incoming rate: a source that keeps flooding stays refused.
 */
export interface SourceRateLimit {
  /** The WAF rule's name and metric. */
  name: string;
  /** Requests one source may make in the trailing window; the next ones get 429 (WAF's lowest setting is 10). */
  limit: number;
  windowSeconds: RateWindowSeconds;
  paths: readonly string[];
  excludePaths?: readonly string[];
  methods?: readonly Method[];
}

/** One source may take at most this share of a route's stage-wide budget: it takes this many sources to spend it all. */
const SOURCES_TO_SPEND_A_BUDGET = 5;
const perSource = (name: string, t: Throttle, paths: string[], methods?: Method[]): SourceRateLimit => ({
  name,
  limit: Math.max(10, Math.floor(t.perMinute / SOURCES_TO_SPEND_A_BUDGET)),
  windowSeconds: 60,
  paths,
  ...(methods ? { methods } : {}),
});

/** A tenth of the stage ceiling of one method (100/s), above one key's fastest method (a poll, 60/s). */
const TENTH_OF_THE_CEILING = (STAGE_METHOD_CEILING.rateLimit * 60) / 10;

/** The privacy requests' routes (no key): each pattern exactly one route, so nothing else hides behind them. */
const PRIVACY_REQUEST_PATH = pub('privacy-requests/');
const PRIVACY_LINK_PATHS = [pub('privacy-requests/{token}/'), pub('privacy-requests/{token}/confirm/')];

/**
 * Per-source limits of the routes without a key (where the stage-wide budget is shared by every caller) and of
 * the API-key routes (counted before the API-key authorizer runs, so one source cannot invoke it without
 * limit with made-up keys). The stage throttles stay the overall ceiling behind them.
 *
 * The one-click unsubscribe (POST `u/{token}/`) is in no rule of the unsubscribe page's size: a refused one is
 * an unsubscribe not recorded (RFC 8058), and a fifth of a small budget let five sources refuse everyone. Its
 * stage budget is the ceiling of any method (1,000/s) and its only per-source rule a flood cap at a tenth of
 * that, which no mail provider's sender comes near; below it every POST reaches the handler, which records the
 * unsubscribe before anything else can fail.
 */
export const SOURCE_RATE_LIMITS = {
  unsubscribe: perSource('UnsubscribePerSource', T.unsubscribe, [pub('u/{token}/')], ['GET']),
  oneClickUnsubscribe: { name: 'OneClickUnsubscribeFloodPerSource', limit: TENTH_OF_THE_CEILING, windowSeconds: 60, paths: [pub('u/{token}/')], methods: ['POST'] },
  openPixel: perSource('OpenPixelPerSource', T.openPixel, [pub('o/{token}/')]),
  testEmails: perSource('TestEmailsPerSource', T.testEmailsEdge, [pub('test-emails/*')]),
  // The browser's return from a provider's consent: through CloudFront, whose origin-facing address is then
  // the source (many viewers share one); a direct call to the stage is counted by its own address.
  oauthCallback: perSource('OAuthCallbackPerSource', T.oauthCallback, [OAUTH_CALLBACK_PATH]),
  // Each new privacy request mails a message: one source may ask 10 times in 5 minutes (WAF's lowest limit), far
  // below its share of the stage's budget; the links' reads and confirms get a fifth of theirs.
  privacyRequests: { name: 'PrivacyRequestsPerSource', limit: 10, windowSeconds: 300, paths: [PRIVACY_REQUEST_PATH], methods: ['POST'] },
  privacyLinks: perSource('PrivacyLinksPerSource', T.privacyLink, PRIVACY_LINK_PATHS),
  apiKey: {
    name: 'ApiKeyRoutesPerSource',
    limit: TENTH_OF_THE_CEILING,
    windowSeconds: 60,
    paths: [pub('*')],
    excludePaths: [pub('u/{token}/'), pub('o/{token}/'), pub('test-emails/*'), pub('openapi.json'), PRIVACY_REQUEST_PATH, ...PRIVACY_LINK_PATHS],
  },
} satisfies Record<string, SourceRateLimit>;

/** The rule list, in the web ACL's priority order. */
export const SOURCE_RATE_LIMIT_LIST: readonly SourceRateLimit[] = Object.values(SOURCE_RATE_LIMITS);

/**
 * The anchored regular expression of one path pattern (see SourceRateLimit), for the whole percent-decoded
 * path; `stage` names the stage that may stand in front on the execute-api host. The web ACL (WAF's regex
 * match) and the local gateway (RegExp) use the same string.
 */
export function sourcePathRegex(pattern: string, stage?: string): string {
  const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  let rest = pattern;
  let tail = '';
  if (rest.endsWith('*')) {
    rest = rest.slice(0, -1);
    tail = '.*';
  } else if (rest.endsWith('/')) {
    rest = rest.slice(0, -1);
    tail = '/?';
  }
  const body = rest
    .split(/(\{[^}]+\})/)
    .map((part) => (/^\{[^}]+\}$/.test(part) ? '[^/]+' : escape(part)))
    .join('');
  return `^${stage ? `(/${escape(stage)})?` : ''}${body}${tail}$`;
}

const compiled = new Map<string, RegExp>();
const regexOf = (pattern: string) => {
  let r = compiled.get(pattern);
  if (!r) compiled.set(pattern, (r = new RegExp(sourcePathRegex(pattern))));
  return r;
};

/** Does a request count against the limit? The path as sent, decoded once as WAF's URL_DECODE does. */
export function countsAgainst(limit: SourceRateLimit, method: string, rawPath: string): boolean {
  if (limit.methods && !limit.methods.includes(method as Method)) return false;
  const path = safeDecode(rawPath);
  return limit.paths.some((p) => regexOf(p).test(path)) && !(limit.excludePaths ?? []).some((p) => regexOf(p).test(path));
}

const accountsRead = { tables: { accounts: 'read' } } satisfies Bindings;
const acceptJob = { tables: { accounts: 'readwrite', jobs: 'readwrite' }, queues: { search: 'send' } } satisfies Bindings;
const pollJob = { tables: { accounts: 'read', jobs: 'read' } } satisfies Bindings;
// mail_evidence: the email finder's email status (shared/email-status). privacy: a person who opted out is not found (docs/privacy.md).
const syncEnrich = { tables: { accounts: 'readwrite', directory: 'read', mail_evidence: 'read', privacy: 'read' } } satisfies Bindings;
const poll = { perMinute: 3600, burst: 100 } satisfies Throttle;
const outreachWrite = { perMinute: 120, burst: 20 } satisfies Throttle;
const emailsRead = { tables: { accounts: 'read', outreach: 'read' } } satisfies Bindings;
const emailsChange = { tables: { accounts: 'readwrite', outreach: 'readwrite' }, queues: { sending: 'send' }, scheduler: true } satisfies Bindings;
const accountsWrite = { tables: { accounts: 'readwrite' } } satisfies Bindings;
// mail_evidence: an address known invalid (hard bounce) is rejected as invalid_contact; privacy: an opted-out one as opted_out.
const sequencesAccept = { tables: { accounts: 'readwrite', outreach: 'readwrite', directory: 'read', mail_evidence: 'read', privacy: 'read' }, queues: { drafting: 'send' } } satisfies Bindings;
const sequencesAcceptThrottle = { perMinute: 10, burst: 5 } satisfies Throttle;

export const ROUTES: RouteDef[] = [
  // Public API: sending accounts (docs/decisions.md#sending-accounts).
  // The effective daily limit reads the accounts' deliverability record (outreach table).
  { method: 'GET', path: pub('email/accounts/'), module: 'functions/email-accounts/list.ts', auth: 'api_key', throttle: T.read, bindings: emailsRead },

  // Search and enrichment (docs/decisions.md#search-and-enrichment; throttles from "Limits").
  { method: 'POST', path: pub('search/'), module: 'functions/search/create.ts', auth: 'api_key', throttle: { perMinute: 6, burst: 2 }, bindings: acceptJob },
  { method: 'GET', path: pub('search/{job_id}/'), module: 'functions/search/get.ts', auth: 'api_key', throttle: poll, bindings: pollJob },
  { method: 'POST', path: pub('deep-search/'), module: 'functions/deep-search/create.ts', auth: 'api_key', throttle: { perMinute: 4, burst: 2 }, bindings: acceptJob },
  { method: 'GET', path: pub('deep-search/{job_id}/'), module: 'functions/deep-search/get.ts', auth: 'api_key', throttle: poll, bindings: pollJob },
  { method: 'POST', path: pub('enrich/phone/'), module: 'functions/enrich/phone-create.ts', auth: 'api_key', throttle: { perMinute: 15, burst: 3 }, bindings: acceptJob },
  { method: 'GET', path: pub('enrich/phone/{job_id}/'), module: 'functions/enrich/phone-get.ts', auth: 'api_key', throttle: poll, bindings: pollJob },
  // Bulk enrichment (beyond SPEC, docs/decisions.md#decisions-the-contract-leaves-open): up to 100 lookups a call, so held to the slowest single enrichment's rate.
  { method: 'POST', path: pub('enrich/bulk/'), module: 'functions/enrich/bulk-create.ts', auth: 'api_key', throttle: { perMinute: 6, burst: 2 }, bindings: acceptJob },
  { method: 'GET', path: pub('enrich/bulk/{job_id}/'), module: 'functions/enrich/bulk-get.ts', auth: 'api_key', throttle: poll, bindings: pollJob },
  // Agentic search: the cancel ends a job itself (settle, slots, webhook), so it writes both tables and queues the delivery;
  // it reads the opt-outs (privacy) to leave out of the saved leads the people who opted out since (docs/privacy.md).
  { method: 'POST', path: pub('agentic-search/'), module: 'functions/agentic-search/create.ts', auth: 'api_key', throttle: { perMinute: 2, burst: 2 }, bindings: acceptJob },
  { method: 'GET', path: pub('agentic-search/{job_id}/'), module: 'functions/agentic-search/get.ts', auth: 'api_key', throttle: poll, bindings: pollJob },
  { method: 'POST', path: pub('agentic-search/{job_id}/cancel/'), module: 'functions/agentic-search/cancel.ts', auth: 'api_key', throttle: { perMinute: 60, burst: 10 }, bindings: { tables: { accounts: 'readwrite', jobs: 'readwrite', privacy: 'read' }, queues: { webhooks: 'send' } } },
  { method: 'POST', path: pub('enrich/email/'), module: 'functions/enrich/email.ts', auth: 'api_key', throttle: { perMinute: 30, burst: 5 }, bindings: syncEnrich },
  { method: 'POST', path: pub('enrich/professional-url/'), module: 'functions/enrich/professional-url.ts', auth: 'api_key', throttle: { perMinute: 6, burst: 2 }, bindings: syncEnrich },
  { method: 'POST', path: pub('enrich/professional-profile/'), module: 'functions/enrich/professional-profile.ts', auth: 'api_key', throttle: { perMinute: 18, burst: 3 }, bindings: syncEnrich },

  // Outreach emails (docs/decisions.md#outreach-emails; throttles docs/decisions.md#decisions-the-contract-leaves-open).
  { method: 'POST', path: pub('emails/'), module: 'functions/emails/create.ts', auth: 'api_key', throttle: { perMinute: 60, burst: 10 }, bindings: { tables: { accounts: 'readwrite', outreach: 'readwrite', directory: 'read', privacy: 'read' }, queues: { drafting: 'send' } } },
  { method: 'GET', path: pub('emails/'), module: 'functions/emails/list.ts', auth: 'api_key', throttle: T.read, bindings: emailsRead },
  { method: 'GET', path: pub('emails/{id}/'), module: 'functions/emails/get.ts', auth: 'api_key', throttle: T.read, bindings: emailsRead },
  { method: 'PATCH', path: pub('emails/{id}/'), module: 'functions/emails/edit.ts', auth: 'api_key', throttle: outreachWrite, bindings: emailsChange },
  { method: 'POST', path: pub('emails/{id}/approve/'), module: 'functions/emails/approve.ts', auth: 'api_key', throttle: outreachWrite, bindings: emailsChange },
  { method: 'POST', path: pub('emails/{id}/cancel/'), module: 'functions/emails/cancel.ts', auth: 'api_key', throttle: outreachWrite, bindings: emailsChange },
  // Sequences (docs/decisions.md#sequences; throttles docs/decisions.md#decisions-the-contract-leaves-open). Approve books send slots (and may put a due one
  // on the sending queue); cancel settles an open pass and deletes schedules, but sends nothing.
  { method: 'POST', path: pub('sequences/'), module: 'functions/sequences/create.ts', auth: 'api_key', throttle: sequencesAcceptThrottle, bindings: sequencesAccept },
  { method: 'GET', path: pub('sequences/'), module: 'functions/sequences/list.ts', auth: 'api_key', throttle: T.read, bindings: emailsRead },
  { method: 'GET', path: pub('sequences/{id}/'), module: 'functions/sequences/get.ts', auth: 'api_key', throttle: T.read, bindings: emailsRead },
  { method: 'POST', path: pub('sequences/{id}/contacts/'), module: 'functions/sequences/add-contacts.ts', auth: 'api_key', throttle: sequencesAcceptThrottle, bindings: sequencesAccept },
  { method: 'POST', path: pub('sequences/{id}/approve/'), module: 'functions/sequences/approve.ts', auth: 'api_key', throttle: outreachWrite, bindings: { tables: { accounts: 'read', outreach: 'readwrite' }, queues: { sending: 'send' }, scheduler: true } },
  { method: 'POST', path: pub('sequences/{id}/cancel/'), module: 'functions/sequences/cancel.ts', auth: 'api_key', throttle: outreachWrite, bindings: { tables: { accounts: 'readwrite', outreach: 'readwrite' }, scheduler: true } },
  { method: 'GET', path: pub('sequences/{id}/replies/'), module: 'functions/sequences/replies.ts', auth: 'api_key', throttle: T.read, bindings: emailsRead },
  // What a recipient's mail client calls: unguessable per-email tokens, no credential. With no key to count
  // by, the throttle is the stage's, over all callers; each source address gets a share (SOURCE_RATE_LIMITS).
  { method: 'GET', path: pub('o/{token}/'), module: 'functions/tracking/open.ts', auth: 'public', throttle: T.openPixel, bindings: { tables: { outreach: 'readwrite' } } },
  { method: 'GET', path: pub('u/{token}/'), module: 'functions/tracking/unsubscribe.ts', auth: 'public', throttle: T.unsubscribe, bindings: { tables: { outreach: 'readwrite' } } },
  { method: 'POST', path: pub('u/{token}/'), module: 'functions/tracking/unsubscribe.ts', auth: 'public', throttle: T.oneClickUnsubscribe, bindings: { tables: { outreach: 'readwrite' } } },

  // Privacy requests of the people in the directory (docs/privacy.md): no key, a stage throttle each and a
  // per-source rule (SOURCE_RATE_LIMITS). The request reads nothing about the address and mails the link (SES);
  // the link's page reads the directory and the opt-out table's outreach history; the confirm records the
  // opt-out and, for an erasure, deletes the directory records, the address's mail evidence and history.
  { method: 'POST', path: pub('privacy-requests/'), module: 'functions/privacy/create.ts', auth: 'public', throttle: T.privacyRequest, bindings: { tables: { privacy: 'readwrite' }, mail: true } },
  { method: 'GET', path: pub('privacy-requests/{token}/'), module: 'functions/privacy/get.ts', auth: 'public', throttle: T.privacyLink, bindings: { tables: { privacy: 'read', directory: 'read' } } },
  { method: 'POST', path: pub('privacy-requests/{token}/confirm/'), module: 'functions/privacy/confirm.ts', auth: 'public', throttle: T.privacyLink, bindings: { tables: { privacy: 'readwrite', directory: 'readwrite', mail_evidence: 'readwrite' } } },

  // Test emails (docs/decisions.md#test-emails-pilot): no gateway key check, the handler answers 401 itself (docs/decisions.md#decisions-the-contract-leaves-open);
  // the catch-all throttle of docs/decisions.md#limits. The accounts table is read only (pilot flag, sender snapshot).
  { method: 'POST', path: pub('test-emails/'), module: 'functions/test-emails/create.ts', auth: 'handler_key', throttle: T.testEmails, edgeThrottle: T.testEmailsEdge, keyThrottleBucket: TEST_EMAILS_BUCKET, bindings: { tables: { accounts: 'read', outreach: 'readwrite' }, queues: { sending: 'send' }, keyThrottle: true } },
  { method: 'GET', path: pub('test-emails/{id}/'), module: 'functions/test-emails/get.ts', auth: 'handler_key', throttle: T.testEmails, edgeThrottle: T.testEmailsEdge, keyThrottleBucket: TEST_EMAILS_BUCKET, bindings: { tables: { accounts: 'read', outreach: 'read' }, keyThrottle: true } },

  // The published contract (docs/decisions.md#decisions-the-contract-leaves-open): the OpenAPI document and the reference page rendering it, no credential.
  { method: 'GET', path: pub('openapi.json'), module: 'functions/openapi/get.ts', auth: 'public', throttle: T.read, bindings: {}, assets: [OPENAPI_DOCUMENT] },
  { method: 'GET', path: '/docs/', module: 'functions/openapi/docs.ts', auth: 'public', throttle: T.read, bindings: {} },
  // The provider sends the user's browser back here after consent: no credential can ride along, so the
  // state (single use, ten minutes) and the browser-binding cookie set at the start are the proof.
  { method: 'GET', path: OAUTH_CALLBACK_PATH, module: 'functions/oauth/callback.ts', auth: 'public', throttle: T.oauthCallback, bindings: { ...accountsWrite, secrets: true, mailboxProviders: true } },
  { method: 'GET', path: '/docs/scalar.js', module: 'functions/openapi/docs.ts', auth: 'public', throttle: T.read, bindings: {}, assets: [SCALAR_BUNDLE] },

  // Console API (docs/decisions.md#the-local-stack).
  { method: 'POST', path: con('accounts/'), module: 'functions/console/create-account.ts', auth: 'admin', bindings: accountsWrite },
  { method: 'GET', path: con('accounts/{id}/'), module: 'functions/console/get-account.ts', auth: 'admin', bindings: accountsRead },
  { method: 'PATCH', path: con('accounts/{id}/'), module: 'functions/console/update-account.ts', auth: 'admin', bindings: accountsWrite },
  { method: 'POST', path: con('accounts/{id}/api-keys/'), module: 'functions/console/create-api-key.ts', auth: 'admin', bindings: { ...accountsWrite, apiKeys: true } },
  { method: 'DELETE', path: con('accounts/{id}/api-keys/{key_id}/'), module: 'functions/console/revoke-api-key.ts', auth: 'admin', bindings: { ...accountsWrite, apiKeys: true } },
  { method: 'POST', path: con('accounts/{id}/webhook-secrets/'), module: 'functions/console/create-webhook-secret.ts', auth: 'admin', bindings: { ...accountsWrite, secrets: true } },
  { method: 'DELETE', path: con('accounts/{id}/webhook-secrets/{secret_id}/'), module: 'functions/console/revoke-webhook-secret.ts', auth: 'admin', bindings: accountsWrite },
  { method: 'POST', path: con('accounts/{id}/credits/'), module: 'functions/console/add-credits.ts', auth: 'admin', bindings: accountsWrite },
  { method: 'GET', path: con('accounts/{id}/charges/'), module: 'functions/console/list-charges.ts', auth: 'admin', bindings: accountsRead },
  // The providers' settings: on the twin a google or microsoft account created here connects through the
  // emulated consent (in AWS those types are refused before any read, but the twin grants what AWS would).
  { method: 'POST', path: con('accounts/{id}/sending-accounts/'), module: 'functions/console/create-sending-account.ts', auth: 'admin', bindings: { tables: { accounts: 'readwrite', outreach: 'read' }, secrets: true, mailboxProviders: true } },
  // Inbound messages that could not be handled, or were handled after repairs (shared/outreach/inbound-issues.repository.ts).
  { method: 'GET', path: con('inbound-issues/'), module: 'functions/console/inbound-issues.ts', auth: 'admin', bindings: { tables: { outreach: 'read' } } },
  // The people's privacy requests, newest first (docs/privacy.md): the address only while pending, masked.
  { method: 'GET', path: con('privacy-requests/'), module: 'functions/console/privacy-requests.ts', auth: 'admin', bindings: { tables: { privacy: 'read' } } },
  { method: 'GET', path: con('accounts/{id}/jobs/{job_id}/webhook-deliveries/'), module: 'functions/console/webhook-deliveries.ts', auth: 'admin', bindings: { tables: { jobs: 'read' } } },
  // An operator starts connecting a Google or Microsoft mailbox (OAuth 2.0 + PKCE); it ends at the public callback.
  { method: 'POST', path: con('accounts/{id}/sending-accounts/connect/'), module: 'functions/console/connect-sending-account.ts', auth: 'admin', bindings: { ...accountsWrite, secrets: true, mailboxProviders: true } },
  { method: 'PATCH', path: con('sending-accounts/{ea_id}/'), module: 'functions/console/update-sending-account.ts', auth: 'admin', bindings: { ...emailsChange, secrets: true } },
  // Users of an account sign in to the web app: a Cognito user carrying the account id.
  { method: 'POST', path: con('accounts/{id}/users/'), module: 'functions/console/create-account-user.ts', auth: 'admin', bindings: { ...accountsRead, userPool: true } },

  // The customer web app's API (docs/decisions.md#customer-web-app): the account is the signed-in user's, from the
  // token; each handler calls the domain function its console twin calls.
  { method: 'GET', path: app('account/'), module: 'functions/app/get-account.ts', auth: 'user', throttle: APP_LIMITS.read.stage, bindings: accountsRead },
  { method: 'PATCH', path: app('account/'), module: 'functions/app/update-account.ts', auth: 'user', throttle: APP_LIMITS.write.stage, bindings: accountsWrite },
  { method: 'GET', path: app('api-keys/'), module: 'functions/app/list-api-keys.ts', auth: 'user', throttle: APP_LIMITS.read.stage, bindings: accountsRead },
  { method: 'POST', path: app('api-keys/'), module: 'functions/app/create-api-key.ts', auth: 'user', throttle: APP_LIMITS.write.stage, bindings: { ...accountsWrite, apiKeys: true } },
  { method: 'DELETE', path: app('api-keys/{key_id}/'), module: 'functions/app/revoke-api-key.ts', auth: 'user', throttle: APP_LIMITS.write.stage, bindings: { ...accountsWrite, apiKeys: true } },
  { method: 'GET', path: app('webhook-secrets/'), module: 'functions/app/list-webhook-secrets.ts', auth: 'user', throttle: APP_LIMITS.read.stage, bindings: accountsRead },
  { method: 'POST', path: app('webhook-secrets/'), module: 'functions/app/create-webhook-secret.ts', auth: 'user', throttle: APP_LIMITS.write.stage, bindings: { ...accountsWrite, secrets: true } },
  { method: 'DELETE', path: app('webhook-secrets/{secret_id}/'), module: 'functions/app/revoke-webhook-secret.ts', auth: 'user', throttle: APP_LIMITS.write.stage, bindings: accountsWrite },
  { method: 'GET', path: app('charges/'), module: 'functions/app/list-charges.ts', auth: 'user', throttle: APP_LIMITS.read.stage, bindings: accountsRead },
  { method: 'GET', path: app('sending-accounts/'), module: 'functions/app/list-sending-accounts.ts', auth: 'user', throttle: APP_LIMITS.read.stage, bindings: emailsRead },
  // A mailbox's per-day deliverability record, newest day first, paged (the web app's deliverability page).
  { method: 'GET', path: app('sending-accounts/{ea_id}/deliverability/'), module: 'functions/app/sending-account-deliverability.ts', auth: 'user', throttle: APP_LIMITS.read.stage, bindings: emailsRead },
  // Connecting a Google or Microsoft mailbox: the start; the provider's consent ends at the public callback.
  { method: 'POST', path: app('sending-accounts/connect/'), module: 'functions/app/connect-sending-account.ts', auth: 'user', throttle: APP_LIMITS.write.stage, bindings: { ...accountsWrite, secrets: true, mailboxProviders: true } },
  { method: 'PATCH', path: app('sending-accounts/{ea_id}/'), module: 'functions/app/update-sending-account.ts', auth: 'user', throttle: APP_LIMITS.write.stage, bindings: emailsChange },
  // Sequences and search jobs pages: the public routes' domain functions, the account from the token.
  { method: 'GET', path: app('sequences/'), module: 'functions/app/list-sequences.ts', auth: 'user', throttle: APP_LIMITS.read.stage, bindings: { tables: { outreach: 'read' } } },
  { method: 'GET', path: app('sequences/{sequence_id}/'), module: 'functions/app/get-sequence.ts', auth: 'user', throttle: APP_LIMITS.read.stage, bindings: { tables: { outreach: 'read' } } },
  { method: 'GET', path: app('sequences/{sequence_id}/replies/'), module: 'functions/app/sequence-replies.ts', auth: 'user', throttle: APP_LIMITS.read.stage, bindings: { tables: { outreach: 'read' } } },
  // Starting work from the web app: the same use cases as the public routes, charged to the signed-in user's
  // account as the API charges it; per-key limits and Idempotency-Key scopes apply per user (userCallerId). The
  // gateway counts the app's calls for all users together (a ceiling), the handler shell per user and per
  // account (APP_LIMITS); agentic concurrency is still per user.
  { method: 'POST', path: app('sequences/'), module: 'functions/app/create-sequence.ts', auth: 'user', throttle: APP_LIMITS.write.stage, bindings: sequencesAccept },
  { method: 'POST', path: app('sequences/{sequence_id}/contacts/'), module: 'functions/app/add-sequence-contacts.ts', auth: 'user', throttle: APP_LIMITS.write.stage, bindings: sequencesAccept },
  { method: 'POST', path: app('sequences/{sequence_id}/approve/'), module: 'functions/app/approve-sequence.ts', auth: 'user', throttle: APP_LIMITS.write.stage, bindings: { tables: { accounts: 'read', outreach: 'readwrite' }, queues: { sending: 'send' }, scheduler: true } },
  { method: 'POST', path: app('sequences/{sequence_id}/cancel/'), module: 'functions/app/cancel-sequence.ts', auth: 'user', throttle: APP_LIMITS.write.stage, bindings: { tables: { accounts: 'readwrite', outreach: 'readwrite' }, scheduler: true } },
  // A CSV import's validation report: each contact judged as a sequence would judge it, nothing written.
  { method: 'POST', path: app('contact-checks/'), module: 'functions/app/check-sequence-contacts.ts', auth: 'user', throttle: APP_LIMITS.check.stage, bindings: { tables: { outreach: 'readwrite', directory: 'read', mail_evidence: 'read', privacy: 'read' } } },
  { method: 'POST', path: app('search/'), module: 'functions/app/start-search.ts', auth: 'user', throttle: APP_LIMITS.write.stage, bindings: acceptJob },
  { method: 'POST', path: app('deep-search/'), module: 'functions/app/start-deep-search.ts', auth: 'user', throttle: APP_LIMITS.write.stage, bindings: acceptJob },
  { method: 'POST', path: app('agentic-search/'), module: 'functions/app/start-agentic-search.ts', auth: 'user', throttle: APP_LIMITS.write.stage, bindings: acceptJob },
  { method: 'GET', path: app('prices/'), module: 'functions/app/get-prices.ts', auth: 'user', throttle: APP_LIMITS.read.stage, bindings: {} },
  { method: 'GET', path: app('jobs/'), module: 'functions/app/list-jobs.ts', auth: 'user', throttle: APP_LIMITS.read.stage, bindings: { tables: { jobs: 'read' } } },
  { method: 'GET', path: app('jobs/{job_id}/'), module: 'functions/app/get-job.ts', auth: 'user', throttle: APP_LIMITS.read.stage, bindings: { tables: { jobs: 'read' } } },
  { method: 'GET', path: app('jobs/{job_id}/webhook-deliveries/'), module: 'functions/app/webhook-deliveries.ts', auth: 'user', throttle: APP_LIMITS.read.stage, bindings: { tables: { jobs: 'read' } } },
  // A redelivery sends a request to the customer's server: held well below the app's other writes.
  { method: 'POST', path: app('jobs/{job_id}/webhook-deliveries/redeliver/'), module: 'functions/app/redeliver-webhook.ts', auth: 'user', throttle: APP_LIMITS.redeliver.stage, bindings: { tables: { jobs: 'readwrite' }, queues: { webhooks: 'send' } } },
  { method: 'GET', path: app('emails/'), module: 'functions/app/list-emails.ts', auth: 'user', throttle: APP_LIMITS.read.stage, bindings: emailsRead },
  { method: 'GET', path: app('emails/{email_id}/'), module: 'functions/app/get-email.ts', auth: 'user', throttle: APP_LIMITS.read.stage, bindings: emailsRead },
  { method: 'PATCH', path: app('emails/{email_id}/'), module: 'functions/app/edit-email.ts', auth: 'user', throttle: APP_LIMITS.write.stage, bindings: emailsChange },
  { method: 'POST', path: app('emails/{email_id}/approve/'), module: 'functions/app/approve-email.ts', auth: 'user', throttle: APP_LIMITS.write.stage, bindings: emailsChange },
  { method: 'POST', path: app('emails/{email_id}/cancel/'), module: 'functions/app/cancel-email.ts', auth: 'user', throttle: APP_LIMITS.write.stage, bindings: emailsChange },
];

/**
 * What a route's function is granted: its bindings, and for routes that resolve an API key the accounts table
 * (read, or as bound) with the hourly "last used" write of `keyUse` where it only reads. A web-app route keeps
 * its user's and its account's token buckets (`RATE#…` items of the accounts table, APP_LIMITS).
 */
export function routeBindings(route: RouteDef): Bindings {
  if (route.auth === 'user') return { ...route.bindings, tables: { accounts: 'read', ...route.bindings.tables }, keyThrottle: true };
  if (route.auth !== 'api_key' && route.auth !== 'handler_key') return route.bindings;
  const tables = { ...route.bindings.tables };
  if (tables.accounts === undefined) tables.accounts = 'read';
  return { ...route.bindings, tables, ...(tables.accounts === 'read' ? { keyUse: true } : {}) };
}

/** Per-second rate for API Gateway usage-plan throttles (which take requests per second). */
export function ratePerSecond(t: Throttle): number {
  return t.perMinute / 60;
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Match a concrete path against a route path template; returns the path parameters or null. */
export function matchPath(template: string, path: string): Record<string, string> | null {
  const a = template.split('/');
  const b = path.split('/');
  if (a.length !== b.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < a.length; i++) {
    const seg = a[i]!;
    if (seg.startsWith('{') && seg.endsWith('}')) {
      if (!b[i]) return null;
      // A malformed percent-encoding is kept as sent: it names nothing, and the id-shape check answers 404.
      params[seg.slice(1, -1)] = safeDecode(b[i]!);
    } else if (seg !== b[i]) {
      return null;
    }
  }
  return params;
}

/** The row of a handler module for one method: a handler reads its own limits from the table. */
export function routeOf(method: Method, module: string): RouteDef {
  const route = ROUTES.find((r) => r.method === method && r.module === module);
  if (!route) throw new Error(`No ${method} route for ${module} in the route table`);
  return route;
}

export function findRoute(method: string, path: string): { route: RouteDef; params: Record<string, string> } | null {
  for (const route of ROUTES) {
    if (route.method !== method) continue;
    const params = matchPath(route.path, path);
    if (params) return { route, params };
  }
  return null;
}

/**
 * AWS limits a route lives within, read by the CDK stack (timeouts) and enforced by the local gateway as API
 * Gateway and Lambda enforce them: a route's function stops at its timeout (API Gateway then answers 502),
 * API Gateway stops waiting for any integration after 29 s (504), and Lambda refuses a synchronous response
 * over 6 MB (502). A request body over API Gateway's 10 MB is refused with 413; so is one whose proxy event
 * (the body base64-encoded on the public and console API, whose binary media types are every type) reaches
 * Lambda's 6 MB request payload: about 4.5 MB of body there (docs/deploying.md "AWS quotas and limits").
 */
export const ROUTE_LIMITS = {
  /** A route function's timeout unless its row names another. */
  defaultTimeoutSeconds: 10,
  /** REST API integration timeout (API Gateway quotas). */
  integrationTimeoutSeconds: 29,
  /** Lambda's synchronous invocation response payload, the serialised proxy result (Lambda quotas). */
  responseBytes: 6 * 1024 * 1024,
  /** API Gateway's REST payload: a request body above it is refused before anything runs (API Gateway quotas). */
  payloadBytes: 10 * 1024 * 1024,
  /** Lambda's synchronous invocation request payload: the serialised proxy event must be smaller (Lambda quotas). */
  requestBytes: 6 * 1024 * 1024,
} as const;
