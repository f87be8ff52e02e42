import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type AddressInfo } from 'node:net';
import tls from 'node:tls';
import {
  WEBHOOK_MAX_ATTEMPTS,
  WEBHOOK_RETRY_DELAYS_SECONDS,
  deliverWebhook,
  nextRetryDelaySeconds,
} from '../../../shared/webhooks/deliver.js';
import { generateWebhookSecret, signWebhook, verifyWebhook } from '../../../shared/webhooks/sign.js';
import type { ValidatedTarget } from '../../../shared/adapters/web-target.js';

// A self-signed certificate for CN/SAN hooks.test, used only to stand up a loopback TLS receiver.
const TEST_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg2s2Uy6JQFWFOnZRp
Bdn+LjQp4buNoczHEUPsqgUU6gKhRANCAARE9V+E6V4yoQbG2nnekPtisAH56ZJa
K1HoOJpEJ5jqXqApW8c88q6M2q1FaDSuWfHm4qwJ9u/tqhKsGshHokhz
-----END PRIVATE KEY-----
`;
const TEST_CERT = `-----BEGIN CERTIFICATE-----
MIIBmDCCAT6gAwIBAgIUCTrMUVVK6M+gwJcLkOdPVkGhKfgwCgYIKoZIzj0EAwIw
FTETMBEGA1UEAwwKaG9va3MudGVzdDAgFw0yNjExMjIwNDIxNTNaGA8yMTI2MTAy
OTA0MjE1M1owFTETMBEGA1UEAwwKaG9va3MudGVzdDBZMBMGByqGSM49AgEGCCqG
SM49AwEHA0IABET1X4TpXjKhBsbaed6Q+2KwAfnpklorUeg4mkQnmOpeoClbxzzy
rozarUVoNK5Z8ebirAn27+2qEqwayEeiSHOjajBoMB0GA1UdDgQWBBRHqQBmxacE
w+IpEKVeWxIWCFN3wjAfBgNVHSMEGDAWgBRHqQBmxacEw+IpEKVeWxIWCFN3wjAP
BgNVHRMBAf8EBTADAQH/MBUGA1UdEQQOMAyCCmhvb2tzLnRlc3QwCgYIKoZIzj0E
AwIDSAAwRQIhAMUPfJepSBteKOA/cB7aY7tYXqlA6dg9DKfEf1wiBUkbAiAZLW/V
4hSMohQfQSEN4HTrX/yuJHgPrWnsozqrYqmi6w==
-----END CERTIFICATE-----
`;

interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

interface Receiver {
  port: number;
  received: Received[];
  close(): Promise<void>;
}

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

async function listen(server: http.Server | https.Server): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return (server.address() as AddressInfo).port;
}

function closer(server: http.Server | https.Server): () => Promise<void> {
  return () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
}

/** A loopback receiver that records each request (after reading its body) and lets `handler` answer. */
async function startReceiver(handler: Handler): Promise<Receiver> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      handler(req, res);
    });
  });
  const port = await listen(server);
  return { port, received, close: closer(server) };
}

function loopbackTarget(port: number, path = '/hooks/in', protocol: 'http:' | 'https:' = 'http:'): ValidatedTarget {
  // hooks.test never resolves (RFC 2606); only the pinned address can reach the receiver.
  return { url: `${protocol}//hooks.test:${port}${path}`, hostname: 'hooks.test', port, protocol, address: '127.0.0.1', family: 4 };
}

// Any DNS question for a name during these tests fails and is recorded, so a broken pin shows up as an error
// and nothing ever leaves the machine.
const dnsQuestions: string[] = [];
const realLookup = dns.lookup;

beforeAll(() => {
  (dns as { lookup: unknown }).lookup = (hostname: string, options: unknown, callback?: (err: Error) => void) => {
    // Node's own listen() passes IP literals through lookup; those never touch the network.
    if (isIP(hostname)) return (realLookup as (...args: unknown[]) => void)(hostname, options, callback);
    dnsQuestions.push(hostname);
    const cb = typeof options === 'function' ? (options as (err: Error) => void) : callback!;
    process.nextTick(() => cb(Object.assign(new Error(`DNS disabled in tests: ${hostname}`), { code: 'ENOTFOUND' })));
  };
});

afterAll(() => {
  (dns as { lookup: unknown }).lookup = realLookup;
});

beforeEach(() => {
  dnsQuestions.length = 0;
});

describe('the DNS guard itself', () => {
  it('catches an unpinned request (so "no DNS question" below means something)', async () => {
    const receiver = await startReceiver((_req, res) => res.end());
    try {
      const outcome = await new Promise<string>((resolve) => {
        const req = http.request({ host: 'localhost', port: receiver.port, method: 'POST', agent: false }, () => resolve('answered'));
        req.on('error', (e) => resolve(e.message));
        req.end();
      });
      expect(outcome).toMatch(/DNS disabled in tests/);
      expect(dnsQuestions).toEqual(['localhost']);
      expect(receiver.received).toHaveLength(0);
    } finally {
      await receiver.close();
    }
  });
});

