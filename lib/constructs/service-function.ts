import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Annotations, ArnFormat, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Effect, ManagedPolicy, PolicyStatement, type IRole } from 'aws-cdk-lib/aws-iam';
import { Architecture, Code, Runtime, Tracing, type IEventSource } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IScheduleGroup } from 'aws-cdk-lib/aws-scheduler';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IUserPool } from 'aws-cdk-lib/aws-cognito';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import { ROUTE_LIMITS } from '../../shared/catalog/routes.js';
import { INDEX_ARTIFACT_PREFIX, TABLE_READ_ACTIONS, TABLE_WRITE_ACTIONS, type Bindings } from '../../shared/catalog/bindings.js';
import { QUEUES, type QueueKey } from '../../shared/catalog/queues.js';
import { TABLES, type TableKey } from '../../shared/catalog/tables.js';
import { KEY_THROTTLE_PREFIX, KEY_USE_ATTRIBUTE, KEY_USE_PARTITIONS } from '../../shared/accounts/accounts.keys.js';
import { once } from '../../shared/core/once.js';
import { METRICS_NAMESPACE_ENV, metricsNamespace } from '../../shared/core/metrics.js';

/** The repository root: catalogue module paths (`functions/…`) are relative to it. */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface ServiceFunctionProps {
  /** Handler module relative to the repo root, as written in the route or queue catalogue. */
  readonly module: string;
  /** Deployment stage (`dev`, `prod`…), exposed as `SERVICE_STAGE`. */
  readonly stage: string;
  /** `POWERTOOLS_SERVICE_NAME`. */
  readonly serviceName: string;
  readonly timeout?: Duration;
  readonly memorySize?: number;
  readonly logLevel?: string;
  readonly description?: string;
  /** Packages copied unbundled into the asset's node_modules (they read data files beside their code). */
  readonly runtimePackages?: string[];
  /** Repo-relative files the handler reads at run time, copied to the same relative path in the asset. */
  readonly assets?: string[];
  /**
   * Where Lambda puts an asynchronous invocation (an S3 notification) that failed all its retries. Functions
   * invoked synchronously or through an SQS event source have none (see the Serverless-LambdaDLQ acknowledgement).
   */
  readonly deadLetterQueue?: IQueue;
}

/** Context key of the memory cap of every function (`-c maxLambdaMemoryMb=10240`). */
export const MAX_LAMBDA_MEMORY_CONTEXT = 'maxLambdaMemoryMb';
/**
 * Lambda's memory ceiling without a quota increase: new accounts may not configure more than 3,008 MB, and a
 * function asking for more fails to deploy there.
 */
export const DEFAULT_MAX_LAMBDA_MEMORY_MB = 3008;

/** The memory cap from context (`maxLambdaMemoryMb`), 3008 when unset; Lambda's own range is 128–10240 MB. */
export function maxLambdaMemoryMb(scope: Construct): number {
  const raw: unknown = scope.node.tryGetContext(MAX_LAMBDA_MEMORY_CONTEXT);
  if (raw === undefined || raw === '') return DEFAULT_MAX_LAMBDA_MEMORY_MB;
  const mb = Number(raw);
  if (!Number.isInteger(mb) || mb < 128 || mb > 10240) throw new Error(`-c ${MAX_LAMBDA_MEMORY_CONTEXT}=${String(raw)}: an integer number of MB from 128 to 10240`);
  return mb;
}

/**
 * Context key of the cap on every SQS event source's concurrency (`-c maxWorkerConcurrency=2`). New accounts may
 * have a reduced concurrent-executions quota (often 10): an uncapped event source scales to it and starves the
 * API's functions (throttled, API Gateway answers 5xx). With the cap, each event source runs at most that many
 * containers at once, the catalogue's own caps lowered to it (docs/deploying.md "First deploy into a fresh account").
 */
export const MAX_WORKER_CONCURRENCY_CONTEXT = 'maxWorkerConcurrency';

/** The event-source cap from context (`maxWorkerConcurrency`), none when unset; Lambda's own range is 2–1000. */
export function maxWorkerConcurrency(scope: Construct): number | undefined {
  const raw: unknown = scope.node.tryGetContext(MAX_WORKER_CONCURRENCY_CONTEXT);
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 2 || n > 1000) throw new Error(`-c ${MAX_WORKER_CONCURRENCY_CONTEXT}=${String(raw)}: an integer from 2 to 1000 (an SQS event source's maximum concurrency)`);
  return n;
}

/**
 * An SQS event source's `maxConcurrency` prop: the catalogue's cap, lowered to `-c maxWorkerConcurrency`; none
 * (no cap) when neither sets one.
 */
export function eventSourceScaling(scope: Construct, catalogue: number | undefined): { maxConcurrency?: number } {
  const cap = maxWorkerConcurrency(scope);
  const max = cap === undefined ? catalogue : catalogue === undefined ? cap : Math.min(cap, catalogue);
  return max === undefined ? {} : { maxConcurrency: max };
}

/**
 * Context key for an account still in the SES sandbox (`-c sesSandbox=true`). There SES authorises a send against
 * each recipient's identity as well as the sender's, so a grant naming only the sender identities is refused even
 * for a verified recipient. With it the sending grant covers every identity of this account and region
 * (`identity/*`, the sandbox admitting only verified ones), still limited to the configured From addresses.
 */
export const SES_SANDBOX_CONTEXT = 'sesSandbox';

export function sesSandbox(scope: Construct): boolean {
  const raw: unknown = scope.node.tryGetContext(SES_SANDBOX_CONTEXT);
  if (raw === undefined || raw === '' || raw === false || raw === 'false') return false;
  if (raw === true || raw === 'true') return true;
  throw new Error(`-c ${SES_SANDBOX_CONTEXT}=${String(raw)}: true while the account is in the SES sandbox, false (the default) once it has production access`);
}

