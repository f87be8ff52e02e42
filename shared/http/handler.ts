import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { z } from 'zod';
import { AppError, GatewayError, PermissionDeniedError, UnauthorizedError, ValidationError } from '../core/errors.js';
import { findApiKey, getAccount } from '../accounts/accounts.repository.js';
import type { Account } from '../accounts/model.js';
import { logger } from '../core/logger.js';
import { recordRejectedCall } from '../accounts/ledger.repository.js';

/**
 * The primary-adapter shell every HTTP handler uses: parse JSON, validate with zod, resolve the caller,
 * run one use case, map the result. One error middleware (last in the chain) turns domain errors into
 * SPEC.md's envelope and anything unexpected into a generic 500.
 */
export interface HttpResult {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
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

export interface CallerContext<B> extends RequestContext<B> {
  account: Account;
  keyId: string;
}

export type Handler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

function lowerHeaders(event: APIGatewayProxyEvent): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(event.headers ?? {})) if (v !== undefined) out[k.toLowerCase()] = v;
  return out;
}

export function zodDetails(error: z.ZodError): { path: string; message: string }[] {
  return error.issues.map((i) => ({ path: i.path.join('.') || '(body)', message: i.message }));
}

export function parseWith<S extends z.ZodType>(schema: S, value: unknown, what = 'request body'): z.output<S> {
  const r = schema.safeParse(value);
  if (!r.success) throw new ValidationError(`Invalid ${what}.`, zodDetails(r.error));
  return r.data;
}

function parseJsonBody(event: APIGatewayProxyEvent): unknown {
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

/** SPEC.md's error envelope (DESIGN.md §3): `{"error": {"code", "message", "details"?}}`. */
export function errorEnvelope(err: AppError): { error: Record<string, unknown> } {
  const error: Record<string, unknown> = { code: err.code, message: err.message };
  if (err.details?.length) error.details = err.details;
  return { error };
}

export function errorResponse(err: unknown, requestId: string): APIGatewayProxyResult {
  if (err instanceof GatewayError) return json(err.statusCode, { message: err.gatewayMessage }, requestId);
  if (err instanceof AppError) return json(err.statusCode, errorEnvelope(err), requestId);
  logger.error('unhandled error', { requestId, error: err as Error });
  return json(500, { error: { code: 'internal_error', message: 'Internal error.' } }, requestId);
}

function wrap(fn: (event: APIGatewayProxyEvent) => Promise<HttpResult>): Handler {
  return middy<APIGatewayProxyEvent, APIGatewayProxyResult>()
    .use({
      onError: async (request) => {
        request.response = errorResponse(request.error, requestIdOf(request.event));
      },
    })
    .handler(async (event) => {
      // API Gateway routes `/a/b` to the `/a/b/` method too; SPEC.md registers only the trailing-slash form.
      if (event.path && !event.path.endsWith('/')) throw new GatewayError(403, 'Missing Authentication Token');
      const r = await fn(event);
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
    }) as unknown as Handler;
}

function baseContext<S extends z.ZodType | undefined>(event: APIGatewayProxyEvent, schema: S): RequestContext<S extends z.ZodType ? z.output<S> : undefined> {
  const raw = parseJsonBody(event);
  const body = schema ? parseWith(schema, raw ?? {}) : undefined;
  return {
    event,
    requestId: requestIdOf(event),
    params: (event.pathParameters ?? {}) as Record<string, string>,
    query: (event.queryStringParameters ?? {}) as Record<string, string>,
    headers: lowerHeaders(event),
    body: body as S extends z.ZodType ? z.output<S> : undefined,
  };
}

/**
 * Resolve the caller from `x-api-key`. With `edge` (API-key routes) an unusable key is the gateway's
 * 403 `{"message":"Forbidden"}`; otherwise (test-email routes) it is 401 `unauthorized`.
 */
export async function resolveCaller(headers: Record<string, string>, mode: 'edge' | 'handler'): Promise<{ account: Account; keyId: string }> {
  const deny = () => (mode === 'edge' ? new GatewayError(403, 'Forbidden') : new UnauthorizedError());
  const raw = headers['x-api-key'];
  if (!raw) throw deny();
  const key = await findApiKey(raw);
  if (!key || key.revoked_at) throw deny();
  const account = await getAccount(key.account_id);
  if (!account) throw deny();
  if (!account.public_api) throw new PermissionDeniedError();
  return { account, keyId: key.key_id };
}

/**
 * A public API route (API key checked at the edge in AWS and again here to find the account).
 * `paidOperation` names the charge operation of a paid route: a call rejected as invalid (400) leaves a
 * `released` audit record for it.
 */
export function publicRoute<S extends z.ZodType | undefined = undefined>(
  opts: { body?: S; auth?: 'edge' | 'handler'; paidOperation?: string },
  fn: (ctx: CallerContext<S extends z.ZodType ? z.output<S> : undefined>) => Promise<HttpResult>,
): Handler {
  return wrap(async (event) => {
    const headers = lowerHeaders(event);
    const caller = await resolveCaller(headers, opts.auth ?? 'edge');
    try {
      const ctx = baseContext(event, opts.body as S);
      return await fn({ ...ctx, ...caller });
    } catch (e) {
      if (opts.paidOperation && e instanceof ValidationError) await auditRejectedCall(caller.account.id, opts.paidOperation, requestIdOf(event), e);
      throw e;
    }
  });
}

async function auditRejectedCall(accountId: string, operation: string, reference: string, rejection: ValidationError): Promise<void> {
  const reason = [rejection.message, ...(rejection.details ?? []).map((d) => `${d.path}: ${d.message}`)].join(' ');
  // The caller gets its 400 even when the audit write fails; the failure is logged for operators.
  await recordRejectedCall({ accountId, operation, reference, reason }).catch((error: unknown) => logger.error('audit record of a rejected call not written', { operation, error: error as Error }));
}

/** A console route (IAM-authorised in AWS; the local gateway checks the admin token). */
export function consoleRoute<S extends z.ZodType | undefined = undefined>(
  opts: { body?: S },
  fn: (ctx: RequestContext<S extends z.ZodType ? z.output<S> : undefined>) => Promise<HttpResult>,
): Handler {
  return wrap(async (event) => fn(baseContext(event, opts.body as S)));
}

/** A route with no credential at all (tracking pixel, one-click unsubscribe); the body is not parsed. */
export function openRoute(fn: (ctx: RequestContext<undefined>) => Promise<HttpResult>): Handler {
  return wrap(async (event) => fn({ ...baseContext({ ...event, body: null }, undefined), event }));
}

/** Validate query parameters with a zod schema (400 with details). */
export function parseQueryParams<S extends z.ZodType>(schema: S, query: Record<string, string>): z.output<S> {
  return parseWith(schema, query, 'query parameters');
}
