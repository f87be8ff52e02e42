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
 * - read: a person clicking through pages (a page makes a few reads) and a job page polling with backoff;
 *   120/min each, burst 30 for a page that loads several lists at once; an account, 300/min (two or three people at once).
 * - write: 30/min per user, 60/min per account: well above what a person does by hand, low enough that a
 *   script on one account cannot start work (searches, sequences, keys) faster than a person could.
 * - redeliver: a webhook redelivery sends a request to the customer's own server (held below other writes).
 */
export type AppLimitClass = 'read' | 'write' | 'redeliver';
export interface AppLimit {
  stage: Throttle;
  perUser: Throttle;
  perAccount: Throttle;
}
export const APP_LIMITS = {
  read: { stage: { perMinute: 6000, burst: 500 }, perUser: { perMinute: 120, burst: 30 }, perAccount: { perMinute: 300, burst: 60 } },
  write: { stage: { perMinute: 1200, burst: 100 }, perUser: { perMinute: 30, burst: 10 }, perAccount: { perMinute: 60, burst: 20 } },
  redeliver: { stage: { perMinute: 600, burst: 50 }, perUser: { perMinute: 10, burst: 3 }, perAccount: { perMinute: 30, burst: 5 } },
} as const satisfies Record<AppLimitClass, AppLimit>;

/**
 * The class of a web-app route, from its method and path (the handler shell reads it from the event, so it
 * needs no route table): the redelivery, reads (GET, and the CSV check that only reads), writes. Every
 * `user` row's stage throttle is its class's (test/unit/http/app-limits.test.ts).
 */
export function appLimitOf(method: string, path: string): AppLimitClass {
  const p = path.replace(/\/+$/, '');
  if (p.endsWith('/webhook-deliveries/redeliver')) return 'redeliver';
  if (method === 'GET' || p === `${APP_BASE}contact-checks`.replace(/\/+$/, '')) return 'read';
  return 'write';
}
