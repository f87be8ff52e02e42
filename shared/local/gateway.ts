import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { findRoute, type RouteDef } from '../catalog/routes.js';
import { TokenBuckets } from './token-bucket.js';
import { lambdaContext } from './event-source-runner.js';
import type { Handler } from '../http/handler.js';
import { logger } from '../core/logger.js';

/**
 * Plays API Gateway (REST) and the Lambda service locally: serves the route table exactly as the stack
 * does — unknown paths and missing trailing slashes answer 403 "Missing Authentication Token", API-key
 * routes without `x-api-key` answer 403 "Forbidden", per-key per-method token buckets answer 429 "Too Many
 * Requests" — and invokes the same handler modules with API Gateway proxy events. Every response carries
 * `X-Request-Id`. The gateway never reads a key record: the handler reads it anyway (it names the
 * account), so its check is the one that answers 403 for an unknown or revoked key, and the gateway
 * keys its throttle buckets by a hash of the presented key.
 */
export type ExtraRoute = (req: IncomingMessage, body: string, url: URL) => Promise<{ status: number; body: unknown } | null>;

export interface GatewayOptions {
  port: number;
  root: string;
  adminToken: string;
  /** Scales every throttle (1 = the contract's numbers). */
  throttleMultiplier?: number;
  /** Local-only endpoints (healthz, dev controls) tried before the route table. */
  extra?: ExtraRoute;
}

const MAX_BODY = 10 * 1024 * 1024; // API Gateway's payload limit

const handlers = new Map<string, Promise<Handler>>();
export function loadHandler(root: string, module: string): Promise<Handler> {
  let h = handlers.get(module);
  if (!h) {
    h = import(pathToFileURL(resolve(root, module)).href).then((m: { handler: Handler }) => m.handler);
    handlers.set(module, h);
  }
  return h;
}

/** Constant-time comparison of two secrets of any length. */
export function sameSecret(a: string, b: string): boolean {
  const x = createHash('sha256').update(a).digest();
  const y = createHash('sha256').update(b).digest();
  return timingSafeEqual(x, y);
}

function write(res: ServerResponse, requestId: string, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers, 'x-request-id': requestId });
  res.end(body);
}

function toEvent(req: IncomingMessage, url: URL, route: RouteDef, params: Record<string, string>, body: string, requestId: string, apiKey: string | undefined): APIGatewayProxyEvent {
  const headers: Record<string, string> = {};
  const multiValueHeaders: Record<string, string[]> = {};
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const k = req.rawHeaders[i]!;
    const v = req.rawHeaders[i + 1]!;
    headers[k] = v;
    (multiValueHeaders[k] ??= []).push(v);
  }
  const query: Record<string, string> = {};
  const multiQuery: Record<string, string[]> = {};
  for (const [k, v] of url.searchParams) {
    query[k] = v;
    (multiQuery[k] ??= []).push(v);
  }
  const hasQuery = url.searchParams.size > 0;
  return {
    resource: route.path,
    path: url.pathname,
    httpMethod: route.method,
    headers,
    multiValueHeaders,
    queryStringParameters: hasQuery ? query : null,
    multiValueQueryStringParameters: hasQuery ? multiQuery : null,
    pathParameters: Object.keys(params).length ? params : null,
    stageVariables: null,
    body: body === '' ? null : body,
    isBase64Encoded: false,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      authorizer: null,
      protocol: 'HTTP/1.1',
      httpMethod: route.method,
      path: url.pathname,
      stage: 'local',
      requestId,
      requestTimeEpoch: Date.now(),
      resourceId: 'local',
      resourcePath: route.path,
      identity: {
        accessKey: null,
        accountId: null,
        apiKey: apiKey ?? null,
        apiKeyId: null,
        caller: null,
        clientCert: null,
        cognitoAuthenticationProvider: null,
        cognitoAuthenticationType: null,
        cognitoIdentityId: null,
        cognitoIdentityPoolId: null,
        principalOrgId: null,
        sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
        user: null,
        userAgent: req.headers['user-agent'] ?? null,
        userArn: null,
      },
    },
  };
}

export async function startGateway(opts: GatewayOptions): Promise<{ server: Server; port: number; stop(): Promise<void> }> {
  const buckets = new TokenBuckets();

  const server = createServer(async (req, res) => {
    const requestId = randomUUID();
    try {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const c of req) {
        size += (c as Buffer).length;
        if (size > MAX_BODY) return write(res, requestId, 413, JSON.stringify({ message: 'Request Too Long' }));
        chunks.push(c as Buffer);
      }
      const body = Buffer.concat(chunks).toString('utf8');

      const extra = await opts.extra?.(req, body, url);
      if (extra) return write(res, requestId, extra.status, JSON.stringify(extra.body));

      const match = findRoute(req.method ?? 'GET', url.pathname);
      if (!match) return write(res, requestId, 403, JSON.stringify({ message: 'Missing Authentication Token' }));
      const { route, params } = match;

      const rawKey = req.headers['x-api-key'] as string | undefined;
      if (route.auth === 'admin') {
        const token = req.headers['x-admin-token'];
        if (typeof token !== 'string' || !sameSecret(token, opts.adminToken)) return write(res, requestId, 403, JSON.stringify({ message: 'Forbidden' }));
      } else if (route.auth === 'api_key' && !rawKey) {
        return write(res, requestId, 403, JSON.stringify({ message: 'Forbidden' }));
      }

      if (route.throttle) {
        const keyed = rawKey && (route.auth === 'api_key' || route.auth === 'handler_key');
        const who = keyed ? `key:${createHash('sha256').update(rawKey).digest('base64url')}` : `ip:${req.socket.remoteAddress}`;
        const m = opts.throttleMultiplier ?? 1;
        if (!buckets.take(`${who} ${route.method} ${route.path}`, route.throttle.perMinute * m, route.throttle.burst * m)) {
          return write(res, requestId, 429, JSON.stringify({ message: 'Too Many Requests' }));
        }
      }

      const handler = await loadHandler(opts.root, route.module);
      const event = toEvent(req, url, route, params, body, requestId, rawKey);
      const out: APIGatewayProxyResult = await handler(event, lambdaContext(route.module));
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(out.headers ?? {})) headers[k.toLowerCase()] = String(v);
      delete headers['x-request-id'];
      res.writeHead(out.statusCode, { ...headers, 'x-request-id': requestId });
      res.end(out.statusCode === 204 ? undefined : out.isBase64Encoded ? Buffer.from(out.body, 'base64') : out.body);
    } catch (e) {
      // Lambda itself failed (not a handled error): API Gateway answers 502 for a broken integration.
      logger.error('local gateway: handler crashed', { error: e as Error });
      if (!res.headersSent) write(res, requestId, 502, JSON.stringify({ message: 'Internal server error' }));
    }
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((r) => server.listen(opts.port, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    server,
    port,
    stop: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
