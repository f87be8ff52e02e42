import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { $ZodIssue, $ZodType, output } from 'zod/v4/core';
import { AppError, ContentionError, GatewayError, NotFoundError, PermissionDeniedError, UnauthorizedError, ValidationError } from '../core/errors.js';
import { getAccount } from '../accounts/accounts.repository.js';
import { hashApiKey } from '../core/api-key-values.js';
import { readCaller, type CallerKey, type Companion } from '../accounts/caller.repository.js';
import { keyUseDue, recordKeyUse } from '../accounts/key-use.repository.js';
import { logger } from '../core/logger.js';
import { flushMetrics } from '../core/metrics.js';
import { LruMap } from '../core/lru-map.js';
import { pathIdsWellFormed } from './path-ids.js';
import { recordRejectedCall } from '../accounts/ledger.repository.js';
import { addKeyDebt, takeKeyToken } from '../accounts/key-throttle.repository.js';
import type { RouteDef } from '../catalog/routes.js';
import { APP_LIMITS, appLimitOf, appTokensOf, readDebtOf } from '../catalog/app-limits.js';
import { isLocalMode } from '../core/env.js';
import { USER_POOL } from '../catalog/user-pool.js';

/**
 * The primary-adapter shell every HTTP handler uses: parse JSON, validate with zod, resolve the caller,
 * run one use case, map the result. One error middleware (last in the chain) turns domain errors into
 * docs/decisions.md's envelope and anything unexpected into a generic 500.
 */
export interface HttpResult {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /**
   * `Set-Cookie` values. A REST API proxy integration takes repeated headers from `multiValueHeaders` (merged
   * with `headers`), so each cookie is its own value there.
   */
  cookies?: string[];
  /** A non-JSON answer (the tracking pixel, the unsubscribe page). */
  raw?: { contentType: string; body: Buffer | string };
}

export interface RequestContext<B> {
  event: APIGatewayProxyEvent;
  requestId: string;
  params: Record<string, string>;
  query: Record<string, string>;
  headers: Record<string, string>;
  body: B;
}

export interface Caller {
  accountId: string;
  keyId: string;
}

export interface CallerContext<B, T = never> extends RequestContext<B>, Caller {
  /**
   * The route's companion item, read in the same round trip as the key: null when it does not exist,
   * undefined when it could not be read along (the first request of a key whose account this process
   * has not met yet, for a companion keyed by account).
   */
  preloaded?: T | null;
}

export type Handler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

function lowerHeaders(event: APIGatewayProxyEvent): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(event.headers ?? {})) if (v !== undefined) out[k.toLowerCase()] = v;
  return out;
}

/**
 * Every `Cookie` header value of the request. API Gateway (REST, proxy integration) puts the last one in
 * `headers` and all of them in `multiValueHeaders`, keyed as the client spelled the name.
 */
export function requestCookieHeaders(event: APIGatewayProxyEvent): string[] {
  const all = Object.entries(event.multiValueHeaders ?? {}).flatMap(([k, v]) => (k.toLowerCase() === 'cookie' ? (v ?? []) : []));
  if (all.length) return all;
  return Object.entries(event.headers ?? {}).flatMap(([k, v]) => (k.toLowerCase() === 'cookie' && v !== undefined ? [v] : []));
}

export function zodDetails(error: { issues: readonly $ZodIssue[] }): { path: string; message: string }[] {
  return error.issues.map((i) => ({ path: i.path.join('.') || '(body)', message: i.message }));
}

/** What every zod schema, classic or mini, has: the shell calls it and imports none of zod itself. */
type SafeParser<O> = { safeParse(value: unknown): { success: true; data: O } | { success: false; error: { issues: readonly $ZodIssue[] } } };

export function parseWith<S extends $ZodType>(schema: S, value: unknown, what = 'request body'): output<S> {
  const r = (schema as unknown as SafeParser<output<S>>).safeParse(value);
  if (!r.success) throw new ValidationError(`Invalid ${what}.`, zodDetails(r.error));
  return r.data;
}

