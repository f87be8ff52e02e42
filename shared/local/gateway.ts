import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { ROUTE_LIMITS, SOURCE_RATE_LIMIT_LIST, STAGE_METHOD_CEILING, countsAgainst, findRoute, type RouteDef } from '../catalog/routes.js';
import { API_KEY_AUTHORIZER } from '../catalog/authorizer.js';
import { routeFunctionName } from '../catalog/functions.js';
import { runAsFunction } from './function-context.js';
import { EdgeAuthorizer, type AuthorizerFunction, type EdgeOutcome } from './edge-authorizer.js';
import { SourceWindows, TokenBuckets } from './token-bucket.js';
import { FunctionTimeoutError, lambdaContext, withinTimeout } from './event-source-runner.js';
import type { Handler } from '../http/handler.js';
import { logger } from '../core/logger.js';
import type { UserTokenVerifier } from './user-authorizer.js';

/**
 * Plays API Gateway (REST) and the Lambda service locally: serves the route table exactly as the stack
 * does — unknown paths and missing trailing slashes answer 403 "Missing Authentication Token", API-key
 * routes without `x-api-key` answer 403 "Forbidden", per-key per-method token buckets answer 429 "Too Many
 * Requests" — and invokes the same handler modules with API Gateway proxy events. In front of it all it
 * plays the stage's AWS WAF web ACL: per-source-address limits (SOURCE_RATE_LIMITS), whose 429 is WAF's and
 * so the one answer without `X-Request-Id`. Before an API-key route's handler it runs the stack's API-key
 * authorizer module, its answers cached per presented key for the stack's TTL (edge-authorizer.ts): an
 * unknown or revoked key is refused there with 403 before any throttle of API Gateway's, and the throttle
 * buckets are those of the usage identifier
 * the authorizer returned, as a usage plan's are. A revocation inside the TTL is refused by the handler's
 * own read of the key record.
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
  /** Verifies the web app's ID tokens (`user` routes), as the stack's Cognito authorizer does. */
  userTokens?: UserTokenVerifier;
  /** Static files (the web app) tried before the route table; null when the path is not theirs. */
  site?: (url: URL) => Promise<StaticAnswer | null>;
}

export interface StaticAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer | string;
}

/**
 * Whether API Gateway hands a route's request body to its function base64-encoded: the public and console API
 * (lib/api-stack.ts `Api`) list every media type (`*\/*`) as binary, so any request with a Content-Type has a
 * binary body there ("Binary media types for REST APIs"); the web app's API (`AppApi`, `user` routes) lists none,
 * and passes bodies as text.
 */
export function binaryBodies(route: Pick<RouteDef, 'auth'>): boolean {
  return route.auth !== 'user';
}

/** A proxy event's `body` and `isBase64Encoded` as API Gateway sets them for this request. */
export function proxyBody(binary: boolean, contentType: string | undefined, raw: Buffer): Pick<APIGatewayProxyEvent, 'body' | 'isBase64Encoded'> {
  if (raw.length === 0) return { body: null, isBase64Encoded: false };
  return binary && contentType ? { body: raw.toString('base64'), isBase64Encoded: true } : { body: raw.toString('utf8'), isBase64Encoded: false };
}

/**
 * Lambda refuses a synchronous invocation whose payload, the serialised proxy event, is not smaller than its
 * 6 MB request limit, and API Gateway answers the caller 413 `{"message":"Request Too Long"}`. With the body
 * base64-encoded (4/3 of its size) the largest body that gets through is about 4.5 MB, not API Gateway's 10 MB.
 */
export function lambdaRequestRefusal(event: APIGatewayProxyEvent): { status: number; message: string } | null {
  return Buffer.byteLength(JSON.stringify(event)) >= ROUTE_LIMITS.requestBytes ? { status: 413, message: 'Request Too Long' } : null;
}

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

/** How API Gateway answers each refusal, as the stack's gateway responses configure it (lib/api-stack.ts). */
const REFUSALS: Record<Extract<EdgeOutcome, { allowed: false }>['refusal'], { status: number; message: string | null }> = {
  UNAUTHORIZED: { status: 403, message: 'Forbidden' },
  ACCESS_DENIED: { status: 403, message: 'Forbidden' },
  INVALID_API_KEY: { status: 403, message: 'Forbidden' },
  AUTHORIZER_FAILURE: { status: 500, message: null },
};

const LOCAL_API_ARN = 'arn:aws:execute-api:us-east-1:000000000000:local';

/**
 * What the edge knows of the caller: the API key it counts by, and the authorizer's answer (a Lambda
 * authorizer's principal and context, or a Cognito authorizer's `claims`).
 */
interface EdgeIdentity {
  apiKey: string | null;
  authorizer: Record<string, unknown> | null;
}