export interface SchedulerBinding {
  readonly group: IScheduleGroup;
  /** The role EventBridge Scheduler assumes to deliver a schedule to the timers queue. */
  readonly role: IRole;
  readonly timersQueue: IQueue;
  /** Where Scheduler puts a timer it could not deliver within its retry policy (the timers DLQ). */
  readonly timersDeadLetterQueue: IQueue;
}

export interface ApiKeysBinding {
  /**
   * Deterministic usage-plan name, looked up at run time. The usage-plan id cannot reach the function: the plan
   * depends on the API stage, the stage on the deployment, the deployment on the methods and the methods on this
   * function — a cycle. The one grant that needs the id (adding a key to the plan) is a standalone policy in the
   * API stack that nothing depends on (ApiStack).
   */
  readonly usagePlanName: string;
}

export { TABLE_READ_ACTIONS, TABLE_WRITE_ACTIONS };

/** Everything a catalogue `Bindings` object can point at. */
export interface BindingResources {
  readonly tables: Readonly<Record<TableKey, ITable>>;
  readonly queues: Readonly<Record<QueueKey, IQueue>>;
  readonly scheduler: SchedulerBinding;
  readonly secretBox: ISecret;
  readonly mailboxProviders: ISecret;
  readonly apiKeys: ApiKeysBinding;
  readonly directory: DirectorySourceBinding;
  /** SES identities (domains or addresses) mail may be sent from; none means no SES permission at all. */
  readonly mailIdentities: readonly string[];
  /** The SES configuration set every send names (lib/constructs/mail-events.ts). */
  readonly mailConfigurationSet: string;
  /** The web app's user pool (users of accounts). */
  readonly userPool: IUserPool;
  /** The Bedrock model or inference profile id of `languageModel` bindings; none leaves the binding without effect. */
  readonly languageModelId?: string;
}

/** Some of the resources a `Bindings` object can point at: what a construct outside the API stack has at hand. */
export type SomeBindingResources = Partial<Omit<BindingResources, 'tables' | 'queues'>> & {
  readonly tables?: Readonly<Partial<Record<TableKey, ITable>>>;
  readonly queues?: Readonly<Partial<Record<QueueKey, IQueue>>>;
};

export interface DirectorySourceBinding {
  readonly bucket: IBucket;
  /** The object the search index is built from (the same JSONL the import loads). */
  readonly key: string;
  /**
   * The bucket's ARN as an import of a named export (`directoryBucketArnExport`), for the one wildcard grant
   * (artifacts under `index/`): a named import is a value the cdk-nag acknowledgement can spell at construction.
   */
  readonly importedBucketArn?: string;
}

/** Name of the stateful stack's export of the import bucket's ARN. */
export const directoryBucketArnExport = (prefix: string) => `${prefix}-directory-bucket-arn`;

/**
 * Packages (or a package's subpath export) imported only with `import()`, on a path cold start does not take.
 * Each is bundled into a file of its own under the asset's node_modules, where that import finds it, so module
 * init neither parses nor evaluates it:
 * - X-Ray's tracer: the first AWS request (shared/adapters/aws-client.ts).
 * - Powertools' Metrics: the first flush of an invocation that counted something (shared/core/metrics.ts); the
 *   handler shell flushes at the end of every invocation, and a read route counts nothing. 13 KB a bundle.
 * - `@smithy/core/event-streams`: every SDK client's protocol imports it when an operation has an event stream
 *   (HttpProtocol); no operation the service calls has one. 15 KB a bundle. Bedrock's and S3's clients import
 *   it statically (for their event-stream operations), so the functions with them load it at init, from here
 *   (`npm run bench` counts it in their KB).
 * - `@smithy/credential-provider-imds`: the default credential chain imports it when the environment holds no
 *   credentials (EC2 or container metadata), which Lambda always sets. 7 KB a bundle.
 * - The HTML sanitiser and renderer (`sanitize-html`, `html-to-text`): shared/core/html.ts imports them at the
 *   first edit with `body_html`, test email or signature change (≈ 480 KB with htmlparser2 and postcss). The
 *   inbound mail function still loads `html-to-text` at init, through mailparser's static import, now from here.
 * - `file-type` (magic-byte detection): shared/test-emails/attachments.ts imports it at the first attachment
 *   a test email carries (38 KB with its tokenizer).
 * - The mailbox providers' clients: the Gmail API client with google-auth-library (≈ 400 KB), Microsoft Graph's
 *   client and openid-client, imported by shared/adapters/{gmail,graph}-mailbox.ts and oauth-client.ts at a
 *   mailbox's first call or the first OAuth step: the sending, timers and connect functions load only the
 *   provider an invocation reaches, and none when it sends by SES or SMTP.
 * - The disposable-domain and role-address lists (`disposable-email-domains-js`, ≈ 170 KB of JSON, and
 *   `role-based-email-addresses`): shared/email-status/address-lists.ts imports them at the first email status,
 *   which keeps the DynamoDB-only enrichment functions within their bundle target (test/infra/bundles.test.ts).
 * - `tldts` (the public-suffix list, ≈ 135 KB): shared/email-status/lookups.ts imports it at the first lookup
 *   budget check (contact checks, sequence eligibility).
 */
export const LAZY_PACKAGES = ['@aws-lambda-powertools/tracer', '@aws-lambda-powertools/metrics', '@smithy/core/event-streams', '@smithy/credential-provider-imds', 'sanitize-html', 'html-to-text', 'file-type', '@googleapis/gmail', '@microsoft/microsoft-graph-client', 'openid-client', 'disposable-email-domains-js', 'role-based-email-addresses', 'tldts'] as const;

/**
 * Lazy packages that are CommonJS: esbuild cannot re-export a CommonJS module's names with `export *` (the build
 * would export nothing), so each build names what the service imports; `default` is the module itself.
 */
const LAZY_CJS_EXPORTS: Partial<Record<(typeof LAZY_PACKAGES)[number], string>> = {
  'sanitize-html': 'default',
  '@googleapis/gmail': 'gmail',
  'disposable-email-domains-js': 'disposableEmailBlocklistSet',
  'role-based-email-addresses': 'default',
};

