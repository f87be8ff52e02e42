import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import robotsParserModule from 'robots-parser';
import { ValidationError } from '../core/errors.js';
import { validateWebhookUrl, type Resolver, type ValidatedTarget } from './web-target.js';
import type { PageReader, PageResult, ReadOptions } from '../ports/page-reader.js';

/**
 * The page reader over HTTP(S), under the webhook-target rules (docs/decisions.md#agentic-evidence):
 * `https` only, every address the host resolves to public, the connection pinned to the checked address
 * (no second DNS question, so no rebinding), no credentials in the URL, no redirects followed, a size cap,
 * a time cap, robots.txt obeyed for our user agent (fetched the same way, cached per origin) and a
 * User-Agent that says who is reading. The transport is a parameter so the SSRF rules are tested with a
 * fake resolver and a fake transport, without a packet leaving the process.
 */
interface RobotsRules {
  isAllowed(url: string, ua?: string): boolean | undefined;
}
// robots-parser is CommonJS whose typings declare the module loosely: its default export is the parser function.
const robotsParser = robotsParserModule as unknown as (url: string, contents: string) => RobotsRules;

export const PAGE_READER_USER_AGENT = 'PeopleSearchResearchBot/1.0 (+https://docs.example/research-bot)';
const ROBOTS_AGENT = 'PeopleSearchResearchBot';

export interface FetchAnswer {
  status: number;
  contentType: string;
  body: string;
}

export class FetchRefused extends Error {
  constructor(
    readonly reason: 'too_large' | 'timeout' | 'unreachable',
    message: string,
  ) {
    super(message);
    this.name = 'FetchRefused';
  }
}

/** One GET to a validated target: connect to `target.address` only. */
export type Transport = (target: ValidatedTarget, path: string, limits: Limits) => Promise<FetchAnswer>;

export interface HttpPageReaderOptions {
  resolver: Resolver;
  /** Loopback targets (the local sample web) accepted; never in AWS. */
  allowLoopback?: boolean;
  transport?: Transport;
  maxBytes?: number;
  timeoutMs?: number;
  /** Why a connection to this checked address may not be made here, or null when it may. */
  refuseConnection?: (address: string) => string | null;
}

export const PAGE_MAX_BYTES = 512 * 1024;
export const PAGE_TIMEOUT_MS = 5_000;

function pinnedLookup(address: string, family: 4 | 6): LookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  }) as unknown as LookupFunction;
}

type Limits = { maxBytes: number; timeoutMs: number; userAgent: string };

/**
 * One GET whose answer is read up to `limits.maxBytes` and within `limits.timeoutMs`: a total deadline over
 * connecting, the headers and the whole body (not an idle timeout, which a server sending one byte at a
 * time would never trip). A larger or slower answer is cut off and refused. Shared by the AWS transport and
 * the twin's sample-web transport.
 */
export const cappedGet = (send: typeof http.request, options: http.RequestOptions, limits: Limits) =>
  new Promise<FetchAnswer>((resolve, reject) => {
    let settled = false;
    const settle = (f: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      f();
    };
    const refuse = (e: FetchRefused) => {
      settle(() => reject(e));
      req.destroy();
    };
    const req = send(options, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > limits.maxBytes) refuse(new FetchRefused('too_large', `page larger than ${limits.maxBytes} bytes`));
        else chunks.push(c);
      });
      res.on('end', () => settle(() => resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), body: Buffer.concat(chunks).toString('utf8') })));
      res.on('error', (e) => settle(() => reject(new FetchRefused('unreachable', e.message))));
    });
    const deadline = setTimeout(() => refuse(new FetchRefused('timeout', `no complete answer within ${limits.timeoutMs} ms`)), Math.max(0, limits.timeoutMs));
    req.on('error', (e) => settle(() => reject(e instanceof FetchRefused ? e : new FetchRefused('unreachable', e.message))));
    req.end();
  });