function toEvent(req: IncomingMessage, url: URL, route: RouteDef, params: Record<string, string>, raw: Buffer, requestId: string, edge: EdgeIdentity): APIGatewayProxyEvent {
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
    ...proxyBody(binaryBodies(route), req.headers['content-type'], raw),
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      authorizer: edge.authorizer as APIGatewayProxyEvent['requestContext']['authorizer'],
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
        apiKey: edge.apiKey,
        apiKeyId: null,
        caller: null,
        clientCert: null,
        cognitoAuthenticationProvider: null,
        cognitoAuthenticationType: null,
        cognitoIdentityId: null,
        cognitoIdentityPoolId: null,
        principalOrgId: null,
        sourceIp: sourceAddress(req) || '127.0.0.1',
        user: null,
        userAgent: req.headers['user-agent'] ?? null,
        userArn: null,
      },
    },
  };
}

/**
 * The client's address as AWS WAF and API Gateway take it: the connection's peer. `X-Forwarded-For` is whatever
 * the client wrote, and no trusted proxy stands in front of the twin (nor of the regional stage).
 */
export function sourceAddress(req: IncomingMessage): string {
  return (req.socket.remoteAddress ?? '').replace(/^::ffff:/, '');
}

/** A REQUEST authorizer's event: the request as the handler will see it, without its body. */
function toAuthorizerEvent(proxy: APIGatewayProxyEvent, methodArn: string): APIGatewayRequestAuthorizerEvent {
  const { resource, path, httpMethod, headers, multiValueHeaders, pathParameters, queryStringParameters, multiValueQueryStringParameters, stageVariables, requestContext } = proxy;
  return {
    type: 'REQUEST',
    methodArn,
    resource,
    path,
    httpMethod,
    headers,
    multiValueHeaders,
    pathParameters,
    queryStringParameters,
    multiValueQueryStringParameters,
    stageVariables,
    requestContext: { ...requestContext, authorizer: undefined },
  };
}

