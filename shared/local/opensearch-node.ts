/**
 * A real OpenSearch node on loopback, started from the Maven artifacts the way DynamoDB Local is started
 * (processes.ts): a single-node cluster, HTTP on a free loopback port, data under the caller's directory, a
 * bounded heap, stopped when this process ends. `SEARCH_ENGINE=opensearch npm start` and the live tests use it.
 *
 * The artifacts (bin/opensearch/pom.xml, version pinned) are copied by Maven into `.cache/opensearch-<version>/`
 * once (`ensureOpenSearchHome`, also `npx tsx bin/opensearch/fetch.ts`): the server's jars in `lib/`, each
 * module's jars in `modules/<name>/` beside the `plugin-descriptor.properties` (and security policy) this file
 * writes, since the published module jars carry none. Modules: transport-netty4 and analysis-common.
 *
 * No native code: JNA is present but its native library is not loaded (`jna.nosys`, `jna.nounpack`), so the
 * server skips what needs it (memory locking, the system call filter, and the refusal to run as root, which CI
 * is). Bound to loopback only, the production bootstrap checks stay warnings.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { freePort, stopStaleProcess } from './processes.js';

export const OPENSEARCH_VERSION = '2.19.6';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const pomFile = (root: string) => join(root, 'bin/opensearch/pom.xml');

interface ModuleDescriptor {
  name: string;
  description: string;
  classname: string;
  /** The module's `plugin-security.policy`: what its own code (netty) may do under the server's security manager. */
  policy?: string;
}

const MODULES: ModuleDescriptor[] = [
  {
    name: 'transport-netty4',
    description: 'HTTP and transport on Netty 4',
    classname: 'org.opensearch.transport.Netty4Plugin',
    policy: [
      'grant {',
      '  // the listen backlog netty reads',
      '  permission java.io.FilePermission "/proc/sys/net/core/somaxconn", "read";',
      '  // accepting HTTP clients and the node\'s own transport connections',
      '  permission java.net.SocketPermission "*", "accept,connect";',
      '  // netty\'s event-loop threads set their context class loader',
      '  permission java.lang.RuntimePermission "*", "setContextClassLoader";',
      '  permission java.lang.RuntimePermission "getClassLoader";',
      '  permission java.util.PropertyPermission "sun.nio.ch.bugLevel", "write";',
      '};',
      '',
    ].join('\n'),
  },
  { name: 'analysis-common', description: 'The common analyzers, tokenizers and token filters', classname: 'org.opensearch.analysis.common.CommonAnalysisPlugin' },
];

const LOG4J2 = [
  'status = error',
  'appender.console.type = Console',
  'appender.console.name = console',
  'appender.console.layout.type = PatternLayout',
  'appender.console.layout.pattern = [%d{ISO8601}][%-5p][%c{1.}] %m%n',
  'rootLogger.level = warn',
  'rootLogger.appenderRef.console.ref = console',
  '',
].join('\n');

/** Where the node's artifacts live: `OPENSEARCH_HOME` when set, else `.cache/opensearch-<version>/` in the checkout. */
export function openSearchHome(root = repoRoot): string {
  return process.env.OPENSEARCH_HOME ? resolve(process.env.OPENSEARCH_HOME) : join(root, '.cache', `opensearch-${OPENSEARCH_VERSION}`);
}

/** What the home was made from: the pom and this file's descriptors; a change to either makes it again. */
function homeStamp(root: string): string {
  return createHash('sha256').update(readFileSync(pomFile(root))).update(JSON.stringify(MODULES)).update(LOG4J2).digest('hex');
}

/**
 * The node's home, made when missing or stale: Maven copies the pinned artifacts (from its local repository
 * `~/.m2` when it has them, else from Maven Central), then the module descriptors and config are written. A
 * `.complete` stamp is written last, so an interrupted fetch is redone; with it in place this returns at once.
 */
export async function ensureOpenSearchHome(opts: { root?: string; log?: (m: string) => void } = {}): Promise<string> {
  const root = opts.root ?? repoRoot;
  const home = openSearchHome(root);
  const stampFile = join(home, '.complete');
  const stamp = homeStamp(root);
  if (existsSync(stampFile) && readFileSync(stampFile, 'utf8').trim() === stamp) return home;
  opts.log?.(`fetching OpenSearch ${OPENSEARCH_VERSION} (Maven) into ${home}`);
  rmSync(home, { recursive: true, force: true });
  try {
    await promisify(execFile)('mvn', ['-q', '-B', '-f', pomFile(root), 'package', `-Dos.home=${home}`], { maxBuffer: 16 * 1024 * 1024 });
  } catch (e) {
    const err = e as NodeJS.ErrnoException & { stdout?: string; stderr?: string };
    if (err.code === 'ENOENT') throw new Error('Maven (mvn) is required to fetch the OpenSearch node (Debian: apt-get install -y maven)');
    throw new Error(`fetching OpenSearch with Maven failed: ${err.stdout ?? ''}${err.stderr ?? ''}`);
  }
  for (const m of MODULES) {
    const dir = join(home, 'modules', m.name);
    const descriptor = {
      description: m.description,
      version: OPENSEARCH_VERSION,
      name: m.name,
      classname: m.classname,
      'java.version': '11',
      'opensearch.version': OPENSEARCH_VERSION,
      'extended.plugins': '',
      'has.native.controller': 'false',
    };
    writeFileSync(join(dir, 'plugin-descriptor.properties'), Object.entries(descriptor).map(([k, v]) => `${k}=${v}\n`).join(''));
    if (m.policy) writeFileSync(join(dir, 'plugin-security.policy'), m.policy);
  }
  mkdirSync(join(home, 'config'), { recursive: true });
  mkdirSync(join(home, 'plugins'), { recursive: true });
  writeFileSync(join(home, 'config', 'log4j2.properties'), LOG4J2);
  // Every node setting is given on its command line (-E); the file only has to exist.
  writeFileSync(join(home, 'config', 'opensearch.yml'), '# settings come from the launcher (shared/local/opensearch-node.ts)\n');
  writeFileSync(stampFile, stamp);
  return home;
}

