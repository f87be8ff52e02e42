import { spawn, type ChildProcess } from 'node:child_process';
import { isAlive, until } from './probes.js';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './local.js';

/**
 * The service as a developer runs it (`npm start` is `tsx bin/local.ts`), in a child process of its own
 * process group so that a SIGKILL takes down the DynamoDB Local JVM it spawned as well, and restartable on
 * the same data directory and port.
 */
export interface ServiceOptions {
  dataDir: string;
  port: number;
  adminToken: string;
  env?: Record<string, string>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Below the ephemeral range, so no outgoing connection takes it before the service binds it (see processes.ts). */
export { freePort } from '../../shared/local/processes.js';

export class ServiceProcess {
  private child: ChildProcess | null = null;
  private exited: Promise<void> = Promise.resolve();
  private up = false;
  private waiters: (() => void)[] = [];
  /** How many times the service has come up (the first start included). */
  lives = 0;
  kills = 0;
  /** Wall time spent starting, over every life. */
  startingMs = 0;

  constructor(readonly opts: ServiceOptions) {}

  get origin(): string {
    return `http://127.0.0.1:${this.opts.port}`;
  }
  get baseUrl(): string {
    return `${this.origin}/api/public/v1/`;
  }
  get consoleUrl(): string {
    return `${this.origin}/api/console/v1/`;
  }
  get isUp(): boolean {
    return this.up;
  }

  /** Resolves when the service answers /healthz 200 (at once when it already does). */
  whenUp(): Promise<void> {
    return this.up ? Promise.resolve() : new Promise((r) => this.waiters.push(r));
  }

  private logFile(life: number): string {
    return join(this.opts.dataDir, `server-${life}.log`);
  }

  logTail(chars = 4000): string {
    const file = this.logFile(this.lives);
    return existsSync(file) ? readFileSync(file, 'utf8').slice(-chars) : '';
  }

  async start(timeoutMs = 150_000): Promise<void> {
    const t0 = Date.now();
    const log = openSync(this.logFile(this.lives), 'w');
    const env: Record<string, string | undefined> = {
      ...process.env,
      DATA_DIR: this.opts.dataDir,
      PORT: String(this.opts.port),
      ADMIN_TOKEN: this.opts.adminToken,
      ...this.opts.env,
    };
    // Jest's ESM flags are for the test runner, not for the service.
    delete env.NODE_OPTIONS;
    const child = spawn(process.execPath, ['--import', 'tsx', 'bin/local.ts'], { cwd: ROOT, env, detached: true, stdio: ['ignore', log, log] });
    closeSync(log);
    this.child = child;
    this.exited = new Promise((r) => child.once('exit', () => r()));
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`service exited during start (${child.exitCode ?? child.signalCode}):\n${this.logTail()}`);
      try {
        const res = await fetch(`${this.origin}/healthz`, { signal: AbortSignal.timeout(2000) });
        await res.arrayBuffer();
        if (res.status === 200) break;
      } catch {
        /* not listening yet */
      }
      if (Date.now() > deadline) throw new Error(`service not healthy after ${timeoutMs} ms:\n${this.logTail()}`);
      await sleep(100);
    }
    this.lives++;
    this.startingMs += Date.now() - t0;
    this.up = true;
    for (const w of this.waiters.splice(0)) w();
  }

  private dynamoPid(): number | null {
    const file = join(this.opts.dataDir, 'dynamodb', 'dynamodb-local.pid');
    if (!existsSync(file)) return null;
    const pid = Number(readFileSync(file, 'utf8').trim());
    return Number.isInteger(pid) && pid > 1 ? pid : null;
  }

  /**
   * SIGKILL the service process and wait until its DynamoDB Local JVM is gone too. The service crashes; the
   * database does not: the JVM is stopped by the service's watchdog (SIGTERM, then SIGKILL), as DynamoDB in
   * AWS keeps every write it acknowledged. A SIGKILL of the JVM itself loses DynamoDB Local's last
   * acknowledged writes, a fault of the stand-in that AWS does not have.
   */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child?.pid) throw new Error('service not started');
    this.up = false;
    const jvm = this.dynamoPid();
    process.kill(child.pid, 'SIGKILL');
    await this.exited;
    if (jvm !== null && !(await until(() => !isAlive(jvm), 20_000, 50))) throw new Error(`DynamoDB Local (pid ${jvm}) outlived the SIGKILL of its owner`);
    this.kills++;
  }

  /** SIGTERM (a clean stop), escalating to SIGKILL of the group after a bound. */
  async stop(): Promise<void> {
    const child = this.child;
    this.up = false;
    if (!child?.pid || child.exitCode !== null || child.signalCode !== null) return;
    process.kill(-child.pid, 'SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const stopped = await Promise.race([this.exited.then(() => true), new Promise<false>((r) => (timer = setTimeout(() => r(false), 20_000)))]);
    clearTimeout(timer);
    if (!stopped) {
      process.kill(-child.pid, 'SIGKILL');
      await this.exited;
    }
  }
}

