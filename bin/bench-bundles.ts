/**
 * Cold-start budget of every Lambda function: the minified bundle esbuild produces with the deployed settings
 * (lib/constructs/service-function.ts `BUNDLING`), and its module init time — the median of 5 fresh Node
 * processes each importing the bundle once, with the deployed `NODE_OPTIONS`. Both SDK packagings are
 * measured: `@aws-sdk/*` left external (resolved from node_modules here, from the runtime in Lambda), and
 * bundled into the function as deployed (all but the credential providers Lambda never reaches).
 *   tsx bin/bench-bundles.ts          (also run by `npm run bench`)
 * Writes bench-results/bundles.json and bench-results/bundles.md.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { BUNDLING, REPO_ROOT } from '../lib/constructs/service-function.js';
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

type Variant = 'sdk_external' | 'sdk_bundled';

export interface BundleMeasure {
  module: string;
  kind: 'route' | 'authorizer' | 'worker' | 'data';
  dynamodb_only: boolean;
  init_target_ms: number;
  kb: Record<Variant, number>;
  init_ms: Record<Variant, number | string>;
  /** CPU time of the same imports (user + system): what the wall time is once no other process competes for a core. */
  init_cpu_ms: Record<Variant, number | string>;
}

/** Only DynamoDB: no queue, scheduler, mail, secret, API key or S3 binding (the tighter init target). */
function dynamodbOnly(b: Bindings): boolean {
  return !b.queues && !b.scheduler && !b.mail && !b.secrets && !b.apiKeys && !b.directorySource;
}

type FunctionToMeasure = Pick<BundleMeasure, 'module' | 'kind' | 'dynamodb_only'>;

function functionsToMeasure(): FunctionToMeasure[] {
  const byModule = new Map<string, FunctionToMeasure>();
  for (const r of ROUTES) byModule.set(r.module, { module: r.module, kind: 'route', dynamodb_only: (byModule.get(r.module)?.dynamodb_only ?? true) && dynamodbOnly(r.bindings) });
  byModule.set(API_KEY_AUTHORIZER.module, { module: API_KEY_AUTHORIZER.module, kind: 'authorizer', dynamodb_only: true });
  for (const q of QUEUE_LIST) byModule.set(q.worker.module, { module: q.worker.module, kind: 'worker', dynamodb_only: dynamodbOnly(q.worker.bindings) });
  byModule.set(DIRECTORY_IMPORT_MODULE, { module: DIRECTORY_IMPORT_MODULE, kind: 'data', dynamodb_only: false });
  byModule.set(INBOUND_MAIL_MODULE, { module: INBOUND_MAIL_MODULE, kind: 'data', dynamodb_only: false });
  return [...byModule.values()];
}

/** Every variable the stack may set, with placeholder values; endpoints on a closed loopback port. */
function lambdaLikeEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    NODE_OPTIONS: '--enable-source-maps',
    AWS_REGION: 'eu-west-1',
    AWS_ACCESS_KEY_ID: 'bench',
    AWS_SECRET_ACCESS_KEY: 'bench',
    AWS_ENDPOINT_URL: 'http://127.0.0.1:9',
    POWERTOOLS_SERVICE_NAME: 'people-outreach',
    LOG_LEVEL: 'INFO',
    SERVICE_STAGE: 'bench',
    SCHEDULER_GROUP_NAME: 'bench-schedules',
    SCHEDULER_ROLE_ARN: 'arn:aws:iam::000000000000:role/bench',
    TIMERS_QUEUE_ARN: 'arn:aws:sqs:eu-west-1:000000000000:bench-timers',
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

async function bundle(module: string, outfile: string, variant: Variant): Promise<number> {
  await build({
    entryPoints: [join(REPO_ROOT, module)],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: BUNDLING.target,
    mainFields: BUNDLING.mainFields,
    banner: { js: BUNDLING.banner },
    minify: BUNDLING.minify,
    sourcemap: BUNDLING.sourceMap,
    external: variant === 'sdk_external' ? ['@aws-sdk/*'] : BUNDLING.externalModules,
    logLevel: 'error',
  });
  return Math.round(statSync(outfile).size / 1024);
}

const IMPORT_ONCE =
  'const c=process.cpuUsage();const t=performance.now();await import(process.argv[1]);const w=performance.now()-t;const u=process.cpuUsage(c);' +
  'process.stdout.write(JSON.stringify([w,(u.user+u.system)/1000]));process.exit(0)';

