import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { FetchRefused, PAGE_READER_USER_AGENT, cappedGet } from '../../../shared/adapters/page-reader-http.js';

/**
 * The fetch deadline is total, not idle: a loopback server that sends one byte every 200 ms (never idle
 * for the timeout's length) is cut off at the deadline.
 */
let server: http.Server;
let port: number;
const drips: NodeJS.Timeout[] = [];

beforeAll(async () => {
  server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    let n = 0;
    const drip = setInterval(() => {
      if (res.destroyed || ++n > 50) {
        clearInterval(drip);
        res.end();
      } else res.write('x');
    }, 200);
    drips.push(drip);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  drips.forEach(clearInterval);
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const get = (timeoutMs: number) =>
  cappedGet(http.request, { host: '127.0.0.1', port, path: '/', method: 'GET', agent: false }, { maxBytes: 1024 * 1024, timeoutMs, userAgent: PAGE_READER_USER_AGENT });

test('a page that drips one byte every 200 ms is refused at the total deadline', async () => {
  const t = Date.now();
  const err = await get(700).catch((e: unknown) => e);
  const took = Date.now() - t;
  expect(err).toBeInstanceOf(FetchRefused);
  expect((err as FetchRefused).reason).toBe('timeout');
  expect(took).toBeGreaterThanOrEqual(650);
  // The whole answer would take 10 s; a loaded machine may be late, but not by seconds.
  expect(took).toBeLessThan(3000);
});

test('an answer within the deadline is read whole', async () => {
  const fast = http.createServer((_req, res) => res.end('<h1>ok</h1>'));
  await new Promise<void>((r) => fast.listen(0, '127.0.0.1', r));
  const a = await cappedGet(http.request, { host: '127.0.0.1', port: (fast.address() as AddressInfo).port, path: '/', agent: false }, { maxBytes: 1024, timeoutMs: 2000, userAgent: 'x' });
  await new Promise((r) => fast.close(r));
  expect(a).toMatchObject({ status: 200, body: '<h1>ok</h1>' });
});
