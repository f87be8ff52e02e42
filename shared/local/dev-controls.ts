import type { IncomingMessage } from 'node:http';
import { writeFileSync } from 'node:fs';
import * as z from 'zod';
import { errorEnvelope, zodDetails } from '../http/handler.js';
import { ValidationError, type ErrorDetail } from '../core/errors.js';
import { advanceServiceClock, serviceClockOffset } from '../core/clock.js';
import { sameSecret, type ExtraRoute } from './gateway.js';
import type { SchedulerEmulator } from './scheduler-emulator.js';
import type { CapturedSend } from './ses-capture.js';
import type { InboundDelivery } from './dev-inbound.js';
import { runAsFunction } from './function-context.js';
import type { MetricsLog } from './metrics-log.js';
import { METRICS_NAMESPACE_ENV } from '../core/metrics.js';

/**
 * Local-only endpoints (absent in AWS): readiness and the dev controls of docs/decisions.md#dev-controls, behind the
 * admin token.
 */
const DEV = '/api/console/v1/dev/';
/** The console's metrics: local-only, like the dev controls. */
export const METRICS_PATH = '/api/console/v1/metrics/';

const ClockBody = z.strictObject({ advance_seconds: z.number().positive().max(10 * 365 * 86400) });

function tokenOk(req: IncomingMessage, adminToken: string): boolean {
  const t = req.headers['x-admin-token'];
  return typeof t === 'string' && sameSecret(t, adminToken);
}

function invalid(message: string, details?: ErrorDetail[]) {
  return { status: 400, body: errorEnvelope(new ValidationError(message, details)) };
}

function parseJson(body: string): { ok: true; value: unknown } | { ok: false } {
  if (body === '') return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(body) };
  } catch {
    return { ok: false };
  }
}

/**
 * One run of the sweeper, as its own function (its grants only): its modules load at the first run, since the
 * sweeper loads most of the service's (every record kind). The stack's schedule and the dev routes use it.
 */
export const sweepAsSweeper = () => runAsFunction('sweeper', async () => (await import('../workers/sweep.js')).sweepHandler());

/** What the dev routes need of the running stack (stack.ts's LocalStack has it), passed in by the stack that serves them. */
export interface DevControlledStack {
  isReady(): boolean;
  settle(timeoutMs?: number): Promise<boolean>;
  scheduler: Pick<SchedulerEmulator, 'fireDue'>;
  sentMail: CapturedSend[];
}

// What the dev routes run (the sweeper, the mailbox reader, SES events) loads on first use, not at start-up.
export function devControls(opts: { stack: DevControlledStack; clockFile: string | null; adminToken: string; inbound: InboundDelivery; metricsLog?: MetricsLog }): ExtraRoute {
  return async (req, body, url) => {
    if (url.pathname === '/healthz' && req.method === 'GET') {
      return opts.stack.isReady() ? { status: 200, body: { status: 'ok' } } : { status: 503, body: { status: 'starting' } };
    }
    // The twin's view of its metrics (metrics-log.ts): the sums of the functions' EMF lines over the last hour and
    // day. In AWS there is no such route: the stage's CloudWatch dashboard is that view (docs/operating.md).
    if (url.pathname === METRICS_PATH && opts.metricsLog) {
      if (req.method !== 'GET') return { status: 403, body: { message: 'Missing Authentication Token' } };
      if (!tokenOk(req, opts.adminToken)) return { status: 403, body: { message: 'Forbidden' } };
      return { status: 200, body: await opts.metricsLog.report(process.env[METRICS_NAMESPACE_ENV] ?? '') };
    }
    // Until every component is up (first run: the directory import), the public API is not served, so no
    // lookup can answer — and charge for — a "no match" that is only a not-yet-imported person.
    if (url.pathname.startsWith('/api/public/') && !opts.stack.isReady()) return { status: 503, body: { message: 'Service Unavailable' } };
    if (!url.pathname.startsWith(DEV)) return null;
    const action = `${req.method} ${url.pathname.slice(DEV.length)}`;
    const known = ['POST clock/', 'POST settle/', 'GET mailbox/', 'POST inbound/', 'POST ses-events/'];
    if (!known.includes(action)) return { status: 403, body: { message: 'Missing Authentication Token' } };
    if (!tokenOk(req, opts.adminToken)) return { status: 403, body: { message: 'Forbidden' } };
    const parsed = parseJson(body);
    if (!parsed.ok) return invalid('Request body is not valid JSON.');

    switch (action) {
      case 'POST clock/': {
        const r = ClockBody.safeParse(parsed.value);
        if (!r.success) return invalid('Invalid request body.', zodDetails(r.error));
        const now = advanceServiceClock(r.data.advance_seconds);
        if (opts.clockFile) writeFileSync(opts.clockFile, JSON.stringify({ offsetMs: serviceClockOffset() }));
        await opts.stack.scheduler.fireDue();
        // What fell due includes overdue steps on the due index, which the sweeper re-drives or ends.
        await sweepAsSweeper();
        await (await import('./dev-inbound.js')).pollMailboxesLocally();
        return { status: 200, body: { now: now.toISOString() } };
      }
      case 'POST settle/': {
        await sweepAsSweeper();
        await (await import('./dev-inbound.js')).pollMailboxesLocally();
        const idle = await opts.stack.settle(Number(process.env.SETTLE_TIMEOUT_MS ?? 30_000));
        return idle ? { status: 200, body: { idle: true } } : { status: 504, body: { idle: false } };
      }
      case 'GET mailbox/':
        return { status: 200, body: { messages: await (await import('./mailbox.js')).localMailbox(opts.stack.sentMail) } };
      case 'POST inbound/':
        return opts.inbound(parsed.value);
      case 'POST ses-events/':
        return (await import('./dev-ses-events.js')).injectSesEvent(parsed.value);
      default:
        return null;
    }
  };
}