const medianOf = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Median wall and CPU time of RUNS fresh processes importing the bundle, or why the import fails. */
function initMs(file: string, env: NodeJS.ProcessEnv): { wall: number | string; cpu: number | string } {
  const wall: number[] = [];
  const cpu: number[] = [];
  try {
    for (let i = 0; i < RUNS; i++) {
      const out = execFileSync(process.execPath, ['--input-type=module', '-e', IMPORT_ONCE, pathToFileURL(file).href], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
      const [w, c] = JSON.parse(out) as [number, number];
      wall.push(w);
      cpu.push(c);
    }
  } catch (e) {
    const why = `fails: ${String((e as { stderr?: string }).stderr ?? e).split('\n').find((l) => /Error/.test(l)) ?? 'error'}`;
    return { wall: why, cpu: why };
  }
  return { wall: Math.round(medianOf(wall)), cpu: Math.round(medianOf(cpu)) };
}

export async function benchBundles(root = REPO_ROOT): Promise<{ functions: BundleMeasure[]; summary: Record<Variant, Record<string, number>> }> {
  // Inside the repository, so an external `@aws-sdk/*` import resolves from its node_modules.
  const outdir = join(root, 'bench-results', 'bundles');
  rmSync(outdir, { recursive: true, force: true });
  const env = lambdaLikeEnv();
  const functions: BundleMeasure[] = [];
  for (const fn of functionsToMeasure()) {
    const kb = {} as Record<Variant, number>;
    const init = {} as Record<Variant, number | string>;
    const initCpu = {} as Record<Variant, number | string>;
    for (const variant of ['sdk_external', 'sdk_bundled'] as const) {
      const file = join(outdir, variant, fn.module.replace(/\.ts$/, '').replace(/[/.]/g, '_'), 'index.mjs');
      mkdirSync(join(file, '..'), { recursive: true });
      kb[variant] = await bundle(fn.module, file, variant);
      ({ wall: init[variant], cpu: initCpu[variant] } = initMs(file, env));
    }
    const measure: BundleMeasure = { ...fn, init_target_ms: fn.dynamodb_only ? INIT_LIMIT_MS.dynamodbOnly : INIT_LIMIT_MS.api, kb, init_ms: init, init_cpu_ms: initCpu };
    functions.push(measure);
    console.log(`  ${fn.module}: ${kb.sdk_external} KB / ${init.sdk_external} ms / ${initCpu.sdk_external} ms CPU (SDK external), ${kb.sdk_bundled} KB / ${init.sdk_bundled} ms / ${initCpu.sdk_bundled} ms CPU (SDK bundled)`);
  }
  rmSync(outdir, { recursive: true, force: true });

  const summary = {} as Record<Variant, Record<string, number>>;
  for (const variant of ['sdk_external', 'sdk_bundled'] as const) {
    const measured = (pick: (f: BundleMeasure) => number | string) => functions.map(pick).filter((x): x is number => typeof x === 'number');
    const within = (pick: (f: BundleMeasure) => number | string) => functions.filter((f) => typeof pick(f) === 'number' && (pick(f) as number) <= f.init_target_ms).length;
    summary[variant] = {
      functions: functions.length,
      median_kb: medianOf(functions.map((f) => f.kb[variant])),
      max_kb: Math.max(...functions.map((f) => f.kb[variant])),
      within_size: functions.filter((f) => f.kb[variant] <= BUNDLE_LIMIT_KB).length,
      median_init_ms: medianOf(measured((f) => f.init_ms[variant])),
      within_init_target: within((f) => f.init_ms[variant]),
      median_init_cpu_ms: medianOf(measured((f) => f.init_cpu_ms[variant])),
      within_init_target_cpu: within((f) => f.init_cpu_ms[variant]),
    };
  }

  const mark = (ok: boolean) => (ok ? '✓' : '✗');
  const rows = functions.map((f) => {
    const cells = (['sdk_external', 'sdk_bundled'] as const).map((v) => {
      const timed = (ms: number | string) => `${ms}${typeof ms === 'number' ? ` ${mark(ms <= f.init_target_ms)}` : ''}`;
      return `${f.kb[v]} ${mark(f.kb[v] <= BUNDLE_LIMIT_KB)} | ${timed(f.init_ms[v])} | ${timed(f.init_cpu_ms[v])}`;
    });
    return `| \`${f.module}\` | ${f.kind}${f.dynamodb_only ? ', DynamoDB only' : ''} | ≤ ${f.init_target_ms} | ${cells.join(' | ')} |`;
  });
  const s = summary;
  const md = [
    `Targets: bundle ≤ ${BUNDLE_LIMIT_KB} KB minified; module init ≤ ${INIT_LIMIT_MS.api} ms, ≤ ${INIT_LIMIT_MS.dynamodbOnly} ms for DynamoDB-only functions (median of ${RUNS} fresh Node ${process.version} processes, \`NODE_OPTIONS=--enable-source-maps\`).`,
    '',
    `Load average when measured: ${loadavg().map((l) => l.toFixed(1)).join(' / ')} on ${cpus().length} cores (wall time includes waiting for a core; CPU time does not).`,
    '',
    '| function | kind | init target ms | KB, SDK external | init ms | init CPU ms | KB, SDK bundled | init ms | init CPU ms |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    ...(['sdk_external', 'sdk_bundled'] as const).map(
      (v) =>
        `${v === 'sdk_external' ? 'SDK external' : 'SDK bundled'}: median ${s[v].median_kb} KB (max ${s[v].max_kb}), ${s[v].within_size}/${functions.length} within size; ` +
        `init median ${s[v].median_init_ms} ms wall (${s[v].within_init_target}/${functions.length} within target), ${s[v].median_init_cpu_ms} ms CPU (${s[v].within_init_target_cpu}/${functions.length} within target).`,
    ),
  ].join('\n');
  mkdirSync(join(root, 'bench-results'), { recursive: true });
  writeFileSync(join(root, 'bench-results/bundles.json'), JSON.stringify({ at: new Date().toISOString(), functions, summary }, null, 2));
  writeFileSync(join(root, 'bench-results/bundles.md'), `${md}\n`);
  console.log(`\n${md}\n`);
  return { functions, summary };
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) await benchBundles();
