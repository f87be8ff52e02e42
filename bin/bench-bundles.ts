/**
 * Cold-start budget of every Lambda function: the minified bundle esbuild produces with the deployed settings
 * (lib/constructs/service-function.ts `BUNDLING`: the AWS SDK bundled), and its module init time — the median
 * of 5 fresh Node processes each importing the bundle once, with the deployed environment and the variables
 * Lambda sets. Beside each function, in the same rounds, a physical reference: a fresh `node -e 0` process
 * (wall time from spawn to exit, CPU time of its bootstrap), so that the ratio survives a loaded machine.
 * A bundle over the size target is a named exception when the documented dependencies it carries account for
 * the excess (`SIZE_EXCEPTIONS`); otherwise it misses the target, with its heaviest packages listed.
 *   tsx bin/bench-bundles.ts          (also run by `npm run bench`)
 *   BENCH_NODE=/path/to/node22 tsx bin/bench-bundles.ts   (measure on Lambda's Node major, see docs/benchmarks.md "Cold starts")
 *   BENCH_ONLY=functions/search tsx bin/bench-bundles.ts    (only the functions whose module path contains it)
 * Writes bench-results/bundles.json and bench-results/bundles.md.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type BuildOptions, type Metafile } from 'esbuild';
import { BUNDLING, LAZY_PACKAGES, REPO_ROOT, lazyPackageCommands } from '../lib/constructs/service-function.js';
import { DIRECTORY_IMPORT_MODULE } from '../lib/constructs/directory-import.js';
import { INBOUND_MAIL_MODULE } from '../lib/constructs/inbound-mail.js';
import { API_KEY_AUTHORIZER } from '../shared/catalog/authorizer.js';
import type { Bindings } from '../shared/catalog/bindings.js';
import { QUEUE_LIST } from '../shared/catalog/queues.js';
import { ROUTES } from '../shared/catalog/routes.js';
import { TABLE_LIST } from '../shared/catalog/tables.js';

export const BUNDLE_LIMIT_KB = 400;
export const INIT_LIMIT_MS = { api: 100, dynamodbOnly: 60 } as const;
const RUNS = 5;
/** A handler that only constructs DynamoDB's document client: the least init any DynamoDB-only function can have. */
const DYNAMODB_FLOOR_MODULE = 'bin/bench-fixtures/dynamodb-floor.ts';

/**
 * The dependencies that may take a bundle over the size target (issue 10: mail parsing, HTML sanitising), by
 * what they do. A function is an exception only if its bundle less these packages is within the target.
 */
export const SIZE_EXCEPTIONS: Record<string, readonly string[]> = {
  'mail parsing': ['mailparser', 'libmime', 'libqp', 'libbase64', 'iconv-lite', 'encoding-japanese', '@zone-eu/mailsplit', 'punycode.js', 'tlds', 'linkify-it', 'uc.micro', 'he'],
  'HTML sanitising and rendering': ['sanitize-html', 'htmlparser2', 'domhandler', 'domutils', 'dom-serializer', 'domelementtype', 'entities', 'postcss', 'nanoid', 'picocolors', 'source-map-js', 'parse-srcset', 'deepmerge', 'is-plain-object', 'escape-string-regexp', 'html-to-text', 'selderee', '@selderee/plugin-htmlparser2', 'parseley', 'leac', 'peberminta'],
  'MIME composition and SMTP': ['nodemailer'],
  // The provider mailboxes of docs/decisions.md#stand-ins: Google's OAuth and Gmail clients, Microsoft Graph's, the OIDC client, and what
  // they pull in (the packages reachable only through them, from esbuild's metafile).
  "mailbox providers' clients (Gmail API, Microsoft Graph, OAuth)": [
    'google-auth-library', '@googleapis/gmail', 'googleapis-common', 'gaxios', 'gtoken', 'gcp-metadata', 'google-logging-utils',
    'node-fetch', 'fetch-blob', 'formdata-polyfill', 'web-streams-polyfill', 'node-domexception', 'data-uri-to-buffer',
    'https-proxy-agent', 'agent-base', 'url-template', 'extend', 'qs', 'side-channel', 'side-channel-list', 'side-channel-map',
    'side-channel-weakmap', 'object-inspect', 'get-intrinsic', 'bignumber.js', 'json-bigint', 'jws', 'jwa',
    'ecdsa-sig-formatter', 'buffer-equal-constant-time', 'safe-buffer', 'base64-js',
    '@microsoft/microsoft-graph-client', 'openid-client', 'oauth4webapi',
  ],
  // The search index client of docs/decisions.md#stand-ins (the search and directory workers).
  'OpenSearch client': ['@opensearch-project/opensearch', 'json11', 'aws4', 'secure-json-parse', 'debug', 'ms', 'supports-color'],
  // The drafting model of docs/decisions.md#shape (DRAFTER=bedrock): the Converse client, with the event-stream code it imports
  // statically for its streaming operations and the bearer-token provider its credential chain names.
  'Bedrock Runtime client': ['@aws-sdk/client-bedrock-runtime', '@smithy/core/event-streams', '@aws-sdk/eventstream-handler-node', '@aws-sdk/middleware-websocket', '@aws-sdk/middleware-eventstream', '@aws-sdk/token-providers'],
  // The directory object store of docs/decisions.md#the-people-directory (the directory import and the search and directory workers): the S3 client
  // with its REST-XML protocol, checksums, S3 signing and event-stream code.
  'S3 client': ['@aws-sdk/client-s3', '@aws-sdk/checksums', '@aws-sdk/middleware-sdk-s3', '@aws-sdk/xml-builder', '@aws-sdk/signature-v4-multi-region', '@smithy/core/event-streams'],
};

