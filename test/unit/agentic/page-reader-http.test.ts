import { FetchRefused, PAGE_READER_USER_AGENT, httpPageReader, type Transport } from '../../../shared/adapters/page-reader-http.js';
import type { Resolver } from '../../../shared/adapters/web-target.js';
import type { ValidatedTarget } from '../../../shared/adapters/web-target.js';

/**
 * The AWS page reader's target rules with a fake resolver and a fake transport: no DNS question and no
 * packet leaves the process. The transport records every connection it is asked to make, so a refusal is
 * proven by the absence of a connection, and pinning by the address the connection is given.
 */
const DNS: Record<string, string[]> = {
  'acme.test': ['93.184.216.34'],
  'v6.test': ['2606:2800:220:1:248:1893:25c8:1946'],
  'private.test': ['10.0.0.7'],
  'rebind.test': ['93.184.216.34', '192.168.1.1'],
  'meta.test': ['169.254.169.254'],
  'loop.test': ['127.0.0.1'],
  'cgnat.test': ['100.64.0.1'],
  'mapped.test': ['::ffff:10.0.0.1'],
  'ula.test': ['fd00::1'],
};
const resolver: Resolver = async (host) => DNS[host] ?? [];

function fakeWeb(pages: Record<string, { status?: number; body: string } | Error>) {
  const connections: { address: string; hostname: string; path: string; userAgent: string; protocol: string }[] = [];
  const transport: Transport = async (target: ValidatedTarget, path, limits) => {
    connections.push({ address: target.address, hostname: target.hostname, path, userAgent: limits.userAgent, protocol: target.protocol });
    const page = pages[`${target.hostname}${path}`];
    if (page instanceof Error) throw page;
    if (!page) return { status: 404, contentType: 'text/plain', body: 'not found' };
    return { status: page.status ?? 200, contentType: 'text/html', body: page.body };
  };
  return { connections, transport };
}

