import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import { CreateTableCommand, DeleteTableCommand, DescribeTableCommand, DynamoDBClient, ResourceNotFoundException, UpdateTableCommand, type CreateTableCommandInput } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { createSqsServer } from 'local-aws-sqs';
import * as sesModule from 'aws-ses-v2-local';
import { TABLE_LIST, type TableDef } from '../catalog/tables.js';
import { DEAD_LETTERS, QUEUE_LIST, SWEEPER, queueName, type QueueKey } from '../catalog/queues.js';
import { resetClients } from '../adapters/aws.js';
import { resetSecretBox } from '../adapters/secret-box.js';
import { privateDir } from './private-dir.js';
import { decorateDrafters } from '../outreach/drafter.js';
import { withFailureMarker } from './failing-drafter.js';
import { ensureListCursorKey } from '../outreach/cursor-key-maker.repository.js';
import { serviceClock, setServiceClockOffset } from '../core/clock.js';
import { freePort, startDynamoLocal, type DynamoLocal } from './processes.js';
import { startSchedulerEmulator, type SchedulerEmulator } from './scheduler-emulator.js';
import { startEventSourceRunner, type EventSourceRunner } from './event-source-runner.js';
import { loadHandler, startGateway } from './gateway.js';
import { devControls, sweepAsSweeper } from './dev-controls.js';
import type { InboundDelivery } from './dev-inbound.js';
import { startMailProviderEmulator, type MailProviderEmulator } from './oauth-emulator.js';
import type { SqsHandler } from './event-source-runner.js';
import { logger } from '../core/logger.js';
import { startSesCapture, startSmtpSink, type CapturedSend } from './ses-capture.js';
import { startSampleWeb, type SampleWeb } from './sample-web.js';
import { startLocalUserPool, type LocalUserPool } from './cognito-local.js';
import { userTokenVerifier } from './user-authorizer.js';
import { APP_PATH, buildWebApp, webAppSite } from './web-app.js';
import { APP_BASE, PUBLIC_BASE } from '../catalog/routes.js';
import { PRIVACY_PAGE_PATH } from '../catalog/web-app.js';
import { startupPhase } from './startup-trace.js';
import { once } from '../core/once.js';
import { enforceFunctionGrants, overrideBindings } from './function-context.js';
import { startS3Emulator } from './s3-emulator.js';
import { startInboundSmtp, type InboundSmtp } from './inbound-smtp.js';
import { INBOUND_MAIL_BUCKET } from './iam.js';
import type { Bindings } from '../catalog/bindings.js';
import { MetricsLog } from './metrics-log.js';
import { METRICS_NAMESPACE_ENV, metricsNamespace, serviceName, setLocalMetricsLog } from '../core/metrics.js';

/**
 * The one-machine twin: DynamoDB Local, local-aws-sqs, aws-ses-v2-local, the S3 and Scheduler emulators and
 * SES receiving's SMTP endpoint on loopback ports, the real SDK clients pointed at them with
 * AWS_ENDPOINT_URL_*, tables and queues created from the catalogues, the local gateway serving the route
 * table, and the event-source runner feeding the workers. Used by `npm start`, the integration tests and
 * the end-to-end tests alike.
 */