export interface BundleMeasure {
  module: string;
  kind: 'route' | 'authorizer' | 'worker' | 'data';
  dynamodb_only: boolean;
  kb: number;
  /** The lazily imported packages bundled beside it (LAZY_PACKAGES), loaded at the first AWS request, not at init. */
  lazy_kb: number;
  /** The heaviest packages in the bundle, KB each (`shared/…` for the service's own code). */
  heaviest: [string, number][];
  /** The documented dependencies of a bundle over the target, its size without them, and whether that is within. */
  size_exception: { reasons: string; kb_without: number; excused: boolean } | null;
  init_target_ms: number;
  init_ms: number | string;
  /** CPU time of the same imports (user + system): what the wall time is once no other process competes for a core. */
  init_cpu_ms: number | string;
  /** Median wall and CPU time of a fresh `node -e 0` measured in the same rounds. */
  reference: { wall_ms: number; cpu_ms: number };
}

/** Only DynamoDB: a table, and no queue, scheduler, mail, secret, API key or S3 binding (the tighter init target). */
function dynamodbOnly(b: Bindings): boolean {
  return !!b.tables && !b.queues && !b.scheduler && !b.mail && !b.secrets && !b.apiKeys && !b.directorySource && !b.userPool;
}

export type FunctionToMeasure = Pick<BundleMeasure, 'module' | 'kind' | 'dynamodb_only'>;

/** Every function the stacks deploy, once each, and whether it touches DynamoDB only. */
export function functionsToMeasure(): FunctionToMeasure[] {
  const byModule = new Map<string, FunctionToMeasure>();
  for (const r of ROUTES) byModule.set(r.module, { module: r.module, kind: 'route', dynamodb_only: (byModule.get(r.module)?.dynamodb_only ?? true) && dynamodbOnly(r.bindings) });
  byModule.set(API_KEY_AUTHORIZER.module, { module: API_KEY_AUTHORIZER.module, kind: 'authorizer', dynamodb_only: true });
  for (const q of QUEUE_LIST) byModule.set(q.worker.module, { module: q.worker.module, kind: 'worker', dynamodb_only: dynamodbOnly(q.worker.bindings) });
  byModule.set(DIRECTORY_IMPORT_MODULE, { module: DIRECTORY_IMPORT_MODULE, kind: 'data', dynamodb_only: false });
  byModule.set(INBOUND_MAIL_MODULE, { module: INBOUND_MAIL_MODULE, kind: 'data', dynamodb_only: false });
  return [...byModule.values()];
}

