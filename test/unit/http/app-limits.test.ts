import { APP_LIMITS, ROUTES, appLimitOf, routeBindings } from '../../../shared/catalog/routes.js';
import { CHECK_MAX_TOKENS, CHECK_MIN_TOKENS, READ_BYTES_PER_TOKEN, appTokensOf, readDebtOf } from '../../../shared/catalog/app-limits.js';
import { MAX_CHECKED_CONTACTS } from '../../../shared/sequences/check-contacts.js';

/** The web app's per-user and per-account limits (issue 42, item 1): the route table's side. */
const userRoutes = ROUTES.filter((r) => r.auth === 'user');

test('every web-app route has a class whose stage ceiling is its method throttle, and may keep its user’s and account’s buckets', () => {
  expect(userRoutes.length).toBeGreaterThan(30);
  for (const r of userRoutes) {
    const kind = appLimitOf(r.method, r.path);
    expect([r.method, r.path, r.throttle]).toEqual([r.method, r.path, APP_LIMITS[kind].stage]);
    // The shell finds the class from the event: in AWS `resource` has no trailing slash.
    expect(appLimitOf(r.method, r.path.replace(/\/$/, ''))).toBe(kind);
    const b = routeBindings(r);
    expect([r.path, b.keyThrottle, b.tables?.accounts !== undefined]).toEqual([r.path, true, true]);
  }
  expect(appLimitOf('POST', '/api/app/v1/contact-checks/')).toBe('check');
  expect(appLimitOf('GET', '/api/app/v1/sequences/{sequence_id}/replies/')).toBe('read');
  expect(appLimitOf('POST', '/api/app/v1/jobs/{job_id}/webhook-deliveries/redeliver/')).toBe('redeliver');
  expect(appLimitOf('POST', '/api/app/v1/api-keys/')).toBe('write');
});

test('the numbers: per user below per account below the ceiling, and the ceiling leaves 20 accounts at full speed their whole budget', () => {
  expect(APP_LIMITS.read.perUser).toEqual({ perMinute: 120, burst: 30 });
  expect(APP_LIMITS.read.perAccount).toEqual({ perMinute: 300, burst: 60 });
  expect(APP_LIMITS.write.perUser).toEqual({ perMinute: 30, burst: 10 });
  expect(APP_LIMITS.write.perAccount).toEqual({ perMinute: 60, burst: 20 });
  expect(APP_LIMITS.check.perUser).toEqual({ perMinute: 5000, burst: 10_000 });
  expect(APP_LIMITS.check.perAccount).toEqual({ perMinute: 10_000, burst: 10_000 });
  for (const [kind, l] of Object.entries(APP_LIMITS)) {
    expect([kind, l.perUser.perMinute <= l.perAccount.perMinute, l.perUser.burst <= l.perAccount.burst]).toEqual([kind, true, true]);
    // The stage counts requests; a check's buckets count contacts, at least CHECK_MIN_TOKENS a request.
    const least = kind === 'check' ? CHECK_MIN_TOKENS : 1;
    expect([kind, l.stage.perMinute >= (20 * l.perAccount.perMinute) / least, l.stage.burst >= (5 * l.perAccount.burst) / least]).toEqual([kind, true, true]);
  }
});

test('a contact check takes one token per contact (at least 100, at most 500): a 10,000-row import is one user burst, a second one waits about 2 minutes', () => {
  const body = (n: number) => JSON.stringify({ contacts: Array.from({ length: n }, (_, i) => ({ email: `p${i}@x.test`, first_name: 'P' })), steps: 1 });
  expect([1, 3, 100, 101, 500, 501].map((n) => appTokensOf('check', body(n)))).toEqual([100, 100, 100, 101, 500, 500]);
  expect(appTokensOf('check', Buffer.from(body(250)).toString('base64'), true)).toBe(250);
  expect([appTokensOf('check', 'not json'), appTokensOf('check', null), appTokensOf('check', '{"contacts":7}')]).toEqual([100, 100, 100]);
  expect([appTokensOf('read', body(500)), appTokensOf('write', body(500))]).toEqual([1, 1]);
  expect(CHECK_MAX_TOKENS).toBe(MAX_CHECKED_CONTACTS);
  // The import's 20 checks of 500 fit one user's burst; the next 10,000 rows refill in 2 minutes.
  expect(APP_LIMITS.check.perUser.burst).toBeGreaterThanOrEqual(20 * MAX_CHECKED_CONTACTS);
  expect(10_000 / APP_LIMITS.check.perUser.perMinute).toBe(2);
});

test('a read is charged one token per 64 KiB of its answer: the first up front, the rest after', () => {
  expect(READ_BYTES_PER_TOKEN).toBe(65_536);
  expect([0, 1, 65_536, 65_537, 131_072, 5_230_000].map(readDebtOf)).toEqual([0, 0, 0, 1, 1, 79]);
});