export interface OpenSearchNode {
  url: string;
  port: number;
  dataDir: string;
  process: ChildProcess;
  /** Stops the node (SIGTERM, SIGKILL after 10 s); its data stays. */
  stop(): Promise<void>;
}

const PID_FILE = 'opensearch.pid';

/**
 * Starts a single-node OpenSearch on 127.0.0.1 and resolves once the cluster is yellow or green. Its data
 * and logs are under `dataDir` (`data/`, `logs/`), its heap is `heap` (min = max). Give `port` to come back
 * on the same address after a stop (the restart of a live test); otherwise a free one is taken.
 */
export async function startOpenSearchNode(opts: { dataDir: string; heap?: string; port?: number; root?: string; log?: (m: string) => void; startTimeoutMs?: number }): Promise<OpenSearchNode> {
  const home = await ensureOpenSearchHome({ root: opts.root, log: opts.log });
  const dataDir = resolve(opts.dataDir);
  mkdirSync(join(dataDir, 'logs'), { recursive: true });
  // A node left running on this data directory by a killed process is stopped before a new one opens it;
  // only a process that is an OpenSearch node on this very data directory is touched.
  await stopStaleProcess(join(dataDir, PID_FILE), (cmdline) => cmdline.includes('org.opensearch.bootstrap.OpenSearch') && cmdline.includes(`path.data=${join(dataDir, 'data')}`), { termWaitMs: 15_000, killWaitMs: 500 });
  const port = opts.port ?? (await freePort());
  const transportPort = await freePort();
  const heap = opts.heap ?? '512m';
  const settings: Record<string, string> = {
    'cluster.name': 'people-outreach-local',
    'node.name': 'local',
    'discovery.type': 'single-node',
    'network.host': '127.0.0.1',
    'http.port': String(port),
    'transport.port': String(transportPort),
    'path.data': join(dataDir, 'data'),
    'path.logs': join(dataDir, 'logs'),
    // No disk-watermark refusals on a nearly full developer disk: this node holds one directory.
    'cluster.routing.allocation.disk.threshold_enabled': 'false',
    'action.auto_create_index': 'false',
  };
  const args = [
    `-Xms${heap}`,
    `-Xmx${heap}`,
    '-XX:+UseSerialGC',
    '-Djna.nosys=true',
    '-Djna.nounpack=true',
    '-Djava.security.manager=allow',
    '-Dlog4j2.disable.jmx=true',
    '-Dlog4j.shutdownHookEnabled=false',
    '-Dfile.encoding=UTF-8',
    `-Djava.io.tmpdir=${join(dataDir, 'tmp')}`,
    `-Dopensearch.path.home=${home}`,
    `-Dopensearch.path.conf=${join(home, 'config')}`,
    '-cp',
    `${join(home, 'lib')}/*`,
    'org.opensearch.bootstrap.OpenSearch',
    ...Object.entries(settings).flatMap(([k, v]) => ['-E', `${k}=${v}`]),
  ];
  mkdirSync(join(dataDir, 'tmp'), { recursive: true });
  const child = spawn('java', args, { stdio: ['ignore', 'pipe', 'pipe'], cwd: home });
  if (child.pid) writeFileSync(join(dataDir, PID_FILE), String(child.pid));
  const logFile = createWriteStream(join(dataDir, 'logs', 'console.log'), { flags: 'a' });
  let tail = '';
  const keep = (d: Buffer) => {
    logFile.write(d);
    tail = (tail + String(d)).slice(-8_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  // A SIGKILL of this process runs no exit handler: a watchdog outside it stops the JVM when it is gone.
  const watchdog = child.pid
    ? spawn('sh', ['-c', `while kill -0 ${process.pid} 2>/dev/null && kill -0 ${child.pid} 2>/dev/null; do sleep 1; done; kill ${child.pid} 2>/dev/null; sleep 10; kill -9 ${child.pid} 2>/dev/null`], { stdio: 'ignore', detached: true })
    : null;
  watchdog?.unref();

  const url = `http://127.0.0.1:${port}`;
  const stop = () =>
    new Promise<void>((done) => {
      process.removeListener('exit', killOnExit);
      watchdog?.kill('SIGKILL');
      rmSync(join(dataDir, PID_FILE), { force: true });
      const finish = () => logFile.end(() => done());
      if (child.exitCode !== null || child.signalCode !== null) return finish();
      child.once('exit', finish);
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
    });

  const deadline = Date.now() + (opts.startTimeoutMs ?? 180_000);
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      if (opts.port === undefined && /BindException|Address already in use/.test(tail)) return startOpenSearchNode(opts);
      throw new Error(`OpenSearch exited (${child.exitCode}): ${tail}`);
    }
    try {
      const r = await fetch(`${url}/_cluster/health?wait_for_status=yellow&timeout=1s`, { signal: AbortSignal.timeout(5_000) });
      if (r.ok && ['yellow', 'green'].includes(((await r.json()) as { status: string }).status)) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`OpenSearch did not become healthy in time: ${tail}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return { url, port, dataDir, process: child, stop };
}