/** Every variable the stack and Lambda may set, with placeholder values; endpoints on a closed loopback port. */
function lambdaLikeEnv(taskRoot: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
    AWS_LAMBDA_FUNCTION_NAME: 'bench',
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '512',
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    LAMBDA_TASK_ROOT: taskRoot,
    AWS_REGION: 'eu-west-1',
    AWS_ACCESS_KEY_ID: 'bench',
    AWS_SECRET_ACCESS_KEY: 'bench',
    AWS_SESSION_TOKEN: 'bench',
    AWS_ENDPOINT_URL: 'http://127.0.0.1:9',
    POWERTOOLS_SERVICE_NAME: 'people-outreach',
    LOG_LEVEL: 'INFO',
    SERVICE_STAGE: 'bench',
    SCHEDULER_GROUP_NAME: 'bench-schedules',
    SCHEDULER_ROLE_ARN: 'arn:aws:iam::000000000000:role/bench',
    TIMERS_QUEUE_ARN: 'arn:aws:sqs:eu-west-1:000000000000:bench-timers',
    TIMERS_DLQ_ARN: 'arn:aws:sqs:eu-west-1:000000000000:bench-timers-dlq',
    SECRET_BOX_SECRET_ARN: 'arn:aws:secretsmanager:eu-west-1:000000000000:secret:bench',
    USAGE_PLAN_NAME: 'bench-public-api',
    USAGE_PLAN_ID_PARAMETER: '/bench/usage-plan-id',
    DIRECTORY_BUCKET: 'bench',
    DIRECTORY_KEY: 'directory/directory.jsonl.gz',
    PUBLIC_BASE_URL: 'http://127.0.0.1:9/bench/',
  };
  for (const t of TABLE_LIST) env[t.env] = `bench-${t.key}`;
  for (const q of QUEUE_LIST) {
    env[q.urlEnv] = `http://127.0.0.1:9/000000000000/bench-${q.key}`;
    env[q.arnEnv] = `arn:aws:sqs:eu-west-1:000000000000:bench-${q.key}`;
  }
  return env;
}

/** The package an input file belongs to, or its first two path segments for the service's own code. */
function owner(input: string): string {
  const m = input.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
  return m ? m[1]! : input.split('/').slice(0, 2).join('/');
}

/** esbuild's options as CDK runs it for every function (lib/constructs/service-function.ts BUNDLING). */
export const DEPLOYED_ESBUILD = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: BUNDLING.target,
  mainFields: BUNDLING.mainFields,
  banner: { js: BUNDLING.banner },
  minify: BUNDLING.minify,
  external: BUNDLING.externalModules,
  inject: BUNDLING.inject,
  alias: Object.fromEntries(BUNDLING.esbuildArgs['--alias'].map((a) => a.split('=') as [string, string])),
  // Where CDK runs esbuild: the aliases are relative to it.
  absWorkingDir: REPO_ROOT,
  logLevel: 'error',
} satisfies BuildOptions;

/**
 * Bundle with the deployed settings, the lazy packages beside it as in the asset; KB of the bundle, per package,
 * and of the lazy packages.
 */
export async function bundle(module: string, outfile: string, opts: { lazyPackages: boolean } = { lazyPackages: true }): Promise<{ kb: number; packages: Map<string, number>; lazyKb: number; staticExternals: string[]; builtinEsmImports: string[] }> {
  const { metafile } = await build({
    ...DEPLOYED_ESBUILD,
    entryPoints: [join(REPO_ROOT, module)],
    outfile,
    sourcemap: BUNDLING.sourceMap,
    sourcesContent: BUNDLING.sourcesContent,
    metafile: true,
  });
  const imports = { staticExternals: staticExternals(metafile), builtinEsmImports: builtinEsmImports(metafile) };
  if (!opts.lazyPackages) return { kb: statSync(outfile).size / 1024, packages: packageKb(metafile), lazyKb: 0, ...imports };
  for (const command of lazyPackageCommands(dirname(outfile))) execFileSync('bash', ['-c', command], { stdio: 'inherit' });
  // Only the lazy packages the bundle imports are in its asset (lazyPackageCommands). One the bundle imports
  // statically (mailparser's html-to-text in the inbound function) loads at init like the bundle itself: it
  // counts in the bundle's KB, under its own name, not in the lazy KB.
  const packages = packageKb(metafile);
  let kb = statSync(outfile).size / 1024;
  let lazyKb = 0;
  for (const p of LAZY_PACKAGES) {
    const file = join(dirname(outfile), 'node_modules', p, 'index.mjs');
    if (!existsSync(file)) continue;
    const size = statSync(file).size / 1024;
    if (imports.staticExternals.includes(p)) {
      packages.set(p, (packages.get(p) ?? 0) + size);
      kb += size;
    } else lazyKb += size;
  }
  return { kb, packages, lazyKb, ...imports };
}

function packageKb(metafile: Metafile): Map<string, number> {
  const out = Object.values(metafile.outputs).find((o) => o.entryPoint)!;
  const packages = new Map<string, number>();
  for (const [input, { bytesInOutput }] of Object.entries(out.inputs)) packages.set(owner(input), (packages.get(owner(input)) ?? 0) + bytesInOutput / 1024);
  return packages;
}