/** The authorizer's identity source, `method.request.header.x-api-key`: one value, or none when absent or empty. */
function identitySource(req: IncomingMessage): string | undefined {
  const value = req.headers[API_KEY_AUTHORIZER.identityHeader];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * A route's invocation within the limits AWS sets: the function's own timeout (Lambda ends it, and API
 * Gateway answers 502), API Gateway's integration timeout (504), and Lambda's 6 MB response payload (502).
 */
export async function invokeRoute(route: RouteDef, run: () => Promise<APIGatewayProxyResult>): Promise<APIGatewayProxyResult | { refused: { status: number; message: string } }> {
  const functionSeconds = route.timeoutSeconds ?? ROUTE_LIMITS.defaultTimeoutSeconds;
  const seconds = Math.min(functionSeconds, ROUTE_LIMITS.integrationTimeoutSeconds);
  let out: APIGatewayProxyResult;
  try {
    out = await withinTimeout(seconds * 1000, run);
  } catch (e) {
    if (!(e instanceof FunctionTimeoutError)) throw e;
    logger.error('local gateway: route timed out', { route: `${route.method} ${route.path}`, error: e });
    return { refused: functionSeconds > ROUTE_LIMITS.integrationTimeoutSeconds ? { status: 504, message: 'Endpoint request timed out' } : { status: 502, message: 'Internal server error' } };
  }
  const bytes = Buffer.byteLength(JSON.stringify(out));
  if (bytes > ROUTE_LIMITS.responseBytes) {
    logger.error('local gateway: response over Lambda\'s payload limit', { route: `${route.method} ${route.path}`, bytes, limit: ROUTE_LIMITS.responseBytes });
    return { refused: { status: 502, message: 'Internal server error' } };
  }
  return out;
}

export async function startGateway(opts: GatewayOptions): Promise<{ server: Server; port: number; stop(): Promise<void> }> {
  const buckets = new TokenBuckets();
  const sourceWindows = new SourceWindows();
  const m = opts.throttleMultiplier ?? 1;
  const edgeAuthorizer = new EdgeAuthorizer(
    async () => {
      const authorizer = (await loadHandler(opts.root, API_KEY_AUTHORIZER.module)) as unknown as AuthorizerFunction;
      return (event) => runAsFunction('api-key-authorizer', () => authorizer(event));
    },
    API_KEY_AUTHORIZER.resultTtlSeconds,
  );

  const server = createServer(async (req, res) => {
    const requestId = randomUUID();
    try {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const c of req) {
        size += (c as Buffer).length;
        if (size > ROUTE_LIMITS.payloadBytes) return write(res, requestId, 413, JSON.stringify({ message: 'Request Too Long' }));
        chunks.push(c as Buffer);
      }
      const raw = Buffer.concat(chunks);
      const body = raw.toString('utf8');

      const extra = await opts.extra?.(req, body, url);
      if (extra) return write(res, requestId, extra.status, JSON.stringify(extra.body));
      const file = req.method === 'GET' || req.method === 'HEAD' ? await opts.site?.(url) : null;
      if (file) {
        res.writeHead(file.status, { ...file.headers, 'x-request-id': requestId });
        res.end(req.method === 'HEAD' ? undefined : file.body);
        return;
      }

      // The stage's web ACL (lib/constructs/source-rate-limits.ts): per source address, before the route is
      // matched and before any authorizer or stage throttle. WAF's own answer carries no X-Request-Id.
      const source = sourceAddress(req);
      for (const limit of SOURCE_RATE_LIMIT_LIST) {
        if (!countsAgainst(limit, req.method ?? 'GET', url.pathname)) continue;
        if (!sourceWindows.hit(`${limit.name} ${source}`, limit.limit * m, limit.windowSeconds)) {
          res.writeHead(429, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ message: 'Too Many Requests' }));
          return;
        }
      }

      const match = findRoute(req.method ?? 'GET', url.pathname);
      if (!match) return write(res, requestId, 403, JSON.stringify({ message: 'Missing Authentication Token' }));
      const { route, params } = match;

      if (route.auth === 'admin') {
        const token = req.headers['x-admin-token'];
        if (typeof token !== 'string' || !sameSecret(token, opts.adminToken)) return write(res, requestId, 403, JSON.stringify({ message: 'Forbidden' }));
      }

      let edge: EdgeIdentity = { apiKey: null, authorizer: null };
      if (route.auth === 'api_key') {
        const methodArn = `${LOCAL_API_ARN}/local/${route.method}${url.pathname}`;
        const outcome = await edgeAuthorizer.authorize(identitySource(req), toAuthorizerEvent(toEvent(req, url, route, params, raw, requestId, edge), methodArn));
        if (!outcome.allowed) {
          const refusal = REFUSALS[outcome.refusal];
          return write(res, requestId, refusal.status, JSON.stringify({ message: refusal.message }));
        }
        edge = { apiKey: outcome.usageIdentifier, authorizer: { ...outcome.context, principalId: outcome.principalId } };
      }
      if (route.auth === 'user') {
        const claims = await opts.userTokens?.claimsOf(req.headers.authorization);
        if (!claims) return write(res, requestId, 401, JSON.stringify({ message: 'Unauthorized' }));
        edge = { apiKey: null, authorizer: { claims } };
      }

      // As API Gateway: a usage plan counts per key (by the authorizer's usage identifier); a stage method
      // setting counts every caller together (`edgeThrottle` of handler_key routes, whose handler then
      // counts per key itself; the throttle of the others), and the stage's default method throttle holds
      // each API-key method for all keys together. Per source address, the web ACL above counted already.
      const tooMany = () => write(res, requestId, 429, JSON.stringify({ message: 'Too Many Requests' }));
      if (route.auth === 'api_key' && !buckets.take(`stage-default ${route.method} ${route.path}`, STAGE_METHOD_CEILING.rateLimit * 60 * m, STAGE_METHOD_CEILING.burstLimit * m)) {
        return tooMany();
      }
      const edgeThrottle = route.auth === 'handler_key' ? route.edgeThrottle : route.throttle;
      if (edgeThrottle) {
        const who = edge.apiKey !== null ? `usage:${edge.apiKey}` : 'stage';
        if (!buckets.take(`${who} ${route.method} ${route.path}`, edgeThrottle.perMinute * m, edgeThrottle.burst * m)) return tooMany();
      }

      const event = toEvent(req, url, route, params, raw, requestId, edge);
      // Lambda refuses the invocation itself when the event is too large: the function never runs.
      const tooLong = lambdaRequestRefusal(event);
      if (tooLong) return write(res, requestId, tooLong.status, JSON.stringify({ message: tooLong.message }));
      const handler = await loadHandler(opts.root, route.module);
      const out = await invokeRoute(route, () => runAsFunction(routeFunctionName(route), () => handler(event, lambdaContext(route.module))));
      if ('refused' in out) return write(res, requestId, out.refused.status, JSON.stringify({ message: out.refused.message }));
      // As API Gateway: `headers` and `multiValueHeaders` merge, the latter's values winning for a name in both
      // (Set-Cookie, one value per cookie, comes this way).
      const headers: Record<string, string | string[]> = {};
      for (const [k, v] of Object.entries(out.headers ?? {})) headers[k.toLowerCase()] = String(v);
      for (const [k, v] of Object.entries(out.multiValueHeaders ?? {})) headers[k.toLowerCase()] = v.map(String);
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