/** A lazy package's name and its subpath (`.` for the package itself): `@smithy/core/event-streams` → `@smithy/core`, `./event-streams`. */
export function splitPackageSpecifier(specifier: string): { name: string; subpath: string } {
  const parts = specifier.split('/');
  const n = specifier.startsWith('@') ? 2 : 1;
  const rest = parts.slice(n).join('/');
  return { name: parts.slice(0, n).join('/'), subpath: rest ? `./${rest}` : '.' };
}

const NODE_BUILTIN_SHIMS = join(REPO_ROOT, 'lib/constructs/node-builtins');

/**
 * Node's own modules, each bundled as the CommonJS module `process.getBuiltinModule` returns
 * (lib/constructs/node-builtins/), `bare=path` for esbuild's `--alias`, with and without the `node:` prefix.
 * An ESM `import` of a built-in makes Node build its ES module facade, which reads every export: on Node 22
 * that runs `node:http`'s lazy `WebSocket` getters and loads undici (≈ 45 ms CPU at every cold start, for a
 * client the service never uses), and `node:process` or `node:crypto` enumerate dozens of properties. A
 * CommonJS load reads nothing until the code does (`npm run bench`). Paths are relative to the repository
 * root, where CDK runs esbuild.
 */
export const NODE_BUILTIN_ALIASES = readdirSync(NODE_BUILTIN_SHIMS)
  .filter((f) => f.endsWith('.cjs'))
  .flatMap((f) => {
    const name = f.replace(/\.cjs$/, '').replace('-', '/');
    return [name, `node:${name}`].map((m) => `${m}=./lib/constructs/node-builtins/${f}`);
  });

/**
 * esbuild settings of every function, shared with `npm run bench` (bin/bench-bundles.ts) so the sizes and
 * init times it reports are those of the deployed bundles. Output is ESM (`index.mjs`).
 */
export const BUNDLING = {
  // Where a package publishes both, take its ESM build: tree-shakable, and no CommonJS interop shims.
  mainFields: ['module', 'main'],
  // Bundled CommonJS dependencies still call `require`; ESM output has none unless we make one (from the
  // CommonJS `module`, not an ES import of it: see NODE_BUILTIN_ALIASES).
  banner: "const require = process.getBuiltinModule('node:module').createRequire(import.meta.url);",
  minify: true,
  sourceMap: true,
  // Stack traces need the mappings, not the sources: without them the map is a third of the size.
  sourcesContent: false,
  // Traces are mapped when first formatted, not with `--enable-source-maps` at every cold start.
  inject: ['./lib/constructs/source-mapped-stacks.ts'],
  target: 'node22',
  // The AWS SDK is bundled rather than taken from the runtime: one minified file initialises 3–4× faster than
  // the SDK's many CommonJS modules (`npm run bench`, 34 functions). Left out: the credential providers the
  // default chain reaches, by `import()`, only when the environment holds no credentials, which Lambda always
  // sets (AWS_ACCESS_KEY_ID…); were they ever needed, the runtime's own SDK copy answers the import. −120 KB a
  // bundle. Only packages imported dynamically belong here: a static import of one (Bedrock's client imports
  // @aws-sdk/token-providers) would load the runtime's copy, of another version, at every cold start.
  externalModules: [
    '@aws-sdk/credential-provider-http',
    '@aws-sdk/credential-provider-ini',
    '@aws-sdk/credential-provider-login',
    '@aws-sdk/credential-provider-process',
    '@aws-sdk/credential-provider-sso',
    '@aws-sdk/credential-provider-web-identity',
    '@aws-sdk/nested-clients',
    // Bundled on their own beside index.mjs (lazyPackageCommands).
    ...LAZY_PACKAGES,
  ],
  esbuildArgs: { '--alias': NODE_BUILTIN_ALIASES },
};

/**
 * Shell commands that put each lazy package the bundle imports (its specifier appears in `<outDir>/index.mjs`)
 * into `<outDir>/node_modules/<package>/index.mjs`, built with the settings of the function bundles (CDK's
 * afterBundling hook, and `npm run bench`). An asset carries only the lazy packages its bundle can import, and
 * each is built once per checkout, not once per function: the build lands in a cache directory named by a hash
 * of the checkout's path, the esbuild settings, the entry and package-lock.json, and is copied from there.
 */
export function lazyPackageCommands(outDir: string): string[] {
  const bundle = `${outDir}/index.mjs`;
  const imported = (specifier: string) => `grep -qF '"${specifier}"' "${bundle}"`;
  // One package.json per package, whose `exports` map each lazy specifier of it to its file: ESM resolves a
  // subpath (`@smithy/core/event-streams`) only through `exports`, never to a directory's index.
  const byPackage = new Map<string, string[]>();
  for (const specifier of LAZY_PACKAGES) {
    const { name } = splitPackageSpecifier(specifier);
    byPackage.set(name, [...(byPackage.get(name) ?? []), specifier]);
  }
  const manifests = [...byPackage].map(([name, specifiers]) => {
    const exports = Object.fromEntries(specifiers.map((s) => splitPackageSpecifier(s).subpath).map((s) => [s, `${s}/index.mjs`]));
    const manifest = JSON.stringify({ type: 'module', exports });
    return `if ${specifiers.map(imported).join(' || ')}; then mkdir -p "${outDir}/node_modules/${name}" && printf '%s' '${manifest}' > "${outDir}/node_modules/${name}/package.json"; fi`;
  });
  const bundles = LAZY_PACKAGES.map((pkg) => {
    const { cached, build } = lazyPackageBuilds().get(pkg)!;
    const dir = `${outDir}/node_modules/${pkg}`;
    return `if ${imported(pkg)}; then { [ -f "${cached}/index.mjs" ] || { ${build}; }; } && mkdir -p "${dir}" && cp "${cached}/index.mjs" "${cached}/index.mjs.map" "${dir}/"; fi`;
  });
  return [...manifests, ...bundles];
}