describe('deliverWebhook', () => {
  it('POSTs the signed body to the pinned address, never asking DNS, with the host name as Host', async () => {
    const receiver = await startReceiver((_req, res) => {
      res.writeHead(204);
      res.end();
    });
    try {
      const secret = generateWebhookSecret();
      const body = JSON.stringify({ id: 'dj_1', event_type: 'search.completed', results: [], total_returned: 0, note: 'café ✓' });
      const headers = signWebhook({ secrets: [secret], msgId: 'msg_1', timestamp: new Date(), body });

      const result = await deliverWebhook({ target: loopbackTarget(receiver.port, '/hooks/in?tenant=7'), headers, body });

      expect(result).toEqual({ ok: true, status: 204, error: null, durationMs: expect.any(Number) });
      expect(dnsQuestions).toEqual([]);
      expect(receiver.received).toHaveLength(1);
      const [got] = receiver.received;
      expect(got!.method).toBe('POST');
      expect(got!.url).toBe('/hooks/in?tenant=7');
      expect(got!.headers.host).toBe(`hooks.test:${receiver.port}`);
      expect(got!.headers['content-type']).toBe('application/json');
      expect(got!.headers['content-length']).toBe(String(Buffer.byteLength(body)));
      expect(got!.body).toBe(body);
      expect(verifyWebhook(secret, got!.headers, got!.body)).toEqual(JSON.parse(body));
    } finally {
      await receiver.close();
    }
  });

  it('reports a 500 as not ok with its status and the class http_5xx', async () => {
    const receiver = await startReceiver((_req, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('boom');
    });
    try {
      const result = await deliverWebhook({ target: loopbackTarget(receiver.port), headers: {}, body: '{}' });
      expect(result).toMatchObject({ ok: false, status: 500, error: 'http_5xx' });
    } finally {
      await receiver.close();
    }
  });

  it('reports a 404 as not ok with its status and the class http_4xx', async () => {
    const receiver = await startReceiver((_req, res) => {
      res.writeHead(404);
      res.end();
    });
    try {
      const result = await deliverWebhook({ target: loopbackTarget(receiver.port), headers: {}, body: '{}' });
      expect(result).toMatchObject({ ok: false, status: 404, error: 'http_4xx' });
    } finally {
      await receiver.close();
    }
  });

  it('reports a connection dropped before any answer as the class reset', async () => {
    const receiver = await startReceiver((req) => req.socket.destroy());
    try {
      const result = await deliverWebhook({ target: loopbackTarget(receiver.port), headers: {}, body: '{}', timeoutMs: 2000 });
      expect(result).toMatchObject({ ok: false, status: null, error: 'reset' });
    } finally {
      await receiver.close();
    }
  });

  it('does not follow a redirect', async () => {
    const receiver = await startReceiver((req, res) => {
      if (req.url === '/hooks/in') {
        res.writeHead(307, { location: '/elsewhere' });
        res.end();
      } else {
        res.writeHead(200);
        res.end();
      }
    });
    try {
      const result = await deliverWebhook({ target: loopbackTarget(receiver.port), headers: {}, body: '{}' });
      expect(result).toMatchObject({ ok: false, status: 307, error: 'http_3xx' });
      await new Promise((r) => setTimeout(r, 50));
      expect(receiver.received.map((r) => r.url)).toEqual(['/hooks/in']);
    } finally {
      await receiver.close();
    }
  });

  it('gives up after timeoutMs when the receiver never answers, as the class timeout', async () => {
    const receiver = await startReceiver(() => {
      /* never answers */
    });
    try {
      const result = await deliverWebhook({ target: loopbackTarget(receiver.port), headers: {}, body: '{}', timeoutMs: 200 });
      expect(result.ok).toBe(false);
      expect(result.status).toBeNull();
      expect(result.error).toBe('timeout');
      expect(result.durationMs).toBeGreaterThanOrEqual(190);
      expect(result.durationMs).toBeLessThan(2000);
      expect(receiver.received).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });

  it('reports a refused connection as the class refused, without its address or port', async () => {
    const receiver = await startReceiver(() => undefined);
    const port = receiver.port;
    await receiver.close();
    const result = await deliverWebhook({ target: loopbackTarget(port), headers: {}, body: '{}', timeoutMs: 2000 });
    expect(result).toEqual({ ok: false, status: null, error: 'refused', durationMs: expect.any(Number) });
    expect(JSON.stringify(result)).not.toContain(String(port));
    expect(JSON.stringify(result)).not.toMatch(/127\.0\.0\.1|ECONNREFUSED/);
    expect(dnsQuestions).toEqual([]);
  });

  it('returns a result, not an exception, for a malformed target', async () => {
    const target = { ...loopbackTarget(1), url: 'not a url' };
    const result = await deliverWebhook({ target, headers: {}, body: '{}' });
    expect(result.ok).toBe(false);
    expect(result.status).toBeNull();
    expect(result.error).toBe('other');
  });

  it('stops reading a huge response body after 64 KiB and still counts a 2xx', async () => {
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        res.write(Buffer.alloc(4 * 1024 * 1024, 0x61));
        // never ends: only the 64 KiB cap can finish the read before the timeout
      });
    });
    const port = await listen(server);
    try {
      const result = await deliverWebhook({ target: loopbackTarget(port), headers: {}, body: '{}', timeoutMs: 5000 });
      expect(result).toMatchObject({ ok: true, status: 200, error: null });
      expect(result.durationMs).toBeLessThan(4000);
    } finally {
      await closer(server)();
    }
  });

  it('decides on the status line when the body stalls until the timeout', async () => {
    const receiver = await startReceiver((_req, res) => {
      res.writeHead(202);
      res.flushHeaders();
    });
    try {
      const result = await deliverWebhook({ target: loopbackTarget(receiver.port), headers: {}, body: '{}', timeoutMs: 300 });
      expect(result).toMatchObject({ ok: true, status: 202, error: null });
      expect(result.durationMs).toBeGreaterThanOrEqual(290);
    } finally {
      await receiver.close();
    }
  });

  describe('over TLS', () => {
    async function startTlsReceiver(): Promise<{ port: number; sniNames: string[]; handshakes: () => number; close(): Promise<void> }> {
      const sniNames: string[] = [];
      let handshakeAttempts = 0;
      const context = tls.createSecureContext({ key: TEST_KEY, cert: TEST_CERT });
      const server = https.createServer(
        {
          key: TEST_KEY,
          cert: TEST_CERT,
          SNICallback: (name, cb) => {
            sniNames.push(name);
            cb(null, context);
          },
        },
        (_req, res) => {
          res.writeHead(200);
          res.end();
        },
      );
      server.on('connection', () => {
        handshakeAttempts += 1;
      });
      server.on('tlsClientError', () => undefined);
      const port = await listen(server);
      return { port, sniNames, handshakes: () => handshakeAttempts, close: closer(server) };
    }

    it('sends the host name as SNI and refuses an untrusted certificate', async () => {
      const receiver = await startTlsReceiver();
      try {
        const target = loopbackTarget(receiver.port, '/hooks/in', 'https:');
        const result = await deliverWebhook({ target, headers: {}, body: '{}', timeoutMs: 5000 });
        expect(result.ok).toBe(false);
        expect(result.status).toBeNull();
        expect(result.error).toBe('tls');
        expect(receiver.sniNames).toEqual(['hooks.test']);
        expect(dnsQuestions).toEqual([]);
      } finally {
        await receiver.close();
      }
    });

    it('sends no SNI for an IP-literal host', async () => {
      const receiver = await startTlsReceiver();
      try {
        const target: ValidatedTarget = {
          url: `https://127.0.0.1:${receiver.port}/h`,
          hostname: '127.0.0.1',
          port: receiver.port,
          protocol: 'https:',
          address: '127.0.0.1',
          family: 4,
        };
        const result = await deliverWebhook({ target, headers: {}, body: '{}', timeoutMs: 5000 });
        expect(result.ok).toBe(false);
        expect(result.error).toBe('tls');
        expect(receiver.handshakes()).toBe(1);
        expect(receiver.sniNames).toEqual([]);
      } finally {
        await receiver.close();
      }
    });
  });
});