export function parseJsonBody(event: APIGatewayProxyEvent): unknown {
  if (event.body === null || event.body === undefined || event.body === '') return undefined;
  const raw = event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
  try {
    return JSON.parse(raw);
  } catch {
    throw new ValidationError('Request body is not valid JSON.');
  }
}

function requestIdOf(event: APIGatewayProxyEvent): string {
  return event.requestContext?.requestId ?? crypto.randomUUID();
}

function json(status: number, body: unknown, requestId: string, headers: Record<string, string> = {}): APIGatewayProxyResult {
  return {
    statusCode: status,
    headers: { 'Content-Type': 'application/json', 'X-Request-Id': requestId, ...headers },
    body: body === undefined ? '' : JSON.stringify(body),
  };
}

/** docs/decisions.md's error envelope (docs/decisions.md#decisions-the-contract-leaves-open): `{"error": {"code", "message", "details"?}}`. */
export function errorEnvelope(err: AppError): { error: Record<string, unknown> } {
  const error: Record<string, unknown> = { code: err.code, message: err.message };
  if (err.details?.length) error.details = err.details;
  return { error };
}

const INTERNAL_ERROR = { error: { code: 'internal_error', message: 'Internal error.' } };

/** Exposed domain errors answer with their code and message; anything else is a generic 500. */
export function errorResponse(err: unknown, requestId: string): APIGatewayProxyResult {
  if (err instanceof GatewayError) return json(err.statusCode, { message: err.gatewayMessage }, requestId, err.headers);
  if (err instanceof ContentionError) return json(err.statusCode, errorEnvelope(err), requestId, { 'Retry-After': String(err.retryAfterSeconds) });
  if (err instanceof AppError && err.expose) return json(err.statusCode, errorEnvelope(err), requestId);
  logger.error('unhandled error', { requestId, error: err as Error });
  return json(500, INTERNAL_ERROR, requestId);
}

const idsWellFormed = (event: APIGatewayProxyEvent) => pathIdsWellFormed(event.resource ?? '', event.pathParameters ?? {});

function toProxyResult(r: HttpResult, event: APIGatewayProxyEvent): APIGatewayProxyResult {
  const result = proxyResultOf(r, event);
  return r.cookies?.length ? { ...result, multiValueHeaders: { 'Set-Cookie': r.cookies } } : result;
}

function proxyResultOf(r: HttpResult, event: APIGatewayProxyEvent): APIGatewayProxyResult {
  if (r.raw) {
    const binary = Buffer.isBuffer(r.raw.body);
    return {
      statusCode: r.status,
      headers: { 'Content-Type': r.raw.contentType, 'X-Request-Id': requestIdOf(event), ...r.headers },
      body: binary ? (r.raw.body as Buffer).toString('base64') : (r.raw.body as string),
      isBase64Encoded: binary,
    };
  }
  return json(r.status, r.body, requestIdOf(event), r.headers);
}

// middy is the customer's middleware engine: it answers a 500 just before Lambda's own timeout and resets the
// logger's keys between invocations. Its core loads node:stream/web at each cold start (`npm run bench`).
// What the invocation counted (shared/core/metrics.ts) is published once it has answered, on every path.
function wrap(fn: (event: APIGatewayProxyEvent) => Promise<HttpResult>, onAnswer?: AnswerHook): Handler {
  const handler = wrapped(fn, onAnswer);
  return async (event, context) => {
    try {
      return await handler(event, context);
    } finally {
      await flushMetrics();
    }
  };
}

/** What a route does with its built answer before it is returned (the web app's reads are charged by its size). */
type AnswerHook = (event: APIGatewayProxyEvent, answer: APIGatewayProxyResult) => Promise<void>;

