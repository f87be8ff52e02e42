/**
 * The web app's per-user and per-account limits, apart from the route table so the handler shell (which counts
 * them in every user route) does not bundle the whole table. shared/catalog/routes.ts re-exports them.
 */
/** Requests per minute and burst, as routes.ts's `Throttle`. */
interface Throttle {
  perMinute: number;
  burst: number;
}

/** Where the web app's API lives (the route table builds its paths from it). */
export const APP_BASE = '/api/app/v1/';

/**
 * The web app's limits (`user` routes), by class. A Cognito authorizer gives API Gateway no key to count by,
 * so `stage` is a method throttle over every user of every tenant together: a ceiling sized for 20 accounts at
 * full speed at once, not a share. Each user and each account is held to its own budget by the handler shell
 * (`userRoute`), in DynamoDB token buckets (the GCRA of shared/accounts/key-throttle.repository.ts, as test
 * emails count per key): the same code in AWS and on the twin, exact where WAF only estimates, keyed by the
 * token's `sub` and `custom:account_id` (a new sign-in mints a new token; the user and account stay).
 * A request takes what it costs (appTokensOf), not one token whatever it asks for:
 * - read: a person clicking through pages (a page makes a few reads) and a job page polling with backoff;
 *   120/min each, burst 30 for a page that loads several lists at once; an account, 300/min (two or three
 *   people at once). A read's answer is charged by its size: one token per READ_BYTES_PER_TOKEN, the first
 *   up front and the rest as a debt once the answer is built (a replies page of 200 at the inbound cap, 5 MB,
 *   is 80 tokens), so an account reads at most 300 × 64 KiB = 19 MiB a minute, whatever its page sizes.
 * - check: the CSV import's contact checks (POST contact-checks/), counted in contacts, each check at least
 *   CHECK_MIN_TOKENS. The import sends a 10,000-row file as 20 checks of 500, one after the other: a user's
 *   burst of 10,000 lets one whole import through as fast as the checks answer; 5,000 a minute after that
 *   (the next import of 10,000 rows waits about 2 minutes, the page saying so); an account, 10,000 a
 *   minute (two people importing at once). A check of 500 is 27 DynamoDB calls (batched), so an account
 *   drives at most 20 checks a minute, about 540 calls and 20,000 mail-evidence keys a minute.
 * - write: 30/min per user, 60/min per account: well above what a person does by hand, low enough that a
 *   script on one account cannot start work (searches, sequences, keys) faster than a person could.
 * - redeliver: a webhook redelivery sends a request to the customer's own server (held below other writes).
 * Stage ceilings are in requests: for checks, 20 accounts each sending its budget in the smallest checks
 * (10,000 / 100 = 100 a minute).
 */
export type AppLimitClass = 'read' | 'check' | 'write' | 'redeliver';
export interface AppLimit {
  stage: Throttle;
  perUser: Throttle;
  perAccount: Throttle;
}
export const APP_LIMITS = {
  read: { stage: { perMinute: 6000, burst: 500 }, perUser: { perMinute: 120, burst: 30 }, perAccount: { perMinute: 300, burst: 60 } },
  check: { stage: { perMinute: 2000, burst: 500 }, perUser: { perMinute: 5000, burst: 10_000 }, perAccount: { perMinute: 10_000, burst: 10_000 } },
  write: { stage: { perMinute: 1200, burst: 100 }, perUser: { perMinute: 30, burst: 10 }, perAccount: { perMinute: 60, burst: 20 } },
  redeliver: { stage: { perMinute: 600, burst: 50 }, perUser: { perMinute: 10, burst: 3 }, perAccount: { perMinute: 30, burst: 5 } },
} as const satisfies Record<AppLimitClass, AppLimit>;

/** A read's answer takes one token per this many bytes (the first with the request, the rest after it). */
export const READ_BYTES_PER_TOKEN = 64 * 1024;
/**
 * The least a contact check takes, in contacts: what a request costs whatever its size (its invocation, two
 * bucket updates, four batched reads, its lookup counter) is about what 100 contacts add to a check of 500
 * (27 calls for 500 contacts, ~0.05 a contact; 6 or 7 a request).
 */
export const CHECK_MIN_TOKENS = 100;
/** The most contacts a check takes (MAX_CHECKED_CONTACTS of shared/sequences/check-contacts.ts; more is 400 anyway). */
export const CHECK_MAX_TOKENS = 500;

/**
 * The class of a web-app route, from its method and path (the handler shell reads it from the event, so it
 * needs no route table): the redelivery, the CSV contact check, reads (GET), writes. Every `user` row's stage
 * throttle is its class's (test/unit/http/app-limits.test.ts).
 */
export function appLimitOf(method: string, path: string): AppLimitClass {
  const p = path.replace(/\/+$/, '');
  if (p.endsWith('/webhook-deliveries/redeliver')) return 'redeliver';
  if (p === `${APP_BASE}contact-checks`.replace(/\/+$/, '')) return 'check';
  if (method === 'GET') return 'read';
  return 'write';
}

/**
 * What a request takes up front from its class's buckets: a contact check its contacts (from CHECK_MIN_TOKENS
 * to CHECK_MAX_TOKENS; a body that is not a list of contacts the least, as it is refused unread), every other
 * request one. `body` is the request's body as API Gateway passes it.
 */
export function appTokensOf(kind: AppLimitClass, body: string | null | undefined, base64 = false): number {
  if (kind !== 'check') return 1;
  let contacts = 0;
  try {
    const parsed = body ? (JSON.parse(base64 ? Buffer.from(body, 'base64').toString('utf8') : body) as { contacts?: unknown }) : null;
    if (Array.isArray(parsed?.contacts)) contacts = parsed.contacts.length;
  } catch {
    // Not JSON: a 400 that costs the least.
  }
  return Math.min(CHECK_MAX_TOKENS, Math.max(CHECK_MIN_TOKENS, contacts));
}

/** The tokens a read's answer of `bytes` takes after it is built, beyond the one it took up front. */
export const readDebtOf = (bytes: number): number => Math.max(0, Math.ceil(bytes / READ_BYTES_PER_TOKEN) - 1);