export interface LocalStackOptions {
  root: string;
  /** Persist under this directory; null keeps everything in memory (tests). */
  dataDir: string | null;
  port?: number;
  adminToken?: string;
  /** Serve HTTP (gateway) and run workers; integration tests may want only the stand-ins. */
  gateway?: boolean;
  workers?: boolean;
  webhookAllowLoopback?: boolean;
  /** Visibility timeout override for local queues, so retries happen in seconds rather than minutes. */
  visibilityTimeoutSeconds?: number;
  /**
   * Per consumer (a queue's worker, or `dead-letters`): a timeout other than the catalogue's, and a handler
   * module (relative to `root`) other than the catalogue's, so tests can time out a worker in seconds.
   */
  workerTimeoutMs?: Partial<Record<ConsumerKey, number>>;
  workerModules?: Partial<Record<ConsumerKey, string>>;
  /** Local-only: multiply every route's throttle (tests of other behaviour use a large value; default 1). */
  throttleMultiplier?: number;
  /**
   * A DynamoDB Local its caller started already (with `dbPath` under `dataDir`), so the JVM's start-up overlaps
   * the loading of this module; the stack stops it with the rest.
   */
  dynamoLocal?: Promise<DynamoLocal>;
  /** Hold the public API (503) and readiness until `setReady()`, e.g. while the directory is imported. */
  gated?: boolean;
  /** Seconds between the twin's mailbox polls (default MAILBOX_POLL_SECONDS or 10); 0: only on settle, clock and dev/inbound. */
  mailboxPollSeconds?: number;
  /**
   * Run the web app's user pool (cognito-local), verify `user` routes' tokens through its JWKS, and build and
   * serve the web app at /app/. `npm start` does; tests that drive the app or its API ask for it.
   */
  userPool?: boolean;
  /**
   * In memory only: use this running DynamoDB Local (started `namespaced`) under its own access key id instead
   * of starting a JVM (DynamoDB Local accepts only letters and digits in a key id); the stack deletes its tables
   * when it stops.
   */
  dynamodb?: { endpoint: string; accessKeyId: string };
  env?: Record<string, string>;
  /**
   * Bindings other than the catalogue's for some functions, by name (shared/catalog/functions.ts): tests take
   * one grant away and see the call refused as IAM would refuse it.
   */
  grants?: Record<string, Bindings>;
  /**
   * The loopback port of the receiving MX (SES receiving's stand-in, shared/local/inbound-smtp.ts): `npm start`
   * passes INBOUND_SMTP_PORT (default 2525); default any free port (tests).
   */
  inboundSmtpPort?: number;
}

export interface LocalStack {
  baseUrl: string;
  consoleUrl: string;
  port: number;
  adminToken: string;
  endpoints: { dynamodb: string; sqs: string; ses: string; scheduler: string; smtp: string; s3: string; inboundSmtp: string };
  /** Logins the SMTP sink checks (login → password); any other login is accepted. */
  smtpLogins: Map<string, string>;
  /** Every message sent through SES, as sent (raw MIME and envelope). */
  sentMail: CapturedSend[];
  /** SES receiving's SMTP endpoint (127.0.0.1:`endpoints.inboundSmtp`) and the messages it took. */
  inboundSmtp: InboundSmtp;
  /** The Gmail API, Microsoft Graph and OAuth emulators; their sends land in `sentMail`. */
  mailProviders: MailProviderEmulator;
  scheduler: SchedulerEmulator;
  /** The sample web the agentic page reader reads on loopback (pages generated from the directory). */
  sampleWeb: SampleWeb;
  runner: EventSourceRunner | null;
  /** The web app's user pool, when started (`userPool`). */
  userPool: LocalUserPool | null;
  /** `http://localhost:<port>/app/` when the web app is served. */
  appUrl: string;
  sqs: SQSClient;
  queueUrls: Record<string, string>;
  /** Resolves once no queue holds work, no batch is running and nothing is due. */
  settle(timeoutMs?: number): Promise<boolean>;
  isReady(): boolean;
  setReady(): void;
  stop(): Promise<void>;
}

export const LOCAL_PREFIX = 'local';

/** What the event-source runner feeds: each queue's worker, and the dead-letter consumer behind every DLQ. */
export type ConsumerKey = QueueKey | 'dead-letters';

