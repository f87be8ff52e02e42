import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { existsSync, readFileSync, writeFileSync, renameSync } from 'node:fs';
import { GetQueueUrlCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { Clock } from '../core/clock.js';

/**
 * A small emulator of the EventBridge Scheduler API subset the service calls (REST-JSON
 * `POST/PUT/GET/DELETE /schedules/{Name}`), durable in one JSON file, that fires `at()` schedules into
 * their SQS target on the service clock. No stand-in exists for Scheduler, so this plays its part locally
 * while production code keeps using `@aws-sdk/client-scheduler` unchanged.
 */
interface StoredSchedule {
  Name: string;
  GroupName: string;
  ScheduleExpression: string;
  ScheduleExpressionTimezone?: string;
  FlexibleTimeWindow?: unknown;
  ActionAfterCompletion?: string;
  State?: string;
  Target: { Arn: string; RoleArn?: string; Input?: string; RetryPolicy?: RetryPolicy; DeadLetterConfig?: { Arn: string } };
  CreationDate: string;
  LastModificationDate: string;
  fireAt: number;
  /** Failed deliveries so far, and when (service clock) the next one is tried. */
  attempts?: number;
  retryAt?: number;
}

interface RetryPolicy {
  MaximumEventAgeInSeconds?: number;
  MaximumRetryAttempts?: number;
}

/** Scheduler's own defaults when a target names no retry policy. */
const DEFAULT_RETRY: Required<RetryPolicy> = { MaximumEventAgeInSeconds: 86_400, MaximumRetryAttempts: 185 };
/** Backoff between delivery attempts: doubling from the first, capped (service-clock milliseconds). */
const FIRST_RETRY_MS = 1_000;
const MAX_RETRY_MS = 60_000;

const SQS_ARN = /^arn:aws(-[a-z]+)?:sqs:[a-z0-9-]+:\d{12}:[a-zA-Z0-9\-_]+$/;

/** The API's constraints on the fields this emulator acts on, worded as Scheduler's ValidationException. */
function validationError(body: Record<string, unknown>): string | null {
  const target = body.Target as StoredSchedule['Target'] | undefined;
  if (!target || typeof target.Arn !== 'string' || !target.Arn) return "1 validation error detected: Value null at 'target' failed to satisfy constraint: Member must not be null";
  const bound = (path: string, v: unknown, min: number, max: number): string | null => {
    if (v === undefined) return null;
    if (!Number.isInteger(v)) return `1 validation error detected: Value '${String(v)}' at '${path}' failed to satisfy constraint: Member must be an integer`;
    const n = v as number;
    if (n < min) return `1 validation error detected: Value '${n}' at '${path}' failed to satisfy constraint: Member must have value greater than or equal to ${min}`;
    if (n > max) return `1 validation error detected: Value '${n}' at '${path}' failed to satisfy constraint: Member must have value less than or equal to ${max}`;
    return null;
  };
  const retry = target.RetryPolicy;
  if (retry !== undefined) {
    const e =
      bound('target.retryPolicy.maximumEventAgeInSeconds', retry.MaximumEventAgeInSeconds, 60, 86_400) ??
      bound('target.retryPolicy.maximumRetryAttempts', retry.MaximumRetryAttempts, 0, 185);
    if (e) return e;
  }
  const dlq = target.DeadLetterConfig;
  if (dlq !== undefined && (typeof dlq.Arn !== 'string' || dlq.Arn.length > 1600 || !SQS_ARN.test(dlq.Arn))) {
    return `1 validation error detected: Value '${String(dlq.Arn)}' at 'target.deadLetterConfig.arn' failed to satisfy constraint: Member must satisfy regular expression pattern: ${SQS_ARN.source}`;
  }
  return null;
}

export interface SchedulerEmulator {
  server: Server;
  port: number;
  /** Fire every schedule whose time has come; returns how many fired. */
  fireDue(): Promise<number>;
  /** Number of schedules due now (not yet fired). */
  dueCount(): number;
  pending(): StoredSchedule[];
  stop(): Promise<void>;
}

function scheduleArn(group: string, name: string): string {
  return `arn:aws:scheduler:us-east-1:000000000000:schedule/${group}/${name}`;
}

function parseAt(expr: string): number | null {
  const m = /^at\((\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})\)$/.exec(expr);
  return m ? Date.parse(`${m[1]}Z`) : null;
}