/** The real transport: node's http(s) with the checked address pinned, TLS SNI and certificate checks on. */
export const pinnedTransport: Transport = (target, path, limits) => {
  const isIpLiteral = target.hostname.includes(':') || /^\d+\.\d+\.\d+\.\d+$/.test(target.hostname);
  const options: https.RequestOptions = {
    method: 'GET',
    protocol: target.protocol,
    host: target.hostname,
    port: target.port,
    path,
    family: target.family,
    lookup: pinnedLookup(target.address, target.family),
    agent: false,
    headers: { 'user-agent': limits.userAgent, accept: 'text/html, text/plain;q=0.9', connection: 'close' },
    ...(target.protocol === 'https:' && !isIpLiteral ? { servername: target.hostname } : {}),
  };
  return cappedGet(target.protocol === 'https:' ? https.request : http.request, options, limits);
};

const LATE = Symbol('late');

/** `p`'s answer, or LATE once `until` (epoch ms) has passed. */
function beforeDeadline<T>(p: Promise<T>, until: number): Promise<T | typeof LATE> {
  if (until === Infinity) return p;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<typeof LATE>((resolve) => {
    timer = setTimeout(() => resolve(LATE), Math.max(0, until - Date.now()));
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

export function httpPageReader(opts: HttpPageReaderOptions): PageReader {
  const transport = opts.transport ?? pinnedTransport;
  const limits = { maxBytes: opts.maxBytes ?? PAGE_MAX_BYTES, timeoutMs: opts.timeoutMs ?? PAGE_TIMEOUT_MS, userAgent: PAGE_READER_USER_AGENT };
  const robots = new Map<string, Promise<RobotsRules | null>>();

  const target = async (url: string): Promise<ValidatedTarget | string> => {
    try {
      const t = await validateWebhookUrl(url, { resolver: opts.resolver, allowLoopback: opts.allowLoopback, anyPort: true });
      // Plain http is only ever the local twin's loopback; a page must be https like any other target.
      if (t.protocol !== 'https:') return 'pages are read over https only';
      return opts.refuseConnection?.(t.address) ?? t;
    } catch (e) {
      if (e instanceof ValidationError) return e.message.replace('webhook_url', 'page URL');
      throw e;
    }
  };

  const robotsOf = (t: ValidatedTarget, origin: string) => {
    let r = robots.get(origin);
    if (!r) {
      r = transport(t, '/robots.txt', limits).then(
        (a) => (a.status >= 200 && a.status < 300 ? robotsParser(`${origin}/robots.txt`, a.body) : null),
        () => null,
      );
      robots.set(origin, r);
    }
    return r;
  };

  return {
    async read(url: string, options: ReadOptions = {}): Promise<PageResult> {
      const until = options.timeoutMs === undefined ? Infinity : Date.now() + options.timeoutMs;
      const late = (): PageResult => ({ ok: false, url, reason: 'timeout', detail: `no answer within the ${options.timeoutMs} ms this read was given` });
      const t = await target(url);
      if (typeof t === 'string') return { ok: false, url, reason: 'not_allowed', detail: t };
      const parsed = new URL(t.url);
      // robots.txt is fetched under the reader's own cap (its answer is kept for the site), but this read waits for it only until its deadline.
      const rules = await beforeDeadline(robotsOf(t, parsed.origin), until);
      if (rules === LATE) return late();
      if (rules && rules.isAllowed(t.url, ROBOTS_AGENT) === false) return { ok: false, url, reason: 'robots', detail: 'robots.txt disallows this page' };
      const left = until - Date.now();
      if (left <= 0) return late();
      try {
        const a = await transport(t, `${parsed.pathname}${parsed.search}`, left < limits.timeoutMs ? { ...limits, timeoutMs: left } : limits);
        if (a.status < 200 || a.status >= 300) return { ok: false, url, reason: 'http_error', detail: `HTTP ${a.status}` };
        return { ok: true, page: { url: t.url, status: a.status, contentType: a.contentType, body: a.body } };
      } catch (e) {
        if (e instanceof FetchRefused) return { ok: false, url, reason: e.reason, detail: e.message };
        throw e;
      }
    },
  };
}
