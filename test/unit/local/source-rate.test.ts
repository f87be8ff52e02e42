import { ROUTES, SOURCE_RATE_LIMITS, SOURCE_RATE_LIMIT_LIST, countsAgainst, type RouteDef, type SourceRateLimit } from '../../../shared/catalog/routes.js';
import { SourceWindows } from '../../../shared/local/token-bucket.js';

/** A concrete path of a route: every `{param}` filled. */
const concrete = (route: RouteDef) => route.path.replace(/\{[^}]+\}/g, 'abc123');
const limitsOf = (path: string) => SOURCE_RATE_LIMIT_LIST.filter((l) => countsAgainst(l, path)).map((l) => l.name);

describe('per-source limits in the route catalogue', () => {
  test('each route is counted by exactly the limit of its kind: API-key routes, u/, o/, test-emails/; no other route by any', () => {
    const expected = (route: RouteDef): string[] => {
      if (route.auth === 'api_key') return [SOURCE_RATE_LIMITS.apiKey.name];
      if (route.path.includes('/u/{token}/')) return [SOURCE_RATE_LIMITS.unsubscribe.name];
      if (route.path.includes('/o/{token}/')) return [SOURCE_RATE_LIMITS.openPixel.name];
      if (route.path.includes('/test-emails/')) return [SOURCE_RATE_LIMITS.testEmails.name];
      return [];
    };
    for (const route of ROUTES) expect([route.method, route.path, limitsOf(concrete(route))]).toEqual([route.method, route.path, expected(route)]);
    expect(ROUTES.filter((r) => r.auth === 'api_key').length).toBeGreaterThan(20);
  });

  test('the match holds behind a stage name or base path, and for a percent-encoded path (WAF decodes with URL_DECODE)', () => {
    expect(limitsOf('/prod/api/public/v1/u/tok/')).toEqual([SOURCE_RATE_LIMITS.unsubscribe.name]);
    expect(limitsOf('/api/public/v1/%75/tok/')).toEqual([SOURCE_RATE_LIMITS.unsubscribe.name]);
    expect(limitsOf('/api/public/v1/search/')).toEqual([SOURCE_RATE_LIMITS.apiKey.name]);
    expect(limitsOf('/api/public/v1/openapi.json')).toEqual([]);
  });

  test('every limit is one AWS WAF accepts: at least 10, a whole number, a window of 60/120/300/600 s, a rule name', () => {
    const names = new Set<string>();
    for (const l of SOURCE_RATE_LIMIT_LIST) {
      expect(Number.isInteger(l.limit) && l.limit >= 10 && l.limit <= 2_000_000_000).toBe(true);
      expect([60, 120, 300, 600]).toContain(l.windowSeconds);
      expect(l.name).toMatch(/^[\w-]{1,128}$/);
      names.add(l.name);
    }
    expect(names.size).toBe(SOURCE_RATE_LIMIT_LIST.length);
  });

  test('one source can spend at most a fifth of a keyless route’s stage-wide budget', () => {
    const budgetOf = (l: SourceRateLimit) =>
      ROUTES.filter((r) => countsAgainst(l, concrete(r))).map((r) => (r.auth === 'handler_key' ? r.edgeThrottle! : r.throttle!).perMinute * (l.windowSeconds / 60));
    for (const l of [SOURCE_RATE_LIMITS.unsubscribe, SOURCE_RATE_LIMITS.openPixel, SOURCE_RATE_LIMITS.testEmails]) {
      for (const budget of budgetOf(l)) expect([l.name, l.limit <= budget / 5]).toEqual([l.name, true]);
    }
  });
});

describe('SourceWindows (the twin of a WAF rate-based rule)', () => {
  test('a source gets `limit` requests in a window, then is refused; another source is not', () => {
    let now = 60_000 * 1000;
    const w = new SourceWindows(() => now);
    const results = Array.from({ length: 12 }, () => w.hit('r 127.0.0.2', 10, 60));
    expect(results).toEqual([...Array(10).fill(true), false, false]);
    expect(w.hit('r 127.0.0.1', 10, 60)).toBe(true);
    expect(w.hit('other 127.0.0.2', 10, 60)).toBe(true);
    now += 1;
    expect(w.hit('r 127.0.0.2', 10, 60)).toBe(false);
  });

  test('refused requests count: a source that keeps sending stays refused; after it stops, the trailing window empties', () => {
    let now = 60_000 * 1000;
    const w = new SourceWindows(() => now);
    for (let i = 0; i < 10; i++) w.hit('s', 10, 60);
    // Keeps sending into the next window: 40 in the first half of it, on top of 10 weighted by a half.
    now += 60_000;
    const next = Array.from({ length: 40 }, () => w.hit('s', 10, 60));
    expect(next.filter(Boolean)).toHaveLength(0);
    now += 30_000;
    // Half-way through the window after: 40 × ½ still inside the trailing minute.
    expect(w.hit('s', 10, 60)).toBe(false);
    now += 60_000 * 2;
    expect(w.hit('s', 10, 60)).toBe(true);
  });

  test('the previous window weighs by the share of it still inside the trailing window', () => {
    let now = 60_000 * 1000;
    const w = new SourceWindows(() => now);
    for (let i = 0; i < 10; i++) expect(w.hit('s', 10, 60)).toBe(true);
    now += 60_000 + 45_000; // a quarter of the previous window still inside: 2.5 of its 10
    const allowed = Array.from({ length: 10 }, () => w.hit('s', 10, 60)).filter(Boolean).length;
    expect(allowed).toBe(7);
  });
});