function send(res: ServerResponse, status: number, body: unknown, errorType?: string): void {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (errorType) headers['x-amzn-errortype'] = errorType;
  res.writeHead(status, headers);
  res.end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startSchedulerEmulator(opts: { port: number; file: string | null; clock: Clock; sqs: SQSClient; tickMs?: number }): Promise<SchedulerEmulator> {
  const schedules = new Map<string, StoredSchedule>();
  if (opts.file && existsSync(opts.file)) {
    for (const s of JSON.parse(readFileSync(opts.file, 'utf8')) as StoredSchedule[]) schedules.set(`${s.GroupName}/${s.Name}`, s);
  }
  const persist = () => {
    if (!opts.file) return;
    writeFileSync(`${opts.file}.tmp`, JSON.stringify([...schedules.values()]));
    renameSync(`${opts.file}.tmp`, opts.file);
  };
  const queueUrls = new Map<string, string>();
  const urlForArn = async (arn: string) => {
    let url = queueUrls.get(arn);
    if (!url) {
      const name = arn.split(':').pop()!;
      url = (await opts.sqs.send(new GetQueueUrlCommand({ QueueName: name }))).QueueUrl!;
      queueUrls.set(arn, url);
    }
    return url;
  };

  const server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const m = /^\/schedules\/([^/]+)$/.exec(url.pathname);
      if (!m) return send(res, 404, { message: 'Unknown operation' }, 'ResourceNotFoundException');
      const name = decodeURIComponent(m[1]!);
      const raw = await readBody(req);
      const body = raw ? JSON.parse(raw) : {};
      const group = (body.GroupName as string | undefined) ?? url.searchParams.get('groupName') ?? 'default';
      const key = `${group}/${name}`;
      const existing = schedules.get(key);
      const now = new Date().toISOString();
      if (req.method === 'POST' || req.method === 'PUT') {
        if (req.method === 'POST' && existing) return send(res, 409, { Message: `Schedule ${name} already exists.` }, 'ConflictException');
        if (req.method === 'PUT' && !existing) return send(res, 404, { Message: `Schedule ${name} does not exist.` }, 'ResourceNotFoundException');
        const fireAt = parseAt(body.ScheduleExpression);
        if (fireAt === null) return send(res, 400, { Message: 'Only at() expressions are supported locally.' }, 'ValidationException');
        const invalid = validationError(body);
        if (invalid) return send(res, 400, { Message: invalid }, 'ValidationException');
        schedules.set(key, {
          ...body,
          Name: name,
          GroupName: group,
          CreationDate: existing?.CreationDate ?? now,
          LastModificationDate: now,
          fireAt,
        });
        persist();
        return send(res, 200, { ScheduleArn: scheduleArn(group, name) });
      }
      if (req.method === 'GET') {
        if (!existing) return send(res, 404, { Message: `Schedule ${name} does not exist.` }, 'ResourceNotFoundException');
        const { fireAt: _f, attempts: _a, retryAt: _r, ...out } = existing;
        return send(res, 200, { ...out, Arn: scheduleArn(group, name), CreationDate: Date.parse(existing.CreationDate) / 1000, LastModificationDate: Date.parse(existing.LastModificationDate) / 1000 });
      }
      if (req.method === 'DELETE') {
        if (!existing) return send(res, 404, { Message: `Schedule ${name} does not exist.` }, 'ResourceNotFoundException');
        schedules.delete(key);
        persist();
        return send(res, 200, {});
      }
      return send(res, 405, { Message: 'Method not allowed' }, 'ValidationException');
    } catch (e) {
      return send(res, 500, { Message: (e as Error).message }, 'InternalServerException');
    }
  });
  await new Promise<void>((resolve) => server.listen(opts.port, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;

  let firing: Promise<number> | null = null;
  const fireDue = (): Promise<number> => {
    // One pass at a time, so a schedule is never delivered twice by overlapping ticks.
    firing ??= (async () => {
      let fired = 0;
      let changed = false;
      const now = opts.clock.now().getTime();
      const due = [...schedules.entries()]
        .filter(([, s]) => s.fireAt <= now && (s.retryAt ?? 0) <= now && s.State !== 'DISABLED')
        .sort((a, b) => a[1].fireAt - b[1].fireAt);
      for (const [key, s] of due) {
        try {
          await opts.sqs.send(new SendMessageCommand({ QueueUrl: await urlForArn(s.Target.Arn), MessageBody: s.Target.Input ?? '{}' }));
          schedules.delete(key);
          fired++;
          changed = true;
        } catch (e) {
          changed = (await afterFailedDelivery(key, s, now, e as Error)) || changed;
        }
      }
      if (changed) persist();
      return fired;
    })().finally(() => {
      firing = null;
    });
    return firing;
  };
  /**
   * Scheduler's retry policy: back off and try again until the attempts or the event's age run out, then
   * hand the event to the target's DLQ (its body the target input, the failure in message attributes) or,
   * without one, drop it. A DLQ that cannot take it either keeps the schedule for the next tick, so nothing
   * is lost locally. Returns whether the stored schedule changed.
   */
  const afterFailedDelivery = async (key: string, s: StoredSchedule, now: number, error: Error): Promise<boolean> => {
    const policy = { ...DEFAULT_RETRY, ...s.Target.RetryPolicy };
    const retries = s.attempts ?? 0;
    const exhausted =
      retries >= policy.MaximumRetryAttempts ? 'MaximumRetryAttempts' : now - s.fireAt >= policy.MaximumEventAgeInSeconds * 1000 ? 'MaximumEventAgeInSeconds' : null;
    if (!exhausted) {
      s.attempts = retries + 1;
      s.retryAt = now + Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** retries);
      return true;
    }
    if (s.Target.DeadLetterConfig) {
      const attribute = (value: string) => ({ DataType: 'String', StringValue: value });
      try {
        await opts.sqs.send(
          new SendMessageCommand({
            QueueUrl: await urlForArn(s.Target.DeadLetterConfig.Arn),
            MessageBody: s.Target.Input ?? '{}',
            MessageAttributes: {
              ERROR_CODE: attribute(error.name || 'Error'),
              ERROR_MESSAGE: attribute((error.message || 'delivery failed').slice(0, 1024)),
              EXHAUSTED_RETRY_CONDITION: attribute(exhausted),
              RETRY_ATTEMPTS: attribute(String(retries)),
              SCHEDULE_ARN: attribute(scheduleArn(s.GroupName, s.Name)),
              TARGET_ARN: attribute(s.Target.Arn),
            },
          }),
        );
      } catch {
        return false;
      }
    }
    schedules.delete(key);
    return true;
  };
  const timer = setInterval(() => void fireDue(), opts.tickMs ?? 250);

  return {
    server,
    port,
    fireDue,
    dueCount: () => {
      const now = opts.clock.now().getTime();
      return [...schedules.values()].filter((s) => s.fireAt <= now).length;
    },
    pending: () => [...schedules.values()],
    stop: async () => {
      clearInterval(timer);
      await firing;
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
