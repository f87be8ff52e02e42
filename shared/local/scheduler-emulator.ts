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
  Target: { Arn: string; RoleArn?: string; Input?: string };
  CreationDate: string;
  LastModificationDate: string;
  fireAt: number;
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
        schedules.set(key, {
          ...body,
          Name: name,
          GroupName: group,
          CreationDate: existing?.CreationDate ?? now,
          LastModificationDate: now,
          fireAt,
        });
        persist();
        return send(res, 200, { ScheduleArn: `arn:aws:scheduler:us-east-1:000000000000:schedule/${group}/${name}` });
      }
      if (req.method === 'GET') {
        if (!existing) return send(res, 404, { Message: `Schedule ${name} does not exist.` }, 'ResourceNotFoundException');
        const { fireAt: _f, ...out } = existing;
        return send(res, 200, { ...out, Arn: `arn:aws:scheduler:us-east-1:000000000000:schedule/${group}/${name}`, CreationDate: Date.parse(existing.CreationDate) / 1000, LastModificationDate: Date.parse(existing.LastModificationDate) / 1000 });
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
      const now = opts.clock.now().getTime();
      const due = [...schedules.entries()].filter(([, s]) => s.fireAt <= now && s.State !== 'DISABLED').sort((a, b) => a[1].fireAt - b[1].fireAt);
      for (const [key, s] of due) {
        try {
          await opts.sqs.send(new SendMessageCommand({ QueueUrl: await urlForArn(s.Target.Arn), MessageBody: s.Target.Input ?? '{}' }));
          schedules.delete(key);
          fired++;
        } catch {
          // The target is unavailable: keep the schedule and try again on the next tick, as Scheduler retries.
        }
      }
      if (fired) persist();
      return fired;
    })().finally(() => {
      firing = null;
    });
    return firing;
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
