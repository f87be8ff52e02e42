/**
 * One webhook delivery attempt, and the retry schedule (docs/decisions.md#webhook-retries).
 *
 * The connection goes to the address `validateWebhookUrl` checked: a custom `lookup` hands the socket
 * that address, so DNS is never asked again, while the host name still drives the Host header and
 * TLS SNI (certificate checks stay on). No redirect is followed, no connection is pooled.
 */
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { ValidatedTarget } from '../adapters/web-target.js';
import { classifyDeliveryError, classifyStatus, DeliveryTimeoutError, type DeliveryErrorClass } from './delivery-errors.js';

export interface DeliveryResult {
  ok: boolean;
  status: number | null;
  /** Why the attempt failed, as a class (delivery-errors.ts), never the socket's message; null when ok. */
  error: DeliveryErrorClass | null;
  durationMs: number;
}

export interface DeliverWebhookOptions {
  target: ValidatedTarget;
  headers: Record<string, string>;
  body: string;
  /** Whole attempt, connect to end of response; default 15 s. */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 15_000;
const MAX_RESPONSE_BYTES = 64 * 1024;

/** Retry n (1-based) waits `WEBHOOK_RETRY_DELAYS_SECONDS[n - 1]` after the failed attempt n. */
export const WEBHOOK_RETRY_DELAYS_SECONDS: readonly number[] = Object.freeze([5, 300, 1800, 7200, 18000, 36000, 36000]);

/** Attempts in all: the first one plus one per retry delay. */
export const WEBHOOK_MAX_ATTEMPTS = WEBHOOK_RETRY_DELAYS_SECONDS.length + 1;

/**
 * Delay before the next attempt after `attemptsSoFar` failed attempts, or null when the delivery
 * should be marked failed (after the 8th attempt).
 */
export function nextRetryDelaySeconds(attemptsSoFar: number): number | null {
  if (!Number.isInteger(attemptsSoFar) || attemptsSoFar < 1) {
    throw new RangeError(`attemptsSoFar must be a positive integer, got ${attemptsSoFar}`);
  }
  return WEBHOOK_RETRY_DELAYS_SECONDS[attemptsSoFar - 1] ?? null;
}

function pinnedLookup(address: string, family: 4 | 6): LookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    // Node asks for all addresses when it races address families (autoSelectFamily), else for one.
    if (options?.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  }) as unknown as LookupFunction;
}

/** POSTs `body` to the target. Never throws: every failure is a result with `ok: false`. */
export function deliverWebhook(opts: DeliverWebhookOptions): Promise<DeliveryResult> {
  const { target, body } = opts;
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const started = performance.now();

  return new Promise<DeliveryResult>((resolve) => {
    let settled = false;
    let status: number | null = null;
    let req: http.ClientRequest | undefined;

    // Once the status line is in, the status decides the outcome (a slow or broken body no longer does);
    // before it, the failure's class does.
    const finish = (failure: unknown): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const error = status !== null ? classifyStatus(status) : (classifyDeliveryError({ error: failure }) ?? 'other');
      resolve({ ok: error === null, status, error, durationMs: Math.round(performance.now() - started) });
      req?.destroy();
    };

    const timer = setTimeout(() => finish(new DeliveryTimeoutError()), timeoutMs);

    try {
      const url = new URL(target.url);
      const isIpLiteral = target.hostname.includes(':') || /^\d+\.\d+\.\d+\.\d+$/.test(target.hostname);
      const requestOptions: https.RequestOptions = {
        method: 'POST',
        protocol: target.protocol,
        host: target.hostname,
        port: target.port,
        path: `${url.pathname}${url.search}`,
        family: target.family,
        lookup: pinnedLookup(target.address, target.family),
        agent: false,
        headers: {
          ...opts.headers,
          'content-length': String(Buffer.byteLength(body)),
          connection: 'close',
        },
      };
      if (target.protocol === 'https:' && !isIpLiteral) requestOptions.servername = target.hostname;

      const send = target.protocol === 'https:' ? https.request : http.request;
      req = send(requestOptions, (res) => {
        status = res.statusCode ?? null;
        let received = 0;
        res.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (received >= MAX_RESPONSE_BYTES) finish(null);
        });
        res.on('end', () => finish(null));
        res.on('error', () => finish(null));
        res.on('aborted', () => finish(null));
      });
      req.on('error', (err: Error) => finish(err));
      req.end(body);
    } catch (err) {
      finish(err);
    }
  });
}