function wrapped(fn: (event: APIGatewayProxyEvent) => Promise<HttpResult>, onAnswer?: AnswerHook): Handler {
  return middy<APIGatewayProxyEvent, APIGatewayProxyResult>()
    .use({
      onError: async (request) => {
        request.response = errorResponse(request.error, requestIdOf(request.event));
      },
    })
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .handler(async (event) => {
      // API Gateway routes `/a/b` to the `/a/b/` method too; docs/decisions.md#conventions registers only the trailing-slash form.
      if (event.path && !event.path.endsWith('/')) throw new GatewayError(403, 'Missing Authentication Token');
      const answer = toProxyResult(await fn(event), event);
      if (onAnswer) await onAnswer(event, answer);
      return answer;
    }) as unknown as Handler;
}

function baseContext<S extends $ZodType | undefined>(event: APIGatewayProxyEvent, schema: S): RequestContext<S extends $ZodType ? output<S> : undefined> {
  const raw = parseJsonBody(event);
  const body = schema ? parseWith(schema, raw ?? {}) : undefined;
  return {
    event,
    requestId: requestIdOf(event),
    params: (event.pathParameters ?? {}) as Record<string, string>,
    query: (event.queryStringParameters ?? {}) as Record<string, string>,
    headers: lowerHeaders(event),
    body: body as S extends $ZodType ? output<S> : undefined,
  };
}

type AuthMode = 'edge' | 'handler';

/** With `edge` (API-key routes) an unusable key is the gateway's 403 `{"message":"Forbidden"}`; otherwise (test-email routes) 401 `unauthorized`. */
const deny = (mode: AuthMode) => (mode === 'edge' ? new GatewayError(403, 'Forbidden') : new UnauthorizedError());

async function authorise(key: CallerKey | null, mode: AuthMode): Promise<Caller> {
  if (!key || key.revoked) throw deny(mode);
  const publicApi = key.publicApi ?? (await getAccount(key.accountId))?.public_api;
  if (publicApi === undefined) throw deny(mode);
  if (!publicApi) throw new PermissionDeniedError();
  return { accountId: key.accountId, keyId: key.keyId };
}

/** The callers this process has met, by key hash (a key never changes account). */
// It holds no secret (hashes only) and nothing that can go stale: a key belongs to one account for its
// whole life, while revocation and flags are read from the key record on every request.
const knownKeys = new LruMap<string, Caller>(10_000);

type Settled<R> = { ok: true; value: R } | { ok: false; error: unknown };
const settle = <R>(run: () => Promise<R>): Promise<Settled<R>> =>
  run().then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
const unwrap = <R>(s: Settled<R>): R => {
  if (!s.ok) throw s.error;
  return s.value;
};

export interface PublicRouteOptions<S, T> {
  body?: S;
  auth?: AuthMode;
  /**
   * The one item this route reads, fetched in the same BatchGetItem as the caller's key record. Given the
   * caller's account when this process already knows which account the presented key belongs to.
   */
  companion?: (params: Record<string, string>, accountId: string | undefined) => Companion<T> | null;
  /**
   * The route only reads, so once the key's account is known it may run alongside the key check; its
   * answer is used only if the key turns out to be valid, unrevoked and of that same account.
   */
  readOnly?: boolean;
  /**
   * The charge operation of a paid route: a call rejected as invalid (400) leaves a `released` audit
   * record for it (docs/decisions.md#decisions-the-contract-leaves-open). One record per rejected request, so the route's throttle bounds them.
   */
  paidOperation?: string;
  /**
   * A check of the caller made before its request is read: a route that does not exist for this account (an
   * enrollment flag) answers its 404 whatever the body, and a call refused here leaves no audit record.
   */
  admit?: (caller: Caller) => Promise<void>;
  /**
   * A `handler_key` route's own row: its `throttle` is applied here per key, after the key is confirmed
   * and before anything else, answering 429 {"message":"Too Many Requests"} as the gateway would.
   */
  perKeyThrottle?: RouteDef;
}