/**
 * Each lazy package's cache directory and the command that builds it there, computed once per process (a synth
 * asks for every function's commands): the key hashes the checkout's path, the esbuild settings, the entry and
 * package-lock.json.
 */
const lazyPackageBuilds = once((): Map<string, { cached: string; build: string }> => {
  const esbuild = join(REPO_ROOT, 'node_modules', '.bin', 'esbuild');
  const flags = [
    '--bundle',
    '--platform=node',
    '--format=esm',
    `--target=${BUNDLING.target}`,
    `--main-fields=${BUNDLING.mainFields.join(',')}`,
    `--banner:js="${BUNDLING.banner}"`,
    '--minify',
    '--sourcemap',
    '--sources-content=false',
    ...BUNDLING.externalModules.filter((m) => !(LAZY_PACKAGES as readonly string[]).includes(m)).map((m) => `--external:${m}`),
    ...NODE_BUILTIN_ALIASES.map((a) => `--alias:${a}`),
    '--log-level=error',
  ].join(' ');
  const lock = readFileSync(join(REPO_ROOT, 'package-lock.json'));
  return new Map(
    LAZY_PACKAGES.map((pkg) => {
      const names = LAZY_CJS_EXPORTS[pkg];
      const entry = names ? `export { ${names} } from '${pkg}';` : `export * from '${pkg}';`;
      const key = createHash('sha256').update(REPO_ROOT).update(flags).update(entry).update(lock).digest('hex').slice(0, 16);
      const cached = join(tmpdir(), 'service-lazy-packages', key);
      // Built into a directory of its own, then renamed into place (POSIX sh): a concurrent build (two benches)
      // never leaves a half-written cache entry.
      const build =
        `t="${cached}.$$" && mkdir -p "$t" && printf "${entry}" | (cd "${REPO_ROOT}" && "${esbuild}" ${flags} --outfile="$t/index.mjs") && ` +
        `{ [ -e "${cached}" ] || mv "$t" "${cached}"; rm -rf "$t"; }`;
      return [pkg, { cached, build }];
    }),
  );
});

/** Shell commands that copy files of the repository into the asset at the same relative path (CDK's afterBundling hook). */
export function assetCopyCommands(outDir: string, files: readonly string[]): string[] {
  return files.map((file) => `mkdir -p "${dirname(join(outDir, file))}" && cp "${join(REPO_ROOT, file)}" "${join(outDir, file)}"`);
}

/**
 * The one Lambda function construct of the service (after Powertools' `FunctionWithLogGroup`): Node.js 22
 * on ARM64, X-Ray active, its own log group kept one month, source-mapped stack traces
 * (lib/constructs/source-mapped-stacks.ts), bundled locally by esbuild as ESM. `bind…` methods set the environment variable a handler reads and grant the least privilege it needs,
 * in one call, so the two can never drift apart.
 */
export class ServiceFunction extends NodejsFunction {
  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    const entry = join(REPO_ROOT, props.module);
    // When this stack is excluded from bundling (`cdk synth -e Other`, the infra tests), CDK never builds the
    // asset anyway; a placeholder keeps synth independent of handler sources that may not be written yet.
    const skipBundling = !Stack.of(scope).bundlingRequired && !existsSync(entry);
    const wantedMemory = props.memorySize ?? 512;
    const memoryCap = maxLambdaMemoryMb(scope);
    super(scope, id, {
      entry,
      // A bundled entry becomes `index.mjs`, so both forms synthesise to `Handler: index.handler`.
      handler: skipBundling ? 'index.handler' : 'handler',
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      tracing: Tracing.ACTIVE,
      memorySize: Math.min(wantedMemory, memoryCap),
      timeout: props.timeout ?? Duration.seconds(ROUTE_LIMITS.defaultTimeoutSeconds),
      ...(props.deadLetterQueue ? { deadLetterQueue: props.deadLetterQueue } : {}),
      description: props.description ?? props.module,
      projectRoot: REPO_ROOT,
      depsLockFilePath: join(REPO_ROOT, 'package-lock.json'),
      ...(skipBundling ? { code: Code.fromInline('// bundling skipped for this stack') } : {}),
      logGroup: new LogGroup(scope, `${id}Logs`, {
        retention: RetentionDays.ONE_MONTH,
        // Function logs are operational, not records: they go with the function instead of piling up.
        removalPolicy: RemovalPolicy.DESTROY,
      }),
      environment: {
        POWERTOOLS_SERVICE_NAME: props.serviceName,
        // Where the service's own metrics go (shared/core/metrics.ts); the alarms on them read the same namespace.
        [METRICS_NAMESPACE_ENV]: metricsNamespace(props.serviceName, props.stage),
        LOG_LEVEL: props.logLevel ?? 'INFO',
        SERVICE_STAGE: props.stage,
      },
      bundling: {
        forceDockerBundling: false,
        format: OutputFormat.ESM,
        ...BUNDLING,
        commandHooks: {
          beforeBundling: () => [],
          beforeInstall: () => [],
          afterBundling: (_in: string, out: string) => [
            ...lazyPackageCommands(out),
            // Offline and Docker-free: copy the installed packages rather than `npm install` them.
            ...(props.runtimePackages ?? []).map((p) => `mkdir -p "${out}/node_modules" && cp -r "${join(REPO_ROOT, 'node_modules', p)}" "${out}/node_modules/"`),
            ...assetCopyCommands(out, props.assets ?? []),
          ],
        },
      },
    });

    if (wantedMemory > memoryCap) {
      Annotations.of(this).addWarningV2(
        'people-outreach:lambda-memory-cap',
        `${props.module} asks for ${wantedMemory} MB; capped at ${memoryCap} MB by ${MAX_LAMBDA_MEMORY_CONTEXT}. Raise it with -c ${MAX_LAMBDA_MEMORY_CONTEXT}=${wantedMemory} once the account's Lambda memory quota allows.`,
      );
    }

