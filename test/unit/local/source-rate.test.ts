import { OAUTH_CALLBACK_PATH, ROUTES, SOURCE_RATE_LIMITS, SOURCE_RATE_LIMIT_LIST, STAGE_METHOD_CEILING, countsAgainst, sourcePathRegex, type RouteDef, type SourceRateLimit } from '../../../shared/catalog/routes.js';
import { SourceWindows } from '../../../shared/local/token-bucket.js';

/** A concrete path of a route: every `{param}` filled. */
const concrete = (route: RouteDef) => route.path.replace(/\{[^}]+\}/g, 'abc123');
const limitsOf = (path: string, method = 'GET') => SOURCE_RATE_LIMIT_LIST.filter((l) => countsAgainst(l, method, path)).map((l) => l.name);

describe('per-source limits in the route catalogue', () => {
  test('each route is counted by exactly the limit of its kind: API-key routes, u/ (page and one-click apart), o/, test-emails/, the OAuth callback, privacy requests (new ones and links apart)', () => {
    const expected = (route: RouteDef): string[] => {
      if (route.auth === 'api_key') return [SOURCE_RATE_LIMITS.apiKey.name];
      if (route.path.includes('/u/{token}/')) return [route.method === 'POST' ? SOURCE_RATE_LIMITS.oneClickUnsubscribe.name : SOURCE_RATE_LIMITS.unsubscribe.name];
      if (route.path.includes('/o/{token}/')) return [SOURCE_RATE_LIMITS.openPixel.name];
      if (route.path.includes('/test-emails/')) return [SOURCE_RATE_LIMITS.testEmails.name];
      if (route.path === OAUTH_CALLBACK_PATH) return [SOURCE_RATE_LIMITS.oauthCallback.name];
      if (route.path === '/api/public/v1/privacy-requests/') return [SOURCE_RATE_LIMITS.privacyRequests.name];
      if (route.path.startsWith('/api/public/v1/privacy-requests/{token}/')) return [SOURCE_RATE_LIMITS.privacyLinks.name];
      return [];
    };
    for (const route of ROUTES) expect([route.method, route.path, limitsOf(concrete(route), route.method)]).toEqual([route.method, route.path, expected(route)]);
    expect(ROUTES.filter((r) => r.auth === 'api_key').length).toBeGreaterThan(20);
  });

  test('the whole decoded path is matched, anchored: an encoded %2F…openapi.json (or u/, o/) in a parameter is an API-key route', () => {
    expect(limitsOf('/api/public/v1/%75/tok/')).toEqual([SOURCE_RATE_LIMITS.unsubscribe.name]);
    expect(limitsOf('/api/public/v1/search/', 'POST')).toEqual([SOURCE_RATE_LIMITS.apiKey.name]);
    expect(limitsOf('/api/public/v1/openapi.json')).toEqual([]);
    for (const path of ['/api/public/v1/x%2Fopenapi.json/', '/api/public/v1/emails/x%2Fopenapi.json/', '/api/public/v1/emails/%2Fapi%2Fpublic%2Fv1%2Fopenapi.json/', '/api/public/v1/openapi.json/x/', '/api/public/v1/emails/x%2Fu%2Ftok/', '/api/public/v1/search/x%2Fo%2Ftok/', '/api/public/v1/emails/x%2Ftest-emails%2F/']) {
      expect([path, limitsOf(path)]).toEqual([path, [SOURCE_RATE_LIMITS.apiKey.name]]);
    }
    // The exclusion is the contract's own path, not any path ending in it.
    expect(limitsOf('/x/api/public/v1/openapi.json')).toEqual([]);
  });

  test('the WAF regex and the twin agree: a stage name may stand in front on the execute-api host, nothing else', () => {
    const regex = new RegExp(sourcePathRegex('/api/public/v1/u/{token}/', 'prod'));
    expect(['/prod/api/public/v1/u/tok/', '/api/public/v1/u/tok/', '/api/public/v1/u/tok'].map((p) => regex.test(p))).toEqual([true, true, true]);
    expect(['/other/api/public/v1/u/tok/', '/prod/api/public/v1/u/a/b/', '/api/public/v1/u/tok/x', 'x/api/public/v1/u/tok/'].map((p) => regex.test(p))).toEqual([false, false, false, false]);
    expect(sourcePathRegex('/api/public/v1/openapi.json')).toBe('^/api/public/v1/openapi\\.json$');
    expect(sourcePathRegex('/api/public/v1/*', 'prod')).toBe('^(/prod)?/api/public/v1/.*$');
  });

  test('a one-click unsubscribe (POST) is not counted with the page (GET): only a flood cap at a tenth of the stage ceiling', () => {
    expect(limitsOf('/api/public/v1/u/tok/', 'POST')).toEqual([SOURCE_RATE_LIMITS.oneClickUnsubscribe.name]);
    expect(SOURCE_RATE_LIMITS.oneClickUnsubscribe.limit).toBe(6000);
    const post = ROUTES.find((r) => r.method === 'POST' && r.path.endsWith('/u/{token}/'))!;
    expect(post.throttle).toEqual({ perMinute: STAGE_METHOD_CEILING.rateLimit * 60, burst: STAGE_METHOD_CEILING.burstLimit });
  });

  test('the OAuth callback has a per-source rule: a fifth of its stage budget', () => {
    const callback = ROUTES.find((r) => r.path === OAUTH_CALLBACK_PATH)!;
    expect(limitsOf(OAUTH_CALLBACK_PATH)).toEqual([SOURCE_RATE_LIMITS.oauthCallback.name]);
    expect(limitsOf('/oauth/callback/x%2F')).toEqual([]);
    expect(SOURCE_RATE_LIMITS.oauthCallback.limit).toBe(callback.throttle!.perMinute / 5);
  });

  test('every limit is one AWS WAF accepts: at least 10, a whole number, a window of 60/120/300/600 s, a rule name, regexes within 512 characters', () => {
    const names = new Set<string>();
    for (const l of SOURCE_RATE_LIMIT_LIST) {
      expect(Number.isInteger(l.limit) && l.limit >= 10 && l.limit <= 2_000_000_000).toBe(true);
      expect([60, 120, 300, 600]).toContain(l.windowSeconds);
      expect(l.name).toMatch(/^[\w-]{1,128}$/);
      for (const p of [...l.paths, ...(l.excludePaths ?? [])]) expect(sourcePathRegex(p, 'a-stage-name').length).toBeLessThanOrEqual(512);
      names.add(l.name);
    }
    expect(names.size).toBe(SOURCE_RATE_LIMIT_LIST.length);
  });

  test('one source can spend at most a fifth of a keyless route’s stage-wide budget', () => {
    const budgetOf = (l: SourceRateLimit) =>
      ROUTES.filter((r) => countsAgainst(l, r.method, concrete(r))).map((r) => (r.auth === 'handler_key' ? r.edgeThrottle! : r.throttle!).perMinute * (l.windowSeconds / 60));
    for (const l of [SOURCE_RATE_LIMITS.unsubscribe, SOURCE_RATE_LIMITS.oneClickUnsubscribe, SOURCE_RATE_LIMITS.openPixel, SOURCE_RATE_LIMITS.testEmails, SOURCE_RATE_LIMITS.oauthCallback]) {
      const budgets = budgetOf(l);
      expect(budgets.length).toBeGreaterThan(0);
      for (const budget of budgets) expect([l.name, l.limit <= budget / 5]).toEqual([l.name, true]);
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
