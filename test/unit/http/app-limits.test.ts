import { APP_LIMITS, ROUTES, appLimitOf, routeBindings } from '../../../shared/catalog/routes.js';

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
  expect(appLimitOf('POST', '/api/app/v1/contact-checks/')).toBe('read');
  expect(appLimitOf('POST', '/api/app/v1/jobs/{job_id}/webhook-deliveries/redeliver/')).toBe('redeliver');
  expect(appLimitOf('POST', '/api/app/v1/api-keys/')).toBe('write');
});

test('the numbers: per user below per account below the ceiling, and the ceiling leaves 20 accounts at full speed their whole budget', () => {
  expect(APP_LIMITS.read.perUser).toEqual({ perMinute: 120, burst: 30 });
  expect(APP_LIMITS.read.perAccount).toEqual({ perMinute: 300, burst: 60 });
  expect(APP_LIMITS.write.perUser).toEqual({ perMinute: 30, burst: 10 });
  expect(APP_LIMITS.write.perAccount).toEqual({ perMinute: 60, burst: 20 });
  for (const [kind, l] of Object.entries(APP_LIMITS)) {
    expect([kind, l.perUser.perMinute <= l.perAccount.perMinute, l.perUser.burst <= l.perAccount.burst]).toEqual([kind, true, true]);
    expect([kind, l.stage.perMinute >= 20 * l.perAccount.perMinute, l.stage.burst >= 5 * l.perAccount.burst]).toEqual([kind, true, true]);
  }
});