/** The twin's throttle multiplier (`LOCAL_THROTTLE_MULTIPLIER`, set by the local stack); 1 in AWS. */
const throttleMultiplier = () => (isLocalMode() ? Number(process.env.LOCAL_THROTTLE_MULTIPLIER ?? 1) || 1 : 1);

async function throttlePerKey(keyHash: string, route: RouteDef): Promise<void> {
  if (!route.throttle) return;
  const verdict = await takeKeyToken(keyHash, route.keyThrottleBucket ?? `${route.method} ${route.path}`, route.throttle, throttleMultiplier());
  if (!verdict.allowed) throw new GatewayError(429, 'Too Many Requests', { 'Retry-After': String(verdict.retryAfterSeconds) });
}

/**
 * A public API route. The API-key authorizer checks the key at the edge (in AWS and on the local gateway)
 * and its answer is cached for minutes; the key record read here confirms it on every request and names the
 * account. That read is strongly consistent, so a key revoked while the edge still holds its Allow is
 * refused at the very next request; what is remembered across requests is only which account a key hash
 * belongs to, which never changes.
 */
export function publicRoute<S extends $ZodType | undefined = undefined, T = never>(
  opts: PublicRouteOptions<S, T>,
  fn: (ctx: CallerContext<S extends $ZodType ? output<S> : undefined, T>) => Promise<HttpResult>,
): Handler {
  const mode = opts.auth ?? 'edge';
  return wrap(async (event) => {
    const raw = lowerHeaders(event)['x-api-key'];
    if (!raw) throw deny(mode);
    const keyHash = hashApiKey(raw);
    const known = knownKeys.get(keyHash);
    const params = (event.pathParameters ?? {}) as Record<string, string>;
    // A malformed id is a 404 for an authorised caller (as API Gateway would refuse the key first); the
    // key record is the only thing read for it.
    const wellFormed = idsWellFormed(event);
    const companion = wellFormed ? (opts.companion?.(params, known?.accountId) ?? null) : null;
    const run = (caller: Caller, preloaded: T | null | undefined) => fn({ ...baseContext(event, opts.body as S), ...caller, ...(preloaded === undefined ? {} : { preloaded }) });
    const ahead = wellFormed && opts.readOnly && known ? settle(() => run(known, undefined)) : null;
    const { key, item } = await readCaller(keyHash, companion);
    const caller = await authorise(key, mode);
    knownKeys.set(keyHash, caller);
    // Beside the request rather than before it, and awaited before the answer leaves the function.
    const now = new Date();
    const keyUse = keyUseDue(key!.lastUsedAt, now) ? recordKeyUse(keyHash, caller, now) : null;
    try {
      if (opts.perKeyThrottle) await throttlePerKey(keyHash, opts.perKeyThrottle);
      if (!wellFormed) throw new NotFoundError();
      if (opts.admit) await opts.admit(caller);
      const sameAccount = known === undefined || known.accountId === caller.accountId;
      if (ahead && sameAccount) return unwrap(await ahead);
      try {
        return await run(caller, companion && sameAccount ? item : undefined);
      } catch (e) {
        if (opts.paidOperation && e instanceof ValidationError) await auditRejectedCall(caller.accountId, opts.paidOperation, requestIdOf(event), e);
        throw e;
      }
    } finally {
      await keyUse;
    }
  });
}

async function auditRejectedCall(accountId: string, operation: string, reference: string, rejection: ValidationError): Promise<void> {
  const reason = [rejection.message, ...(rejection.details ?? []).map((d) => `${d.path}: ${d.message}`)].join(' ');
  // The caller gets its 400 even when the audit write fails; the failure is logged for operators.
  await recordRejectedCall({ accountId, operation, reference, reason }).catch((error: unknown) => logger.error('audit record of a rejected call not written', { operation, error: error as Error }));
}