export interface Reply<T = any> {
  status: number;
  body: T;
  /** How many times the request was sent (more than one after the service went down under it). */
  sends: number;
}

/**
 * `network_error` is a request the service never answered (it was killed under it); `until_answered`
 * resends such a request once the service is back, as a client would (same Idempotency-Key when given).
 */
export type RetryPolicy = 'until_answered' | 'never';

export interface ClientStats {
  requests: number;
  sends: number;
  unanswered: number;
  byStatus: Record<string, number>;
}

export class ServiceClient {
  readonly stats: ClientStats = { requests: 0, sends: 0, unanswered: 0, byStatus: {} };

  constructor(private readonly service: ServiceProcess) {}

  async call<T = any>(method: string, url: string, opts: { body?: unknown; headers?: Record<string, string>; retry?: RetryPolicy } = {}): Promise<Reply<T>> {
    this.stats.requests++;
    const retry = opts.retry ?? 'until_answered';
    for (let sends = 1; ; sends++) {
      await this.service.whenUp();
      this.stats.sends++;
      let res: Response;
      let text: string;
      try {
        res = await fetch(url, {
          method,
          headers: { 'content-type': 'application/json', ...opts.headers },
          body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
          signal: AbortSignal.timeout(60_000),
        });
        text = await res.text();
      } catch {
        this.stats.unanswered++;
        if (retry === 'never' || sends >= 30) return { status: 0, body: null as T, sends };
        // Until the kill is noticed the service still counts as up: give the restart a moment to begin.
        await sleep(200);
        continue;
      }
      const contention = res.status === 503 && res.headers.get('retry-after');
      if ((contention || res.status === 429) && sends < 30) {
        this.stats.byStatus[res.status] = (this.stats.byStatus[res.status] ?? 0) + 1;
        await sleep(Math.min(5, Number(res.headers.get('retry-after') ?? 1)) * 1000);
        continue;
      }
      this.stats.byStatus[res.status] = (this.stats.byStatus[res.status] ?? 0) + 1;
      let body: unknown = text;
      try {
        body = text ? JSON.parse(text) : null;
      } catch {
        /* not JSON: keep the text */
      }
      return { status: res.status, body: body as T, sends };
    }
  }

  api<T = any>(apiKey: string, method: string, path: string, body?: unknown, extra: { headers?: Record<string, string>; retry?: RetryPolicy } = {}) {
    return this.call<T>(method, `${this.service.baseUrl}${path}`, { body, headers: { 'x-api-key': apiKey, ...extra.headers }, retry: extra.retry });
  }

  console<T = any>(method: string, path: string, body?: unknown, retry: RetryPolicy = 'until_answered') {
    return this.call<T>(method, `${this.service.consoleUrl}${path}`, { body, headers: { 'x-admin-token': this.service.opts.adminToken }, retry });
  }
}