const isBuiltin = (path: string) => path.startsWith('node:') || builtinModules.includes(path);

/** Packages the bundle imports statically but does not contain (Node's own modules aside): each must be in the asset. */
function staticExternals(metafile: Metafile): string[] {
  const out = Object.values(metafile.outputs).find((o) => o.entryPoint)!;
  return out.imports.filter((i) => i.external && i.kind === 'import-statement' && !isBuiltin(i.path)).map((i) => i.path);
}

/** Node's own modules the bundle loads as ES modules (`import`), each a facade Node builds by reading every export. */
function builtinEsmImports(metafile: Metafile): string[] {
  const out = Object.values(metafile.outputs).find((o) => o.entryPoint)!;
  return out.imports.filter((i) => i.external && (i.kind === 'import-statement' || i.kind === 'dynamic-import') && isBuiltin(i.path)).map((i) => i.path);
}

/**
 * For a bundle over the target, the documented dependencies it carries and their KB: the bundle is an exception
 * when it is within the target without them, and over it for other reasons otherwise.
 */
export function sizeException(kb: number, packages: Map<string, number>): { reasons: string; kb_without: number; excused: boolean } | null {
  if (kb <= BUNDLE_LIMIT_KB) return null;
  // A group is carried when a package only it names is in the bundle: S3's event-stream code is not Bedrock's client.
  const shared = (d: string) => Object.values(SIZE_EXCEPTIONS).filter((deps) => deps.includes(d)).length > 1;
  const carried = Object.entries(SIZE_EXCEPTIONS)
    .filter(([, deps]) => deps.some((d) => !shared(d) && packages.has(d)))
    .map(([reason, deps]) => ({ reason, deps: deps.filter((d) => packages.has(d)) }))
    .map((e) => ({ ...e, kb: e.deps.reduce((sum, d) => sum + packages.get(d)!, 0) }));
  if (carried.length === 0) return null;
  // A package named in two groups counts once.
  const named = new Set(carried.flatMap((e) => e.deps));
  const without = Math.round(kb - [...named].reduce((sum, d) => sum + packages.get(d)!, 0));
  return { reasons: carried.map((e) => `${e.reason} (${e.deps.join(', ')}: ${Math.round(e.kb)} KB)`).join('; '), kb_without: without, excused: without <= BUNDLE_LIMIT_KB };
}

const IMPORT_ONCE =
  'const c=process.cpuUsage();const t=performance.now();await import(process.argv[1]);const w=performance.now()-t;const u=process.cpuUsage(c);' +
  'process.stdout.write(JSON.stringify([w,(u.user+u.system)/1000]));process.exit(0)';
const BOOTSTRAP_CPU = 'const u=process.cpuUsage();process.stdout.write(String((u.user+u.system)/1000))';

/**
 * The Node binary that runs the measures: `BENCH_NODE` when set, so that they can be taken on the Lambda
 * runtime's major version (22) on a machine whose own Node is another; this process's otherwise.
 */
const NODE = process.env.BENCH_NODE ?? process.execPath;
const nodeVersion = () => execFileSync(NODE, ['--version'], { encoding: 'utf8' }).trim();

const medianOf = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * RUNS rounds, each a fresh `node -e 0` (the reference) then a fresh process importing the bundle: median
 * wall and CPU time of each, or why the import fails.
 */
function initMs(file: string, env: NodeJS.ProcessEnv): Pick<BundleMeasure, 'init_ms' | 'init_cpu_ms' | 'reference'> {
  const wall: number[] = [];
  const cpu: number[] = [];
  const refWall: number[] = [];
  const refCpu: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    execFileSync(NODE, ['-e', '0'], { env, stdio: 'ignore' });
    refWall.push(performance.now() - start);
    refCpu.push(Number(execFileSync(NODE, ['-e', BOOTSTRAP_CPU], { env, encoding: 'utf8' })));
    try {
      const out = execFileSync(NODE, ['--input-type=module', '-e', IMPORT_ONCE, pathToFileURL(file).href], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
      const [w, c] = JSON.parse(out) as [number, number];
      wall.push(w);
      cpu.push(c);
    } catch (e) {
      const why = `fails: ${String((e as { stderr?: string }).stderr ?? e).split('\n').find((l) => /Error/.test(l)) ?? 'error'}`;
      return { init_ms: why, init_cpu_ms: why, reference: { wall_ms: Math.round(medianOf(refWall)), cpu_ms: Math.round(medianOf(refCpu)) } };
    }
  }
  return { init_ms: Math.round(medianOf(wall)), init_cpu_ms: Math.round(medianOf(cpu)), reference: { wall_ms: Math.round(medianOf(refWall)), cpu_ms: Math.round(medianOf(refCpu)) } };
}