export function tableCreateInput(def: TableDef, name: string): CreateTableCommandInput {
  const attrs = new Set(['pk', 'sk', ...def.gsis.flatMap((g) => [g.pk, g.sk])]);
  return {
    TableName: name,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [...attrs].map((a) => ({ AttributeName: a, AttributeType: 'S' })),
    KeySchema: [
      { AttributeName: 'pk', KeyType: 'HASH' },
      { AttributeName: 'sk', KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: def.gsis.length
      ? def.gsis.map((g) => ({
          IndexName: g.name,
          KeySchema: [
            { AttributeName: g.pk, KeyType: 'HASH' },
            { AttributeName: g.sk, KeyType: 'RANGE' },
          ],
          Projection: g.keysOnly ? { ProjectionType: 'KEYS_ONLY' } : g.include ? { ProjectionType: 'INCLUDE', NonKeyAttributes: g.include } : { ProjectionType: 'ALL' },
        }))
      : undefined,
  };
}

async function ensureTables(endpoint: string): Promise<void> {
  const ddb = new DynamoDBClient({ endpoint });
  await Promise.all(TABLE_LIST.map((def) => ensureTable(ddb, def)));
  // The list cursor key, made here as the first sweep makes it in AWS (outreach/cursor-key.repository.ts).
  await ensureListCursorKey(DynamoDBDocumentClient.from(ddb), `${LOCAL_PREFIX}-outreach`);
  ddb.destroy();
}

async function ensureTable(ddb: DynamoDBClient, def: TableDef): Promise<void> {
  const name = `${LOCAL_PREFIX}-${def.key}`;
  let existing;
  try {
    existing = (await ddb.send(new DescribeTableCommand({ TableName: name }))).Table;
  } catch (e) {
    if (!(e instanceof ResourceNotFoundException)) throw e;
    await ddb.send(new CreateTableCommand(tableCreateInput(def, name)));
    return;
  }
  // A data directory from an older version lacks the indexes added since: add them, one per update as
  // DynamoDB requires (the same course CloudFormation takes on deploy).
  const have = new Set((existing?.GlobalSecondaryIndexes ?? []).map((g) => g.IndexName));
  const input = tableCreateInput(def, name);
  for (const gsi of input.GlobalSecondaryIndexes ?? []) {
    if (have.has(gsi.IndexName)) continue;
    await ddb.send(
      new UpdateTableCommand({
        TableName: name,
        AttributeDefinitions: input.AttributeDefinitions,
        GlobalSecondaryIndexUpdates: [{ Create: { IndexName: gsi.IndexName, KeySchema: gsi.KeySchema, Projection: gsi.Projection } }],
      }),
    );
  }
}

/** A stack on a shared DynamoDB Local leaves nothing behind in it: its namespace's tables go when it stops. */
async function dropTables(shared: { endpoint: string; accessKeyId: string }): Promise<void> {
  const ddb = new DynamoDBClient({ endpoint: shared.endpoint, region: 'us-east-1', credentials: { accessKeyId: shared.accessKeyId, secretAccessKey: 'local' } });
  for (const def of TABLE_LIST) await ddb.send(new DeleteTableCommand({ TableName: `${LOCAL_PREFIX}-${def.key}` })).catch(() => undefined);
  ddb.destroy();
}

function readOrCreate(file: string | null, make: () => string): string {
  if (!file) return make();
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const v = make();
  writeFileSync(file, v, { mode: 0o600 });
  return v;
}

// The mailbox paths load most of the service's modules (every record kind, the mail
// providers' clients, MIME parsing): they load on first use, so that start-up does not wait for them.
const pollMailboxesLater = async () => (await import('./dev-inbound.js')).pollMailboxesLocally();
const inboundLater = (emulator: MailProviderEmulator): InboundDelivery => {
  const delivery = once(() => import('./dev-inbound.js').then((m) => m.devInbound(emulator)));
  return async (body) => (await delivery())(body);
};

/** Every start settled, then the first failure thrown: nothing is still starting when the caller cleans up. */
async function allStarted<T extends readonly unknown[]>(starts: readonly [...{ [K in keyof T]: Promise<T[K]> }]): Promise<T> {
  const settled = await Promise.allSettled(starts);
  const failed = settled.find((p): p is PromiseRejectedResult => p.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((p) => (p as PromiseFulfilledResult<unknown>).value) as unknown as T;
}

export async function startLocalStack(opts: LocalStackOptions): Promise<LocalStack> {
  // The twin's own drafting failure on demand (instructions with FAIL_DRAFT_MARKER); no drafter of the service knows it.
  decorateDrafters(withFailureMarker);
  const root = resolve(opts.root);
  const dataDir = opts.dataDir ? resolve(opts.dataDir) : null;
  // 0700, and an existing one tightened: it holds the secret-box key, the admin token and the database.
  if (dataDir) privateDir(dataDir);
  const file = (name: string) => (dataDir ? join(dataDir, name) : null);

  const clockFile = file('clock.json');
  setServiceClockOffset(clockFile && existsSync(clockFile) ? (JSON.parse(readFileSync(clockFile, 'utf8')).offsetMs as number) : 0);

  const started: { stop(): Promise<void> }[] = [];
  // The functions' EMF lines, as Lambda's stdout goes to CloudWatch Logs (metrics-log.ts): `GET …/metrics/` sums them.
  const metricsLog = new MetricsLog(file('metrics.log'));
  const unsetMetricsLog = setLocalMetricsLog((lines) => metricsLog.append(lines));
  started.push({ stop: async () => unsetMetricsLog() });
  /** Resolves once `start` has, and registers what it started for the stop, even when a sibling start fails. */
  const track = async <T extends { stop(): Promise<void> }>(start: Promise<T>, name: string): Promise<T> => {
    const part = await start;
    started.push(part);
    startupPhase(name);
    return part;
  };
  try {
    const shared = opts.dynamodb && !dataDir ? opts.dynamodb : null;
    // The stand-ins do not depend on one another: their start-ups (a JVM, a Node child, servers) overlap. All
    // of them settle before a failure is thrown, so whatever did start is in `started` and is stopped below.
    // Every server in this process listens on port 0 and reports the port it got: a port chosen earlier and
    // released could be taken, before the listen, as the source port of one of the start-up's own connections.
    // aws-ses-v2-local is CommonJS: its default export arrives as `.default` (or nested once more under tsx).
    type SesStart = (c: { host: string; port: number }) => Promise<Server>;
    const sesMod = sesModule as unknown as { default: SesStart | { default: SesStart } };
    const sesServer = typeof sesMod.default === 'function' ? sesMod.default : sesMod.default.default;
    const closing = (server: Server) => ({
      server,
      stop: () => new Promise<void>((r) => { server.closeAllConnections?.(); server.close(() => r()); }),
    });
    // The app's config names the API by path: the page and the API share this origin.
    const buildApp = async (): Promise<string | null> => {
      if (opts.gateway === false || !opts.userPool) return null;
      const dir = dataDir ? join(dataDir, 'web-app') : mkdtempSync(join(tmpdir(), 'web-app-'));
      if (!dataDir) started.push({ stop: async () => rmSync(dir, { recursive: true, force: true }) });
      await buildWebApp(root, dir);
      startupPhase('web app built');
      return dir;
    };
    const mail = async () => {
      const ses = await track(sesServer({ host: '127.0.0.1', port: 0 }).then(closing), 'ses');
      const sesPort = (ses.server.address() as { port: number }).port;
      const capture = await track(startSesCapture({ upstreamPort: sesPort, port: 0, now: () => serviceClock.now().getTime() }), 'ses capture');
      const smtpSink = await track(startSmtpSink({ port: 0, now: () => serviceClock.now().getTime(), sends: capture.sends }), 'smtp sink');
      const mailProviders = await track(
        startMailProviderEmulator({
          port: 0,
          file: file('mail-providers.json'),
          onSent: (s) => capture.sends.push({ raw: s.raw, destination: s.bcc.length ? { BccAddresses: s.bcc } : {}, from: s.from, simple: null, provider_message_id: s.providerMessageId, at: serviceClock.now().getTime(), provider: s.provider }),
        }),
        'mail providers',
      );
      return { capture, smtpSink, mailProviders };
    };
    const [dynamo, sqsServer, { capture, smtpSink, mailProviders }, sampleWeb, userPool, appDir, s3] = await allStarted([
      track(shared ? Promise.resolve({ endpoint: shared.endpoint, accessKeyId: shared.accessKeyId, stop: () => dropTables(shared) }) : (opts.dynamoLocal ?? startDynamoLocal({ root, dbPath: file('dynamodb') })), 'dynamodb'),
      track(createSqsServer({ port: 0, hostname: '127.0.0.1', emulateQueueCreationLifecycle: false }).then(closing), 'sqs'),
      mail(),
      track(startSampleWeb(), 'sample web'),
      opts.userPool ? track(startLocalUserPool({ root, dataDir }), 'cognito-local') : Promise.resolve(null),
      buildApp(),
      // The inbound-mail bucket SES receiving writes to (objects under DATA_DIR/s3, or in memory).
      track(startS3Emulator({ port: 0, buckets: [INBOUND_MAIL_BUCKET], dir: file('s3') }), 's3'),
    ]);
    startupPhase('stand-ins up');
    const emulated = (p: 'google' | 'microsoft', api: string) => ({
      ...mailProviders.clients[p],
      authorization_endpoint: `${mailProviders.baseUrl}/${p}/oauth/authorize`,
      token_endpoint: `${mailProviders.baseUrl}/${p}/oauth/token`,
      api_base: `${mailProviders.baseUrl}/${api}`,
    });

    const sqsPort = (sqsServer.server.address() as { port: number }).port;
    const endpoints = {
      dynamodb: dynamo.endpoint,
      sqs: `http://127.0.0.1:${sqsPort}`,
      ses: `http://127.0.0.1:${capture.port}`,
      scheduler: '',
      smtp: `smtp://localhost:${smtpSink.port}`,
      // An IP endpoint: the S3 client addresses it path-style by itself (a host name would get `<bucket>.<host>`).
      s3: s3.endpoint,
      inboundSmtp: '',
    };

    Object.assign(process.env, {
      SERVICE_MODE: 'local',
      AWS_REGION: 'us-east-1',
      // The key the database lives under (processes.ts dynamoAccessKey): DynamoDB Local serves each key its own.
      AWS_ACCESS_KEY_ID: dynamo.accessKeyId,
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_ENDPOINT_URL_DYNAMODB: endpoints.dynamodb,
      AWS_ENDPOINT_URL_SQS: endpoints.sqs,
      AWS_ENDPOINT_URL_SESV2: endpoints.ses,
      AWS_ENDPOINT_URL_SES: endpoints.ses,
      AWS_ENDPOINT_URL_S3: endpoints.s3,
      SCHEDULER_GROUP_NAME: `${LOCAL_PREFIX}-timers`,
      SCHEDULER_ROLE_ARN: 'arn:aws:iam::000000000000:role/local-scheduler',
      SECRET_BOX_KEY: readOrCreate(file('secret-box.key'), () => randomBytes(32).toString('base64')),
      WEBHOOK_ALLOW_LOOPBACK: opts.webhookAllowLoopback === false ? '0' : '1',
      DATA_DIR: dataDir ?? '',
      SMTP_HOST: '127.0.0.1',
      SMTP_PORT: String(smtpSink.port),
      // Named in every SES send, as in AWS; the stand-in publishes no events (dev/ses-events/ injects them).
      SES_CONFIGURATION_SET: `${LOCAL_PREFIX}-mail`,
      // The metrics' namespace, as the stack gives each function its stage's (shared/core/metrics.ts).
      [METRICS_NAMESPACE_ENV]: metricsNamespace(serviceName(), LOCAL_PREFIX),
      MAILBOX_PROVIDERS: JSON.stringify({ google: emulated('google', ''), microsoft: emulated('microsoft', 'microsoft/graph') }),
      SAMPLE_WEB_PORT: String(sampleWeb.port),
      ...(userPool ? { USER_POOL_ID: userPool.userPoolId, AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER: userPool.endpoint } : {}),
      ...opts.env,
    });
    for (const def of TABLE_LIST) process.env[def.env] = `${LOCAL_PREFIX}-${def.key}`;
    // From here on each invocation sees only its own function's environment and grants (clients made anew).
    enforceFunctionGrants();
    for (const [name, bindings] of Object.entries(opts.grants ?? {})) {
      overrideBindings(name, bindings);
      started.push({ stop: async () => overrideBindings(name, null) });
    }
    resetClients();
    resetSecretBox();

    const sqs = new SQSClient({ endpoint: endpoints.sqs });
    const queueUrls: Record<string, string> = {};
    const dlqArns = {} as Record<QueueKey, string>;
    // Tables and queues are independent of one another: all are made together.
    await allStarted([
      ensureTables(endpoints.dynamodb),
      ...QUEUE_LIST.map(async (q) => {
        const dlq = await sqs.send(new CreateQueueCommand({ QueueName: queueName(LOCAL_PREFIX, q.key, true) }));
        const dlqArn = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl!, AttributeNames: ['QueueArn'] }))).Attributes!.QueueArn!;
        const main = await sqs.send(
          new CreateQueueCommand({
            QueueName: queueName(LOCAL_PREFIX, q.key),
            Attributes: {
              VisibilityTimeout: String(opts.visibilityTimeoutSeconds ?? 20),
              RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: q.maxReceiveCount }),
            },
          }),
        );
        const arn = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: main.QueueUrl!, AttributeNames: ['QueueArn'] }))).Attributes!.QueueArn!;
        queueUrls[q.key] = main.QueueUrl!;
        queueUrls[`${q.key}-dlq`] = dlq.QueueUrl!;
        dlqArns[q.key] = dlqArn;
        process.env[q.urlEnv] = main.QueueUrl!;
        process.env[q.arnEnv] = arn;
      }),
    ]);
    startupPhase('tables and queues made');
    process.env.TIMERS_QUEUE_ARN = process.env[QUEUE_LIST.find((q) => q.key === 'timers')!.arnEnv];
    process.env.TIMERS_DLQ_ARN = dlqArns.timers;

    const scheduler = await startSchedulerEmulator({ port: 0, file: file('schedules.json'), clock: serviceClock, sqs });
    started.push(scheduler);
    endpoints.scheduler = `http://127.0.0.1:${scheduler.port}`;
    process.env.AWS_ENDPOINT_URL_SCHEDULER = endpoints.scheduler;
    resetClients();
    // The receiving MX, once everything the inbound-mail function reaches (tables, Scheduler, queues) is up.
    const inboundSmtp = await track(startInboundSmtp({ port: opts.inboundSmtpPort ?? 0 }), 'inbound smtp');
    endpoints.inboundSmtp = `smtp://127.0.0.1:${inboundSmtp.port}`;

    const consumer = (key: ConsumerKey, module: string, timeoutSeconds: number) => ({
      timeoutMs: opts.workerTimeoutMs?.[key] ?? timeoutSeconds * 1000,
      handler: () => loadHandler(root, opts.workerModules?.[key] ?? module) as unknown as Promise<SqsHandler>,
    });
    // The DLQs' redrive into the dead-letter consumer, as its event source mappings do in AWS: a record's
    // eventSourceARN is the DLQ it came from.
    const deadLetterSources = QUEUE_LIST.map((q) => ({
      key: `${q.key}-dlq`,
      url: queueUrls[`${q.key}-dlq`]!,
      arn: dlqArns[q.key],
      batchSize: DEAD_LETTERS.batchSize,
      functionName: 'dead-letters',
      ...consumer('dead-letters', DEAD_LETTERS.module, DEAD_LETTERS.timeoutSeconds),
    }));
    const runner =
      opts.workers === false
        ? null
        : startEventSourceRunner(
            sqs,
            [
              ...QUEUE_LIST.map((q) => ({
                key: q.key,
                url: queueUrls[q.key]!,
                arn: process.env[q.arnEnv]!,
                batchSize: q.worker.batchSize,
                ...consumer(q.key, q.worker.module, q.worker.timeoutSeconds),
              })),
              ...deadLetterSources,
            ],
            { onError: (q, e) => logger.debug('worker batch failed', { queue: q, error: e as Error }) },
          );
    if (runner) started.push(runner);
    if (runner) {
      // The twin's stand-in for the sweeper's EventBridge schedule; it lives and stops with the stack.
      const sweeping = setInterval(() => void sweepAsSweeper().catch((e: unknown) => logger.warn('sweep failed', { error: e as Error })), SWEEPER.rateMinutes * 60_000);
      sweeping.unref();
      started.push({ stop: async () => clearInterval(sweeping) });
      // The twin's stand-in for the mailbox poller's schedule, more often than AWS's minute so a demo sees replies at once.
      const pollSeconds = opts.mailboxPollSeconds ?? Number(process.env.MAILBOX_POLL_SECONDS ?? 10);
      if (pollSeconds > 0) {
        const mailboxPolling = setInterval(() => void pollMailboxesLater(), pollSeconds * 1000);
        mailboxPolling.unref();
        started.push({ stop: async () => clearInterval(mailboxPolling) });
      }
    }

    const settle = async (timeoutMs = 30_000): Promise<boolean> => {
      const deadline = Date.now() + timeoutMs;
      let quietChecks = 0;
      while (Date.now() < deadline) {
        await scheduler.fireDue();
        let queued = 0;
        for (const q of QUEUE_LIST) {
          const a = await sqs.send(
            new GetQueueAttributesCommand({
              QueueUrl: queueUrls[q.key]!,
              AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'],
            }),
          );
          queued += Number(a.Attributes?.ApproximateNumberOfMessages ?? 0) + Number(a.Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0) + Number(a.Attributes?.ApproximateNumberOfMessagesDelayed ?? 0);
        }
        // A dead message waiting for the dead-letter consumer is work; one the consumer failed waits out its
        // visibility timeout like any retry in AWS, and the runner's busy count covers a batch being handled.
        for (const source of runner ? deadLetterSources : []) {
          const a = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: source.url, AttributeNames: ['ApproximateNumberOfMessages'] }));
          queued += Number(a.Attributes?.ApproximateNumberOfMessages ?? 0);
        }
        const idle = queued === 0 && (runner?.busy() ?? 0) === 0 && scheduler.dueCount() === 0;
        // Two quiet looks in a row: work handed from one queue to another between looks is not missed.
        quietChecks = idle ? quietChecks + 1 : 0;
        if (quietChecks >= 2) return true;
        await new Promise((r) => setTimeout(r, 50));
      }
      return false;
    };

    // An empty token is no token: it would let an empty x-admin-token header in.
    const adminToken = opts.adminToken || process.env.ADMIN_TOKEN || randomBytes(24).toString('base64url');
    let ready = !opts.gated;
    const stack: LocalStack = {
      isReady: () => ready,
      setReady: () => {
        ready = true;
      },
      baseUrl: '',
      consoleUrl: '',
      port: 0,
      adminToken,
      endpoints,
      sentMail: capture.sends,
      inboundSmtp,
      smtpLogins: smtpSink.logins,
      mailProviders,
      scheduler,
      sampleWeb,
      runner,
      userPool,
      appUrl: '',
      sqs,
      queueUrls,
      settle,
      stop: async () => {
        for (const s of started.reverse()) await s.stop().catch(() => undefined);
        sqs.destroy();
        resetClients();
      },
    };

    if (opts.gateway !== false) {
      const throttleMultiplier = opts.throttleMultiplier ?? Number(process.env.LOCAL_THROTTLE_MULTIPLIER ?? 1);
      // Handlers that throttle per key themselves (handler_key routes) read the same multiplier.
      process.env.LOCAL_THROTTLE_MULTIPLIER = String(throttleMultiplier);
      const gateway = await startGateway({
        port: opts.port ?? 3000,
        root,
        adminToken,
        throttleMultiplier,
        extra: devControls({ stack, clockFile, adminToken, inbound: inboundLater(mailProviders), metricsLog }),
        ...(userPool && appDir
          ? {
              userTokens: await userTokenVerifier(userPool),
              site: webAppSite(appDir, { apiBase: APP_BASE, publicApiBase: PUBLIC_BASE, cognito: { endpoint: userPool.endpoint, region: userPool.region, userPoolId: userPool.userPoolId, clientId: userPool.clientId } }),
            }
          : {}),
      });
      started.push(gateway);
    startupPhase('gateway listening');
      stack.port = gateway.port;
      stack.baseUrl = `http://localhost:${gateway.port}/api/public/v1/`;
      stack.consoleUrl = `http://localhost:${gateway.port}/api/console/v1/`;
      if (userPool) stack.appUrl = `http://localhost:${gateway.port}${APP_PATH}`;
      // Links written into emails (unsubscribe, open pixel) point back at this gateway.
      process.env.PUBLIC_BASE_URL = `http://localhost:${gateway.port}`;
      // The privacy page every outreach footer and privacy-request link names: the web app's host, here this gateway.
      process.env.PRIVACY_PAGE_URL = `http://localhost:${gateway.port}${PRIVACY_PAGE_PATH}`;
    }
    return stack;
  } catch (e) {
    for (const s of started.reverse()) await s.stop().catch(() => undefined);
    throw e;
  }
}