    const basicRole = ManagedPolicy.fromAwsManagedPolicyName('service-role/AWSLambdaBasicExecutionRole');
    Validations.of(this).acknowledge(
      {
        id: nagFinding(this, 'AwsSolutions-IAM4', 'Policy', basicRole.managedPolicyArn),
        reason: 'AWSLambdaBasicExecutionRole only lets the function write its own CloudWatch logs.',
      },
      {
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason: 'X-Ray PutTraceSegments/PutTelemetryRecords (active tracing) accept no resource narrower than *.',
      },
      {
        id: 'AwsSolutions-L1',
        reason: 'docs/decisions.md#shape pins the Lambda runtime to Node.js 22, the version the code and its tests target.',
      },
      {
        id: 'Serverless-LambdaLatestVersion',
        reason: 'docs/decisions.md#shape pins the Lambda runtime to Node.js 22, the version the code and its tests target.',
      },
    );
    if (!props.deadLetterQueue) {
      Validations.of(this).acknowledge({
        id: 'Serverless-LambdaDLQ',
        reason:
          'Invoked synchronously (API Gateway), through an SQS event source whose queue has its own dead-letter queue, or by a schedule whose next run supersedes a failed one (with the error alarm), never by an event that would otherwise be lost.',
      });
    }
  }

  /** An SQS source's failures go to the queue's own dead-letter queue (redrive policy), the only kind SQS has. */
  override addEventSource(source: IEventSource): void {
    super.addEventSource(source);
    if (source instanceof SqsEventSource) {
      Validations.of(this).acknowledge({
        id: 'Serverless-LambdaEventSourceMappingDestination',
        reason: 'Lambda supports on-failure destinations only for stream and Kafka sources; an SQS source gives up through its queue’s redrive policy to a dead-letter queue.',
      });
    }
  }

  /**
   * Table name in `TABLES[key].env`; `read` grants reads only, `readwrite` adds the writes. Transactions need
   * no action of their own: DynamoDB authorises each item of a transaction by its Get/Put/Update/Delete.
   * The indexes are granted by name from the catalogue, not `index/*` as `grantReadData` would.
   */
  bindTable(table: ITable, key: TableKey, mode: 'read' | 'readwrite'): void {
    this.addEnvironment(TABLES[key].env, table.tableName);
    this.addToRolePolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: mode === 'read' ? [...TABLE_READ_ACTIONS] : [...TABLE_READ_ACTIONS, ...TABLE_WRITE_ACTIONS],
        resources: [table.tableArn, ...TABLES[key].gsis.map((gsi) => `${table.tableArn}/index/${gsi.name}`)],
      }),
    );
  }

  /**
   * UpdateItem on the accounts table only for items whose partition key is a per-key token bucket
   * (`RATE#…`): a handler that throttles per key cannot touch key records, balances or anything else.
   */
  bindKeyThrottle(accounts: ITable): void {
    this.addToRolePolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: ['dynamodb:UpdateItem'],
        resources: [accounts.tableArn],
        conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${KEY_THROTTLE_PREFIX}*`] } },
      }),
    );
  }

  /**
   * UpdateItem on the accounts table limited to the attribute `last_used_at` (with the key attributes every
   * request names; IAM's "allows access to specific attributes" example), on key lookup and account items,
   * returning nothing: a route
   * that only reads the accounts table can record a key's use and change nothing else. DynamoDB authorises
   * each item of the transaction by this UpdateItem grant.
   */
  bindKeyUse(accounts: ITable): void {
    this.addToRolePolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: ['dynamodb:UpdateItem'],
        resources: [accounts.tableArn],
        conditions: {
          'ForAllValues:StringEquals': { 'dynamodb:Attributes': ['pk', 'sk', KEY_USE_ATTRIBUTE] },
          'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': KEY_USE_PARTITIONS },
          StringEqualsIfExists: { 'dynamodb:ReturnValues': 'NONE' },
        },
      }),
    );
  }

  /** Queue URL and ARN in the catalogue's env vars; send only. */
  bindQueue(queue: IQueue, key: QueueKey): void {
    const def = QUEUES[key];
    this.addEnvironment(def.urlEnv, queue.queueUrl);
    this.addEnvironment(def.arnEnv, queue.queueArn);
    queue.grantSendMessages(this);
  }

  /** Manage one-time schedules in the service's group only, and hand Scheduler its delivery role only. */
  bindScheduler({ group, role, timersQueue, timersDeadLetterQueue }: SchedulerBinding): void {
    this.addEnvironment('SCHEDULER_GROUP_NAME', group.scheduleGroupName);
    this.addEnvironment('SCHEDULER_ROLE_ARN', role.roleArn);
    this.addEnvironment('TIMERS_QUEUE_ARN', timersQueue.queueArn);
    this.addEnvironment('TIMERS_DLQ_ARN', timersDeadLetterQueue.queueArn);
    this.addToRolePolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: ['scheduler:CreateSchedule', 'scheduler:UpdateSchedule', 'scheduler:DeleteSchedule', 'scheduler:GetSchedule'],
        resources: [ServiceFunction.scheduleArnPattern(this, group.scheduleGroupName)],
      }),
    );
    Validations.of(this).acknowledge({
      id: nagFinding(this, 'AwsSolutions-IAM5', 'Resource', ServiceFunction.scheduleArnPattern(this, group.scheduleGroupName)),
      reason: 'Schedule names are created at run time (one per send slot, timeout or retry); the grant is confined to the service schedule group.',
    });
    this.addToRolePolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: ['iam:PassRole'],
        resources: [role.roleArn],
        conditions: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
      }),
    );
  }

  /**
   * Send mail through SES from the listed identities only (context `sesIdentities`): the identity ARNs as
   * resources, and `ses:FromAddress` limited to addresses of those domains, so a compromised worker cannot send
   * as another verified identity of the account. With no identity listed the function gets no SES permission.
   * Sends name the configuration set that publishes bounces and complaints (`SES_CONFIGURATION_SET`).
   */
  bindMail(identities: readonly string[], configurationSet: string): void {
    if (identities.length === 0) {
      Annotations.of(this).addWarningV2('people-outreach:ses-identities', 'No sesIdentities context: this function may not send through SES.');
      return;
    }
    this.addEnvironment('SES_CONFIGURATION_SET', configurationSet);
    // In the SES sandbox a send is authorised against each recipient's identity too (a verified address or
    // domain of this account): `-c sesSandbox=true` grants every identity here, the From addresses still limited.
    const sandboxed = sesSandbox(this);
    const anyIdentity = ServiceFunction.sesIdentityArn(this, '*');
    this.addToRolePolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: ['ses:SendEmail', 'ses:SendRawEmail'],
        // A send that names a configuration set is authorised against the set as well as the identity.
        resources: [...(sandboxed ? [anyIdentity] : identities.map((identity) => ServiceFunction.sesIdentityArn(this, identity))), ServiceFunction.sesConfigurationSetArn(this, configurationSet)],
        conditions: { StringLike: { 'ses:FromAddress': identities.map((i) => (i.includes('@') ? i : `*@${i}`)) } },
      }),
    );
    if (sandboxed) {
      Validations.of(this).acknowledge({
        id: nagFinding(this, 'AwsSolutions-IAM5', 'Resource', anyIdentity),
        reason: 'In the SES sandbox SES authorises a send against each (verified) recipient identity as well as the sender; the From addresses stay limited to sesIdentities. Only while -c sesSandbox=true.',
      });
    }
  }

  /** ARN of the secret-box key in `SECRET_BOX_SECRET_ARN`; read only. */
  bindSecrets(secret: ISecret): void {
    this.addEnvironment('SECRET_BOX_SECRET_ARN', secret.secretArn);
    secret.grantRead(this);
  }

  /** ARN of the mailbox providers' OAuth clients in `MAILBOX_PROVIDERS_SECRET_ARN`; read only. */
  bindMailboxProviders(secret: ISecret): void {
    this.addEnvironment('MAILBOX_PROVIDERS_SECRET_ARN', secret.secretArn);
    secret.grantRead(this);
  }

  /**
   * Query understanding and evidence judgement by a Bedrock model (shared/understanding/understanding.ts): the
   * switch and the model id, and `bedrock:InvokeModel` on that model or inference profile only.
   */
  bindLanguageModel(modelId: string): void {
    this.addEnvironment('LANGUAGE_MODEL', 'bedrock');
    this.addEnvironment('LANGUAGE_MODEL_ID', modelId);
    grantBedrockInvoke(this, modelId);
  }

  /** Read the directory JSONL and the search index artifacts of its versions (`index/…`). */
  bindDirectorySource({ bucket, key }: DirectorySourceBinding): void {
    this.addEnvironment('DIRECTORY_BUCKET', bucket.bucketName);
    this.addEnvironment('DIRECTORY_KEY', key);
    // Read only, the directory object and the index prefix: narrower than bucket.grantRead, whose Get*/List*
    // wildcards cdk-nag rejects.
    // From another stack, the bucket is named through its export, so the acknowledgement below can name the
    // finding exactly as cdk-nag words it.
    const bucketStack = Stack.of(bucket);
    const bucketArn = bucketStack === Stack.of(this) ? bucket.bucketArn : bucketStack.exportValue(bucket.bucketArn);
    const artifacts = `${bucketArn}/${INDEX_ARTIFACT_PREFIX}*`;
    this.addToRolePolicy(new PolicyStatement({ effect: Effect.ALLOW, actions: ['s3:GetObject'], resources: [bucket.arnForObjects(key), artifacts] }));
    // Listing under the prefix only, so that a missing artifact answers 404 (without it S3 answers 403).
    this.addToRolePolicy(
      new PolicyStatement({ effect: Effect.ALLOW, actions: ['s3:ListBucket'], resources: [bucket.bucketArn], conditions: { StringLike: { 's3:prefix': `${INDEX_ARTIFACT_PREFIX}*` } } }),
    );
    Validations.of(this).acknowledge({
      id: nagFinding(this, 'AwsSolutions-IAM5', 'Resource', artifacts),
      reason: 'Each directory version names its own index artifact; the search worker may read only objects under the index prefix.',
    });
  }

  /**
   * A directory import's access to the import bucket: any version of the directory object (chunks read one
   * version by range); with `readwrite` also the search index artifacts under `index/`. Nothing else.
   */
  bindDirectoryImport({ bucket, key, importedBucketArn }: DirectorySourceBinding, mode: 'read' | 'readwrite'): void {
    this.addEnvironment('DIRECTORY_BUCKET', bucket.bucketName);
    this.addEnvironment('DIRECTORY_KEY', key);
    this.addToRolePolicy(new PolicyStatement({ effect: Effect.ALLOW, actions: ['s3:GetObject', 's3:GetObjectVersion'], resources: [bucket.arnForObjects(key)] }));
    if (mode === 'readwrite') {
      if (!importedBucketArn) throw new Error('writing directory artifacts needs the bucket ARN export');
      const artifacts = `${importedBucketArn}/index/*`;
      // DeleteObject: a superseded version's artifact is deleted by the finalize step (finalize-import.ts).
      this.addToRolePolicy(new PolicyStatement({ effect: Effect.ALLOW, actions: ['s3:PutObject', 's3:DeleteObject'], resources: [artifacts] }));
      Validations.of(this).acknowledge({
        id: nagFinding(this, 'AwsSolutions-IAM5', 'Resource', artifacts),
        reason: 'Search index artifacts are named by the directory version an import computes at run time; the grant is PutObject and DeleteObject under index/ only.',
      });
    }
  }

  /**
   * Create and delete API keys and find the usage plan by name (GetUsagePlans reads the plan collection; no
   * finer resource exists for a lookup by name). Adding a key to the plan is granted by id in ApiStack.
   */
  bindApiKeys({ usagePlanName }: ApiKeysBinding): void {
    this.addEnvironment('USAGE_PLAN_NAME', usagePlanName);
    const [usagePlans, apiKeys, anyApiKey] = ['/usageplans', '/apikeys', '/apikeys/*'].map((p) => ServiceFunction.apiGatewayArn(this, p)) as [string, string, string];
    this.addToRolePolicy(new PolicyStatement({ effect: Effect.ALLOW, actions: ['apigateway:GET'], resources: [usagePlans] }));
    // GET /apikeys: a rolled-back create finds the API Gateway key it may have left by its name (api-keys.repository.ts).
    this.addToRolePolicy(new PolicyStatement({ effect: Effect.ALLOW, actions: ['apigateway:GET'], resources: [apiKeys] }));
    this.addToRolePolicy(new PolicyStatement({ effect: Effect.ALLOW, actions: ['apigateway:POST'], resources: [apiKeys] }));
    this.addToRolePolicy(new PolicyStatement({ effect: Effect.ALLOW, actions: ['apigateway:DELETE'], resources: [anyApiKey] }));
    Validations.of(this).acknowledge({
      id: nagFinding(this, 'AwsSolutions-IAM5', 'Resource', anyApiKey),
      reason: 'API key ids are generated by API Gateway at run time; the grant is DELETE on keys only, never on plans or APIs.',
    });
  }

  /** Add users to the web app's pool with a permanent password; nothing else of Cognito. */
  bindUserPool(pool: IUserPool): void {
    this.addEnvironment('USER_POOL_ID', pool.userPoolId);
    this.addToRolePolicy(new PolicyStatement({ effect: Effect.ALLOW, actions: ['cognito-idp:AdminCreateUser', 'cognito-idp:AdminSetUserPassword'], resources: [pool.userPoolArn] }));
  }

  /** One alarm on any error of this function, to the operators' topic (1 resource per function). */
  alarmOnErrors(topic: ITopic): Alarm {
    const alarm = new Alarm(this, 'Errors', {
      alarmDescription: `${this.node.path}: invocation errors`,
      metric: this.metricErrors({ period: Duration.minutes(5), statistic: 'Sum' }),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    alarm.addAlarmAction(new SnsAction(topic));
    return alarm;
  }

  /**
   * Apply a catalogue `Bindings` object: the single path from the route, queue and function catalogues to grants.
   * A construct outside the API stack (the S3-fed functions of the stateful stack) hands over only the resources
   * it has; a binding whose resource it did not hand over fails the synth, naming both.
   */
  static applyBindings(fn: ServiceFunction, bindings: Bindings, resources: SomeBindingResources): void {
    const need = <T>(value: T | undefined, what: string): T => {
      if (value === undefined) throw new Error(`${fn.node.path}: its catalogue bindings need ${what}, which its construct was not given`);
      return value;
    };
    for (const [key, mode] of Object.entries(bindings.tables ?? {}) as [TableKey, 'read' | 'readwrite'][]) {
      fn.bindTable(need(resources.tables?.[key], `the ${key} table`), key, mode);
    }
    for (const key of Object.keys(bindings.queues ?? {}) as QueueKey[]) {
      fn.bindQueue(need(resources.queues?.[key], `the ${key} queue`), key);
    }
    if (bindings.scheduler) fn.bindScheduler(need(resources.scheduler, 'the Scheduler group'));
    if (bindings.keyThrottle) fn.bindKeyThrottle(need(resources.tables?.accounts, 'the accounts table'));
    if (bindings.keyUse) fn.bindKeyUse(need(resources.tables?.accounts, 'the accounts table'));
    if (bindings.mail) fn.bindMail(need(resources.mailIdentities, 'the SES identities'), need(resources.mailConfigurationSet, 'the SES configuration set'));
    if (bindings.secrets) fn.bindSecrets(need(resources.secretBox, 'the secret-box key'));
    if (bindings.mailboxProviders) fn.bindMailboxProviders(need(resources.mailboxProviders, "the mailbox providers' secret"));
    if (bindings.apiKeys) fn.bindApiKeys(need(resources.apiKeys, 'the usage plan'));
    if (bindings.directorySource) fn.bindDirectorySource(need(resources.directory, 'the directory bucket'));
    if (bindings.userPool) fn.bindUserPool(need(resources.userPool, 'the user pool'));
    if (bindings.directoryImport) fn.bindDirectoryImport(need(resources.directory, 'the directory bucket'), bindings.directoryImport);
    if (bindings.languageModel && resources.languageModelId) fn.bindLanguageModel(resources.languageModelId);
  }

  /** `arn:…:scheduler:<region>:<account>:schedule/<group>/*`, also used to word the cdk-nag acknowledgement. */
  static scheduleArnPattern(scope: Construct, groupName: string): string {
    return Stack.of(scope).formatArn({
      service: 'scheduler',
      resource: 'schedule',
      resourceName: `${groupName}/*`,
      arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
    });
  }

  static sesIdentityArn(scope: Construct, identity: string): string {
    return Stack.of(scope).formatArn({ service: 'ses', resource: 'identity', resourceName: identity, arnFormat: ArnFormat.SLASH_RESOURCE_NAME });
  }

  static sesConfigurationSetArn(scope: Construct, name: string): string {
    return Stack.of(scope).formatArn({ service: 'ses', resource: 'configuration-set', resourceName: name, arnFormat: ArnFormat.SLASH_RESOURCE_NAME });
  }

  /** API Gateway management resources have no account field: `arn:…:apigateway:<region>::/apikeys`. */
  static apiGatewayArn(scope: Construct, path: string): string {
    const { partition, region } = Stack.of(scope);
    return `arn:${partition}:apigateway:${region}::${path}`;
  }
}

/**
 * Prefixes of Amazon Bedrock's system-defined cross-Region inference profile ids (`us.anthropic.claude-…`): the
 * geographies and `global`. A model id without one of them is a foundation model, invoked in this region.
 */
export const INFERENCE_PROFILE_PREFIXES: readonly string[] = ['us', 'us-gov', 'eu', 'apac', 'jp', 'au', 'ca', 'global'];

/** `us.anthropic.claude-x` → `{prefix: 'us', model: 'anthropic.claude-x'}`; a foundation model id → undefined. */
export function inferenceProfileOf(modelId: string): { prefix: string; model: string } | undefined {
  const dot = modelId.indexOf('.');
  const prefix = modelId.slice(0, Math.max(dot, 0));
  return dot > 0 && INFERENCE_PROFILE_PREFIXES.includes(prefix) ? { prefix, model: modelId.slice(dot + 1) } : undefined;
}

/**
 * Foundation-model id prefixes of models Amazon Bedrock serves on demand only through a cross-Region inference
 * profile, in every commercial region ("Supported foundation models in Amazon Bedrock": no single-region
 * support; "Supported Regions and models for inference profiles"). Their bare id passes synth and IAM, then every
 * call fails: "Invocation of model ID … with on-demand throughput isn't supported. Retry your request with the ID
 * or ARN of an inference profile that contains this model." Models that run in some regions only (Claude 3.5
 * Sonnet v2) are not listed: a bare id of those is right where the region serves it.
 */
export const PROFILE_ONLY_MODEL_PREFIXES: readonly string[] = [
  'anthropic.claude-3-7-sonnet',
  'anthropic.claude-sonnet-4',
  'anthropic.claude-opus-4',
  'anthropic.claude-haiku-4-5',
  'amazon.nova-premier',
  'meta.llama4',
  'deepseek.r1',
];

/**
 * Refuses, at synth, a bare model id (context `contextKey`) of a model that runs only through an inference
 * profile, naming the profile ids to use instead.
 */
export function assertInvocableModelId(contextKey: string, modelId: string): void {
  if (inferenceProfileOf(modelId)) return;
  const prefix = PROFILE_ONLY_MODEL_PREFIXES.find((p) => modelId.startsWith(p));
  if (!prefix) return;
  throw new Error(
    `-c ${contextKey}=${modelId}: Amazon Bedrock runs ${prefix}… only through a cross-Region inference profile, so every call with this bare id would fail. ` +
      `Use the profile id instead: us.${modelId}, eu.${modelId}, apac.${modelId} or global.${modelId}, as the stack's region offers it (docs/deploying.md "First deploy into a fresh account").`,
  );
}

/**
 * `bedrock:InvokeModel` (which the Converse API is authorised by) for `bedrockModelId`. A foundation model id: that
 * model in this region. An inference profile id, as Bedrock's "Prerequisites for inference profiles" and its
 * cross-Region IAM examples set out: the profile in this region, and the profile's model in every region the
 * profile may route to, only when the request comes through this profile (`bedrock:InferenceProfileArn`). The
 * destination regions of a profile change as AWS adds them, so the model is named in any region (`*`), bounded
 * by that condition; a `global.` profile also routes to the region-less model ARN.
 */
export function grantBedrockInvoke(fn: ServiceFunction, modelId: string): void {
  const stack = Stack.of(fn);
  const foundationModel = (region: string, model: string) => stack.formatArn({ service: 'bedrock', region, account: '', resource: 'foundation-model', resourceName: model });
  const profile = inferenceProfileOf(modelId);
  if (!profile) {
    fn.addToRolePolicy(new PolicyStatement({ effect: Effect.ALLOW, actions: ['bedrock:InvokeModel'], resources: [foundationModel(stack.region, modelId)] }));
    return;
  }
  const profileArn = stack.formatArn({ service: 'bedrock', resource: 'inference-profile', resourceName: modelId });
  const anyRegionModel = foundationModel('*', profile.model);
  fn.addToRolePolicy(new PolicyStatement({ effect: Effect.ALLOW, actions: ['bedrock:InvokeModel'], resources: [profileArn] }));
  fn.addToRolePolicy(
    new PolicyStatement({
      effect: Effect.ALLOW,
      actions: ['bedrock:InvokeModel'],
      resources: [anyRegionModel, ...(profile.prefix === 'global' ? [foundationModel('', profile.model)] : [])],
      conditions: { StringEquals: { 'bedrock:InferenceProfileArn': profileArn } },
    }),
  );
  Validations.of(fn).acknowledge({
    id: nagFinding(fn, 'AwsSolutions-IAM5', 'Resource', anyRegionModel),
    reason: 'A cross-Region inference profile routes to the model in regions AWS may add; the grant names one model and holds only for requests made through this profile.',
  });
}

/**
 * The id cdk-nag gives one finding (`AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:…]`), computed from the
 * same value the policy holds, so an acknowledgement follows the grant it excuses (stage prefix, region).
 * Tokens are flattened the way cdk-nag does (`Ref` → `<Name>`, `Fn::GetAtt` → `<Res.Attr>`); only values that
 * are not imported from another stack resolve here as they do in the template.
 */
export function nagFinding(scope: Construct, rule: string, kind: 'Resource' | 'Policy' | 'Action', value: string): string {
  return `${rule}[${kind}::${flattenCfn(Stack.of(scope).resolve(value))}]`;
}

function flattenCfn(node: unknown): string {
  if (typeof node === 'string') return node.replace(/\$\{/g, '<').replace(/\}/g, '>');
  if (node && typeof node === 'object') {
    const o = node as Record<string, unknown>;
    if ('Fn::Join' in o) {
      const [delimiter, items] = o['Fn::Join'] as [string, unknown[]];
      return items.map(flattenCfn).join(delimiter);
    }
    if ('Ref' in o) return `<${flattenCfn(o['Ref'])}>`;
    if ('Fn::ImportValue' in o) return flattenCfn(o['Fn::ImportValue']);
    if ('Fn::GetAtt' in o) {
      const [res, attr] = o['Fn::GetAtt'] as [unknown, unknown];
      return `<${flattenCfn(res)}.${flattenCfn(attr)}>`;
    }
  }
  return JSON.stringify(node);
}