/** A console route (IAM-authorised in AWS; the local gateway checks the admin token). */
export function consoleRoute<S extends $ZodType | undefined = undefined, Q extends $ZodType | undefined = undefined>(
  opts: { body?: S; query?: Q },
  fn: (ctx: RequestContext<S extends $ZodType ? output<S> : undefined> & { queryParams: Q extends $ZodType ? output<Q> : Record<string, string> }) => Promise<HttpResult>,
): Handler {
  return wrap(async (event) => {
    if (!idsWellFormed(event)) throw new NotFoundError();
    const base = baseContext(event, opts.body as S);
    const queryParams = opts.query ? parseQueryParams(opts.query, base.query) : base.query;
    return fn({ ...base, queryParams: queryParams as Q extends $ZodType ? output<Q> : Record<string, string> });
  });
}

export interface UserContext<B, Q> extends RequestContext<B> {
  /** The signed-in user's account: the ID token's `custom:account_id`, never a path or body id. */
  accountId: string;
  /** The Cognito user (`sub`). */
  userSub: string;
  /** The query parameters, validated by the route's `query` schema (400 with details). */
  queryParams: Q;
}

/**
 * A web-app route (`auth: 'user'`). The gateway has verified the Cognito ID token (a Cognito user-pool
 * authorizer in AWS, the pool's JWKS locally) and hands over its claims in `requestContext.authorizer.claims`;
 * a request without them is refused as the authorizer would (401 {"message":"Unauthorized"}). Every object the
 * handler reads is looked up under `accountId`, so another account's id is a 404.
 */
type UserRouteOptions<S, Q> = {
  body?: S;
  query?: Q;
  /** As on a public route: a check of the caller made before the body is read (an enrollment flag's 404). */
  admit?: (accountId: string) => Promise<void>;
};
type UserRouteFn<S extends $ZodType | undefined, Q extends $ZodType | undefined> = (
  ctx: UserContext<S extends $ZodType ? output<S> : undefined, Q extends $ZodType ? output<Q> : Record<string, string>>,
) => Promise<HttpResult>;

export function userRoute<S extends $ZodType | undefined = undefined, Q extends $ZodType | undefined = undefined>(opts: UserRouteOptions<S, Q>, fn: UserRouteFn<S, Q>): Handler {
  return userRouteWith(opts, fn, null);
}

/**
 * A web-app route that starts paid work: as a public route with `paidOperation`, a call rejected as invalid
 * (400) leaves a `released` audit record. Its own function, so that the app's read-only routes do not bundle
 * the ledger write (test/infra/grants.test.ts).
 */
export function paidUserRoute<S extends $ZodType | undefined = undefined, Q extends $ZodType | undefined = undefined>(
  paidOperation: string,
  opts: UserRouteOptions<S, Q>,
  fn: UserRouteFn<S, Q>,
): Handler {
  return userRouteWith(opts, fn, (accountId, reference, e) => auditRejectedCall(accountId, paidOperation, reference, e));
}

function userRouteWith<S extends $ZodType | undefined, Q extends $ZodType | undefined>(
  opts: UserRouteOptions<S, Q>,
  fn: UserRouteFn<S, Q>,
  onRejected: ((accountId: string, reference: string, e: ValidationError) => Promise<void>) | null,
): Handler {
  return wrap(async (event) => {
    const claims = (event.requestContext?.authorizer as { claims?: Record<string, unknown> } | null | undefined)?.claims;
    const accountId = claims?.[USER_POOL.accountClaim];
    const userSub = claims?.sub;
    if (typeof accountId !== 'string' || accountId === '' || typeof userSub !== 'string') throw new GatewayError(401, 'Unauthorized');
    await throttleUserAndAccount(event, accountId, userSub);
    if (!idsWellFormed(event)) throw new NotFoundError();
    if (opts.admit) await opts.admit(accountId);
    try {
      const base = baseContext(event, opts.body as S);
      const queryParams = opts.query ? parseQueryParams(opts.query, base.query) : base.query;
      return await fn({ ...base, accountId, userSub, queryParams: queryParams as Q extends $ZodType ? output<Q> : Record<string, string> });
    } catch (e) {
      if (onRejected && e instanceof ValidationError) await onRejected(accountId, requestIdOf(event), e);
      throw e;
    }
  }, chargeAnswerBytes);
}