describe('the AWS page reader', () => {
  test('reads a public https page, connecting to the checked address with its user agent', async () => {
    const web = fakeWeb({ 'acme.test/news/': { body: '<h1>News</h1>' } });
    const r = await httpPageReader({ resolver, transport: web.transport }).read('https://acme.test/news/');
    expect(r).toEqual({ ok: true, page: { url: 'https://acme.test/news/', status: 200, contentType: 'text/html', body: '<h1>News</h1>' } });
    expect(web.connections.map((c) => [c.address, c.hostname, c.path, c.protocol])).toEqual([
      ['93.184.216.34', 'acme.test', '/robots.txt', 'https:'],
      ['93.184.216.34', 'acme.test', '/news/', 'https:'],
    ]);
    expect(web.connections.every((c) => c.userAgent === PAGE_READER_USER_AGENT)).toBe(true);
    expect(PAGE_READER_USER_AGENT).toMatch(/Bot\/\d.*\(\+https:\/\//);
  });

  test.each([
    ['http://acme.test/', 'plain http'],
    ['ftp://acme.test/', 'another scheme'],
    ['https://user:pw@acme.test/', 'credentials in the URL'],
    ['https://private.test/', 'a private address'],
    ['https://rebind.test/', 'one private address among public ones'],
    ['https://meta.test/latest/meta-data/', 'the metadata endpoint'],
    ['https://loop.test/', 'loopback'],
    ['https://cgnat.test/', 'CGNAT'],
    ['https://mapped.test/', 'an IPv4-mapped private address'],
    ['https://ula.test/', 'an IPv6 unique-local address'],
    ['https://10.1.2.3/', 'a private IP literal'],
    ['https://[::1]/', 'the IPv6 loopback literal'],
    ['https://nowhere.test/', 'a host that does not resolve'],
    ['not a url', 'garbage'],
  ])('refuses %s (%s) without connecting', async (url) => {
    const web = fakeWeb({});
    const r = await httpPageReader({ resolver, transport: web.transport }).read(url);
    expect(r).toMatchObject({ ok: false, reason: 'not_allowed' });
    expect(web.connections).toEqual([]);
  });

  test('an IPv6 public host is read at its checked address', async () => {
    const web = fakeWeb({ 'v6.test/': { body: 'ok' } });
    expect((await httpPageReader({ resolver, transport: web.transport }).read('https://v6.test/')).ok).toBe(true);
    expect(web.connections.map((c) => c.address)).toEqual(['2606:2800:220:1:248:1893:25c8:1946', '2606:2800:220:1:248:1893:25c8:1946']);
  });

  test('robots.txt is obeyed for our agent, read once per site, and its absence allows', async () => {
    const web = fakeWeb({
      'acme.test/robots.txt': { body: 'User-agent: *\nDisallow: /team/\n\nUser-agent: PeopleSearchResearchBot\nDisallow: /private/\n' },
      'acme.test/team/jane/': { body: 'Jane' },
      'acme.test/news/': { body: 'news' },
    });
    const reader = httpPageReader({ resolver, transport: web.transport });
    expect(await reader.read('https://acme.test/private/x')).toMatchObject({ ok: false, reason: 'robots' });
    // Our own group replaces the * group (RFC 9309): /team/ is allowed to us.
    expect((await reader.read('https://acme.test/team/jane/')).ok).toBe(true);
    expect((await reader.read('https://acme.test/news/')).ok).toBe(true);
    expect(web.connections.map((c) => c.path)).toEqual(['/robots.txt', '/team/jane/', '/news/']);

    const blocked = fakeWeb({ 'acme.test/robots.txt': { body: 'User-agent: *\nDisallow: /\n' } });
    expect(await httpPageReader({ resolver, transport: blocked.transport }).read('https://acme.test/news/')).toMatchObject({ ok: false, reason: 'robots' });
    expect(blocked.connections.map((c) => c.path)).toEqual(['/robots.txt']);
  });

  test('size and time caps, errors and non-2xx answers are refusals the loop can reason about', async () => {
    const web = fakeWeb({
      'acme.test/big/': new FetchRefused('too_large', 'page larger than 524288 bytes'),
      'acme.test/slow/': new FetchRefused('timeout', 'no complete answer within 5000 ms'),
      'acme.test/gone/': { status: 410, body: '' },
    });
    const reader = httpPageReader({ resolver, transport: web.transport });
    expect(await reader.read('https://acme.test/big/')).toMatchObject({ ok: false, reason: 'too_large' });
    expect(await reader.read('https://acme.test/slow/')).toMatchObject({ ok: false, reason: 'timeout' });
    expect(await reader.read('https://acme.test/gone/')).toMatchObject({ ok: false, reason: 'http_error', detail: 'HTTP 410' });
  });
});

describe('a read given a deadline (what is left of the research step)', () => {
  const slow = (ms: number): Transport => async (_t, path, limits) => {
    const wait = Math.min(ms, limits.timeoutMs);
    await new Promise((r) => setTimeout(r, wait));
    if (wait < ms) throw new FetchRefused('timeout', `no complete answer within ${limits.timeoutMs} ms`);
    return { status: path === '/robots.txt' ? 404 : 200, contentType: 'text/html', body: 'ok' };
  };

  test('the page fetch gets no more than what is left, and the read ends by its deadline', async () => {
    const seen: number[] = [];
    const transport: Transport = async (t, path, limits) => {
      seen.push(limits.timeoutMs);
      return slow(path === '/robots.txt' ? 100 : 5_000)(t, path, limits);
    };
    const started = Date.now();
    const r = await httpPageReader({ resolver, transport }).read('https://acme.test/news/', { timeoutMs: 400 });
    expect(r).toMatchObject({ ok: false, reason: 'timeout' });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(seen[0]).toBe(5_000); // robots.txt under the reader's own cap (its answer is kept for the site)
    expect(seen[1]).toBeLessThanOrEqual(300);
  });

  test('a robots.txt slower than the deadline ends the read at the deadline', async () => {
    const started = Date.now();
    const r = await httpPageReader({ resolver, transport: slow(1_500) }).read('https://acme.test/news/', { timeoutMs: 200 });
    expect(r).toMatchObject({ ok: false, reason: 'timeout' });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  test('without a deadline, the reader caps each fetch at its own limit', async () => {
    const seen: number[] = [];
    const transport: Transport = async (t, path, limits) => {
      seen.push(limits.timeoutMs);
      return slow(1)(t, path, limits);
    };
    expect((await httpPageReader({ resolver, transport, timeoutMs: 1234 }).read('https://acme.test/news/')).ok).toBe(true);
    expect(seen).toEqual([1234, 1234]);
  });
});