/** Bundle one function into `outdir` as deployed and measure it. */
export async function measureFunction(fn: FunctionToMeasure, outdir: string): Promise<BundleMeasure> {
  const dir = join(outdir, fn.module.replace(/\.ts$/, '').replace(/[/.]/g, '_'));
  const file = join(dir, 'index.mjs');
  mkdirSync(dir, { recursive: true });
  const { kb, packages, lazyKb } = await bundle(fn.module, file);
  const heaviest = [...packages].sort((a, b) => b[1] - a[1]).slice(0, 4).map(([p, k]) => [p, Math.round(k)] as [string, number]);
  return {
    ...fn,
    kb: Math.round(kb),
    lazy_kb: Math.round(lazyKb),
    heaviest,
    size_exception: sizeException(kb, packages),
    init_target_ms: fn.dynamodb_only ? INIT_LIMIT_MS.dynamodbOnly : INIT_LIMIT_MS.api,
    ...initMs(file, lambdaLikeEnv(dir)),
  };
}

export async function benchBundles(root = REPO_ROOT): Promise<{ functions: BundleMeasure[]; summary: Record<string, number> }> {
  // Outside the repository, so that a bundle resolves nothing from its node_modules: what the asset lacks fails.
  const outdir = mkdtempSync(join(tmpdir(), 'bench-bundles-'));
  const functions: BundleMeasure[] = [];
  for (const fn of functionsToMeasure().filter((f) => f.module.includes(process.env.BENCH_ONLY ?? ''))) {
    const measure = await measureFunction(fn, outdir);
    functions.push(measure);
    console.log(`  ${fn.module}: ${measure.kb} KB, init ${measure.init_ms} ms wall / ${measure.init_cpu_ms} ms CPU; node -e 0: ${measure.reference.wall_ms} ms wall / ${measure.reference.cpu_ms} ms CPU`);
  }
  const floor = await measureFunction({ module: DYNAMODB_FLOOR_MODULE, kind: 'route', dynamodb_only: true }, outdir);
  console.log(`  DynamoDB-only floor (${DYNAMODB_FLOOR_MODULE}): ${floor.kb} KB, init ${floor.init_ms} ms wall / ${floor.init_cpu_ms} ms CPU`);
  rmSync(outdir, { recursive: true, force: true });

  const numbers = (pick: (f: BundleMeasure) => number | string) => functions.map(pick).filter((x): x is number => typeof x === 'number');
  const within = (pick: (f: BundleMeasure) => number | string) => functions.filter((f) => typeof pick(f) === 'number' && (pick(f) as number) <= f.init_target_ms).length;
  const summary = {
    functions: functions.length,
    median_kb: medianOf(functions.map((f) => f.kb)),
    max_kb: Math.max(...functions.map((f) => f.kb)),
    within_size: functions.filter((f) => f.kb <= BUNDLE_LIMIT_KB).length,
    size_exceptions: functions.filter((f) => f.size_exception?.excused).length,
    carrying_named: functions.filter((f) => f.size_exception).length,
    median_init_ms: medianOf(numbers((f) => f.init_ms)),
    within_init_target: within((f) => f.init_ms),
    median_init_cpu_ms: medianOf(numbers((f) => f.init_cpu_ms)),
    within_init_target_cpu: within((f) => f.init_cpu_ms),
    dynamodb_floor_kb: floor.kb,
    dynamodb_floor_cpu_ms: typeof floor.init_cpu_ms === 'number' ? floor.init_cpu_ms : NaN,
    dynamodb_only_within_api_target_cpu: functions.filter((f) => f.dynamodb_only && typeof f.init_cpu_ms === 'number' && f.init_cpu_ms <= INIT_LIMIT_MS.api).length,
    dynamodb_only_within_target_cpu: functions.filter((f) => f.dynamodb_only && typeof f.init_cpu_ms === 'number' && f.init_cpu_ms <= INIT_LIMIT_MS.dynamodbOnly).length,
    dynamodb_only: functions.filter((f) => f.dynamodb_only).length,
    reference_wall_ms: medianOf(functions.map((f) => f.reference.wall_ms)),
    reference_cpu_ms: medianOf(functions.map((f) => f.reference.cpu_ms)),
  };

  const mark = (ok: boolean) => (ok ? '✓' : '✗');
  const timed = (ms: number | string, target: number) => (typeof ms === 'number' ? `${ms} ${mark(ms <= target)}` : ms);
  const ratio = (ms: number | string, ref: number) => (typeof ms === 'number' && ref > 0 ? (ms / ref).toFixed(1) : '—');
  const sizeCell = (f: BundleMeasure) => (f.kb <= BUNDLE_LIMIT_KB ? `${f.kb} ✓` : f.size_exception?.excused ? `${f.kb} (exception)` : `${f.kb} ✗`);
  const whyCell = (f: BundleMeasure) =>
    [f.size_exception ? `${f.size_exception.reasons}, ${f.size_exception.kb_without} KB without` : '', f.size_exception?.excused ? '' : f.heaviest.map(([p, k]) => `${p} ${k}`).join(', ')].filter(Boolean).join('; heaviest: ');
  const rows = functions.map(
    (f) =>
      `| \`${f.module}\` | ${f.kind}${f.dynamodb_only ? ', DynamoDB only' : ''} | ${sizeCell(f)} | ${f.lazy_kb} | ≤ ${f.init_target_ms} | ${timed(f.init_ms, f.init_target_ms)} | ${timed(f.init_cpu_ms, f.init_target_ms)} | ` +
      `${f.reference.wall_ms} / ${f.reference.cpu_ms} | ${ratio(f.init_ms, f.reference.wall_ms)} / ${ratio(f.init_cpu_ms, f.reference.cpu_ms)} | ${whyCell(f)} |`,
  );
  const s = summary;
  const md = [
    `Targets: bundle ≤ ${BUNDLE_LIMIT_KB} KB minified; module init ≤ ${INIT_LIMIT_MS.api} ms, ≤ ${INIT_LIMIT_MS.dynamodbOnly} ms for DynamoDB-only functions (median of ${RUNS} fresh Node ${nodeVersion()} processes, the deployed environment with placeholder resource names, and the variables Lambda sets).`,
    '',
    `Load average when measured: ${loadavg().map((l) => l.toFixed(1)).join(' / ')} on ${cpus().length} cores (wall time includes waiting for a core; CPU time does not). Reference: a fresh \`node -e 0\`, measured in the same rounds as each function (wall from spawn to exit / CPU of its bootstrap).`,
    '',
    '| function | kind | KB | lazy KB | init target ms | init ms, wall | init ms, CPU | `node -e 0` ms, wall / CPU | init ÷ `node -e 0`, wall / CPU | documented dependencies over 400 KB / heaviest packages (KB) |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    `Median ${s.median_kb} KB (max ${s.max_kb}), ${s.within_size}/${s.functions} within ${BUNDLE_LIMIT_KB} KB, ${s.carrying_named} over it carrying a named dependency (${s.size_exceptions} of them within ${BUNDLE_LIMIT_KB} KB without it); ` +
      `init median ${s.median_init_ms} ms wall (${s.within_init_target}/${s.functions} within target), ${s.median_init_cpu_ms} ms CPU (${s.within_init_target_cpu}/${s.functions} within target); ` +
      `\`node -e 0\` median ${s.reference_wall_ms} ms wall, ${s.reference_cpu_ms} ms CPU.`,
    '',
    `DynamoDB-only floor: a bare handler that only constructs the document client (\`${DYNAMODB_FLOOR_MODULE}\`), ${s.dynamodb_floor_kb} KB, init ${s.dynamodb_floor_cpu_ms} ms CPU; ` +
      `DynamoDB-only functions within ${INIT_LIMIT_MS.dynamodbOnly} ms CPU: ${s.dynamodb_only_within_target_cpu}/${s.dynamodb_only}; within ${INIT_LIMIT_MS.api} ms CPU: ${s.dynamodb_only_within_api_target_cpu}/${s.dynamodb_only}.`,
  ].join('\n');
  mkdirSync(join(root, 'bench-results'), { recursive: true });
  writeFileSync(join(root, 'bench-results/bundles.json'), JSON.stringify({ at: new Date().toISOString(), functions, summary }, null, 2));
  writeFileSync(join(root, 'bench-results/bundles.md'), `${md}\n`);
  console.log(`\n${md}\n`);
  return { functions, summary };
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) await benchBundles();