/**
 * The web app's per-user and per-account limits (APP_LIMITS of the route table), before anything else is read:
 * one token bucket per signed-in user (`sub`) and one per account (`custom:account_id`) for the route's class,
 * counted in DynamoDB like the test emails' per-key bucket, so every tenant has its own budget whatever the
 * others do. The user's first: a user refused at their own limit spends nothing of their colleagues'. Over
 * either, 429 as the gateway answers it.
 */
async function throttleUserAndAccount(event: APIGatewayProxyEvent, accountId: string, userSub: string): Promise<void> {
  const kind = appLimitOf(event.httpMethod, event.resource ?? event.path ?? '');
  const limits = APP_LIMITS[kind];
  const m = throttleMultiplier();
  // What the request costs (a contact check, its contacts); Retry-After says when that many tokens are there.
  const cost = appTokensOf(kind, event.body, event.isBase64Encoded);
  const user = await takeKeyToken(`user:${userSub}`, `app ${kind}`, limits.perUser, m, Date.now(), cost);
  const verdict = user.allowed ? await takeKeyToken(`account:${accountId}`, `app ${kind}`, limits.perAccount, m, Date.now(), cost) : user;
  if (!verdict.allowed) throw new GatewayError(429, 'Too Many Requests', { 'Retry-After': String(verdict.retryAfterSeconds) });
}

/**
 * A web-app read's answer past its first READ_BYTES_PER_TOKEN is charged after it is built: one more token of
 * the user's and of the account's read buckets per READ_BYTES_PER_TOKEN, as a debt that may take them below
 * empty, so their next reads wait until it is paid (a replies page of 5 MB is 80 tokens, not one). A debt that
 * cannot be written is logged and the answer still goes: the request was admitted.
 */
async function chargeAnswerBytes(event: APIGatewayProxyEvent, answer: APIGatewayProxyResult): Promise<void> {
  const kind = appLimitOf(event.httpMethod, event.resource ?? event.path ?? '');
  if (kind !== 'read') return;
  const debt = readDebtOf(Buffer.byteLength(answer.body ?? '', answer.isBase64Encoded ? 'base64' : 'utf8'));
  if (debt === 0) return;
  const claims = (event.requestContext?.authorizer as { claims?: Record<string, unknown> } | null | undefined)?.claims;
  const limits = APP_LIMITS.read;
  const m = throttleMultiplier();
  try {
    await Promise.all([
      addKeyDebt(`user:${String(claims?.sub)}`, 'app read', limits.perUser, debt, m),
      addKeyDebt(`account:${String(claims?.[USER_POOL.accountClaim])}`, 'app read', limits.perAccount, debt, m),
    ]);
  } catch (error) {
    logger.warn('read debt not recorded', { tokens: debt, error: error as Error });
  }
}

/**
 * The caller id a web-app user's jobs carry where an API caller's carry its key id: the per-key limits and
 * Idempotency-Key scopes of the use cases apply per signed-in user.
 */
export const userCallerId = (userSub: string): string => `user_${userSub}`;

/** A route with no credential at all (tracking pixel, one-click unsubscribe); the body is not parsed. */
export function openRoute(fn: (ctx: RequestContext<undefined>) => Promise<HttpResult>): Handler {
  return wrap(async (event) => {
    if (!idsWellFormed(event)) throw new NotFoundError();
    return fn({ ...baseContext({ ...event, body: null }, undefined), event });
  });
}

/** Validate query parameters with a zod schema (400 with details). */
export function parseQueryParams<S extends $ZodType>(schema: S, query: Record<string, string>): output<S> {
  return parseWith(schema, query, 'query parameters');
}