describe('retry schedule', () => {
  it('is 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h', () => {
    expect(WEBHOOK_RETRY_DELAYS_SECONDS).toEqual([5, 5 * 60, 30 * 60, 2 * 3600, 5 * 3600, 10 * 3600, 10 * 3600]);
    expect(WEBHOOK_MAX_ATTEMPTS).toBe(8);
  });

  it('maps failed attempts to the next delay, then gives up after the 8th attempt', () => {
    expect([1, 2, 3, 4, 5, 6, 7].map(nextRetryDelaySeconds)).toEqual([5, 300, 1800, 7200, 18000, 36000, 36000]);
    expect(nextRetryDelaySeconds(8)).toBeNull();
    expect(nextRetryDelaySeconds(9)).toBeNull();
    expect(nextRetryDelaySeconds(1000)).toBeNull();
  });

  it('refuses a meaningless attempt count', () => {
    expect(() => nextRetryDelaySeconds(0)).toThrow(RangeError);
    expect(() => nextRetryDelaySeconds(-1)).toThrow(RangeError);
    expect(() => nextRetryDelaySeconds(1.5)).toThrow(RangeError);
    expect(() => nextRetryDelaySeconds(Number.NaN)).toThrow(RangeError);
  });

  it('cannot be changed at run time', () => {
    expect(Object.isFrozen(WEBHOOK_RETRY_DELAYS_SECONDS)).toBe(true);
  });
});
