import { isLocalMode } from './env.js';
import { logger } from './logger.js';

/**
 * The service's own CloudWatch metrics: the one catalogue of their names, units, dimensions (METRICS) and meanings
 * (METRIC_DESCRIPTIONS; docs/operating.md "Metrics" is written from them), counted where they happen and published once an invocation is
 * done (`flushMetrics`: the HTTP handler shell, the queue workers, the dead-letter consumer, the sweeper, the
 * mailbox poller and the inbound-mail function). The alarms on them are lib/constructs/mail-alarms.ts and
 * lib/constructs/operations.ts; the dashboard is lib/constructs/operations.ts.
 *
 * Dimensions are few and bounded: each metric names the dimensions it may carry and every value each may take
 * (never an account id, an address or anything else a caller chooses); a count with any other dimension or value
 * is dropped, as is one that is not a finite, non-negative number. Counting never throws and never fails the work
 * it counts.
 */
export type MetricUnit = 'Count' | 'Milliseconds' | 'Seconds';

export interface MetricDef {
  readonly unit: MetricUnit;
  /** Each dimension it carries, with every value that dimension may take. */
  readonly dimensions?: Readonly<Record<string, readonly string[]>>;
}

/** Search tiers, as the `tier` dimension names them. */
export const SEARCH_TIERS = ['people', 'deep', 'agentic'] as const;
/** Job tiers (every asynchronous job), as the `tier` dimension names them. */
export const JOB_TIERS = ['people', 'deep', 'agentic', 'phone', 'bulk'] as const;
export const ENRICHMENT_KINDS = ['email', 'phone', 'professional_url', 'professional_profile', 'bulk'] as const;
export const ENRICHMENT_OUTCOMES = ['found', 'not_found', 'error'] as const;
export const JOB_OUTCOMES = ['completed', 'failed', 'cancelled'] as const;
/**
 * Every queue of the catalogue (shared/catalog/queues.ts, which this floor may not import: the workers' dispatch
 * passes a QueueKey here, so tsc refuses a queue missing from it, and test/unit/core/metrics.test.ts holds them equal).
 */
export const METRIC_QUEUES = ['search', 'drafting', 'sending', 'webhooks', 'timers', 'mail-events', 'directory-import', 'directory-finalize'] as const;
/** The tables whose overdue records the sweeper ends (shared/workers/sweep.ts). */
export const SWEPT_TABLES = ['jobs', 'outreach', 'accounts'] as const;

/** Every metric: its unit and its dimensions. What each counts is METRIC_DESCRIPTIONS, below. */
export const METRICS = {
  // Business
  searches: { unit: 'Count', dimensions: { tier: SEARCH_TIERS } },
  leads: { unit: 'Count', dimensions: { tier: SEARCH_TIERS } },
  enrichments: { unit: 'Count', dimensions: { kind: ENRICHMENT_KINDS, outcome: ENRICHMENT_OUTCOMES } },
  credits_charged: { unit: 'Count' },
  credits_released: { unit: 'Count' },
  drafts: { unit: 'Count' },
  drafts_failed: { unit: 'Count' },
  sends: { unit: 'Count' },
  bounces_hard: { unit: 'Count' },
  bounces_soft: { unit: 'Count' },
  complaints: { unit: 'Count' },
  replies: { unit: 'Count' },
  unsubscribes: { unit: 'Count' },
  webhook_attempts: { unit: 'Count' },
  webhook_failures: { unit: 'Count' },
  // Health
  jobs_ended: { unit: 'Count', dimensions: { outcome: JOB_OUTCOMES } },
  job_latency: { unit: 'Milliseconds', dimensions: { tier: JOB_TIERS } },
  queue_age: { unit: 'Seconds', dimensions: { queue: METRIC_QUEUES } },
  dead_letters: { unit: 'Count', dimensions: { queue: METRIC_QUEUES } },
  lost_work_ended: { unit: 'Count', dimensions: { table: SWEPT_TABLES } },
  mailbox_polls_failed: { unit: 'Count' },
  messages_unprocessable: { unit: 'Count' },
  inbound_failed: { unit: 'Count' },
} as const satisfies Record<string, MetricDef>;

export type MetricName = keyof typeof METRICS;
export const METRIC_NAMES = Object.keys(METRICS) as MetricName[];

/**
 * What one unit of each metric is (docs/operating.md's table says the same, and a test holds them equal). Apart
 * from METRICS so that a function's bundle, which counts but never describes, leaves the sentences out.
 */
export const METRIC_DESCRIPTIONS: Readonly<Record<MetricName, string>> = {
  searches: 'searches completed (their results delivered, none found included)',
  leads: 'people delivered by completed searches',
  enrichments: 'lookups answered: the single enrichment calls, phone jobs, and each item of a bulk enrichment (`bulk`); an invalid item is none',
  credits_charged: 'credits kept when a reservation settled (counted with the write that settles it, once)',
  credits_released: 'credits given back when a reservation settled: released, zero result, lost, or the unused rest of a charge',
  drafts: 'emails drafted (single emails and sequence steps)',
  drafts_failed: 'drafts that could not be written (nothing charged)',
  sends: 'outreach emails sent (counted with the write that records the send, once per email)',
  bounces_hard: 'emails that bounced permanently (an SES event, a mailbox report or a DSN), once per email',
  bounces_soft: 'emails that bounced temporarily, once per email',
  complaints: 'recipients who marked an email as spam, once per email',
  replies: 'leads who replied, once per email',
  unsubscribes: 'recipients who unsubscribed through an email’s link, once per email',
  webhook_attempts: 'webhook delivery attempts made',
  webhook_failures: 'webhook delivery attempts that failed (retried on the ladder, or given up after the last)',
  jobs_ended: 'asynchronous jobs that reached a terminal state',
  job_latency: 'a job’s time from acceptance to its terminal state (service clock)',
  queue_age: 'how long a message waited in its queue (SQS SentTimestamp) when its worker took it, retries included',
  dead_letters: 'messages that gave up and were ended by the dead-letter consumer',
  lost_work_ended: 'overdue records the sweeper ended as lost work: a job, an email or sequence step, a test email, a reservation, an API key left pending',
  mailbox_polls_failed: 'a connected mailbox could not be read in a run (a revoked consent disconnects the mailbox instead)',
  messages_unprocessable: 'an inbound message was read and nothing could be made of it (recorded as an inbound issue)',
  inbound_failed: 'handling an inbound message failed (it is retried)',
};

type Def<N extends MetricName> = (typeof METRICS)[N];
/** The dimensions a metric must be given: each of its own, with one of its values. */
export type MetricDimensions<N extends MetricName> = Def<N> extends { dimensions: infer D } ? { [K in keyof D]: D[K] extends readonly (infer V)[] ? V : never } : never;
type CountName = { [N in MetricName]: Def<N>['unit'] extends 'Count' ? N : never }[MetricName];
type TimingName = Exclude<MetricName, CountName>;
type ArgsOf<N extends MetricName, V> = [MetricDimensions<N>] extends [never] ? [value?: V] : [value: number, dimensions: MetricDimensions<N>];

/** The variable Powertools' Metrics reads its namespace from; the stack sets it on every function (ServiceFunction), the twin on itself. */
export const METRICS_NAMESPACE_ENV = 'POWERTOOLS_METRICS_NAMESPACE';

/**
 * One namespace per deployment, `<service>/<stage>`: two stages in one account never add to each other's alarms.
 * Every data point also carries Powertools' default dimension `service` (POWERTOOLS_SERVICE_NAME).
 */
export const metricsNamespace = (serviceName: string, stage: string): string => `${serviceName}/${stage}`;

/** The `service` dimension every data point carries (POWERTOOLS_SERVICE_NAME, which the stack sets). */
export const serviceName = (): string => process.env.POWERTOOLS_SERVICE_NAME ?? 'people-outreach';

interface Pending {
  name: MetricName;
  dimensions: Record<string, string>;
  /** A Count's sum, or each observation of a timing. */
  values: number[];
}

const pending = new Map<string, Pending>();

/** The dimensions as given when each is the metric's own with one of its values; null when any is not. */
function boundedDimensions(def: MetricDef, given: unknown): Record<string, string> | null {
  const allowed = def.dimensions ?? {};
  const names = Object.keys(allowed);
  const dims = (given ?? {}) as Record<string, unknown>;
  if (typeof dims !== 'object' || Object.keys(dims).length !== names.length) return null;
  const out: Record<string, string> = {};
  for (const name of names.sort()) {
    const value = dims[name];
    if (typeof value !== 'string' || !allowed[name]!.includes(value)) return null;
    out[name] = value;
  }
  return out;
}

function record(name: MetricName, value: unknown, dimensions: unknown): void {
  try {
    const def: MetricDef | undefined = METRICS[name];
    if (!def || typeof value !== 'number' || !Number.isFinite(value) || value < 0) return;
    // A zero count adds nothing (and publishes nothing); a zero timing is an observation.
    if (def.unit === 'Count' && value === 0) return;
    const dims = boundedDimensions(def, dimensions);
    if (!dims) return;
    const key = `${name}\u0000${JSON.stringify(dims)}`;
    let p = pending.get(key);
    if (!p) pending.set(key, (p = { name, dimensions: dims, values: [] }));
    if (def.unit === 'Count') p.values[0] = (p.values[0] ?? 0) + value;
    else p.values.push(value);
  } catch {
    // Counting never fails the work it counts.
  }
}

/**
 * Count `value` (default 1) of a Count metric, with its dimensions when it has any: kept in memory until
 * `flushMetrics`. Never throws; a value that is not a finite, non-negative number, or a dimension the catalogue
 * does not give the metric, is ignored.
 */
export function countMetric<N extends CountName>(name: N, ...args: ArgsOf<N, number>): void {
  record(name, args[0] ?? 1, args[1]);
}

/** One observation of a timing metric (`job_latency` in milliseconds, `queue_age` in seconds). Never throws. */
export function observeMetric<N extends TimingName>(name: N, value: number, dimensions: MetricDimensions<N>): void {
  record(name, value, dimensions);
}

// Counts that ride in a DynamoDB transaction: a write that happens once (its condition makes a second attempt fail)
// carries what it counts, and the count is taken when DynamoDB commits the transaction holding it
// (`countCommitted`, called by the document client, shared/adapters/aws.ts). A transaction that fails, or loses to
// a concurrent one, counts nothing; one retried by the SDK is committed once (its client request token).
type CommitCount = { name: CountName; value: number; dimensions?: Record<string, string> };
const onCommit = new WeakMap<object, CommitCount[]>();

/** `item`, carrying `value` of a Count metric to be counted when the transaction that holds it commits. */
export function countOnCommit<T extends object, N extends CountName>(item: T, name: N, ...args: ArgsOf<N, number>): T {
  try {
    const counts = onCommit.get(item) ?? [];
    counts.push({ name, value: args[0] ?? 1, ...(args[1] ? { dimensions: args[1] as Record<string, string> } : {}) });
    onCommit.set(item, counts);
  } catch {
    // never fails the write
  }
  return item;
}

/** The items of a transaction DynamoDB has just committed: what they carry is counted. Never throws. */
export function countCommitted(items: readonly unknown[]): void {
  try {
    for (const item of items) {
      if (typeof item !== 'object' || item === null) continue;
      for (const c of onCommit.get(item) ?? []) record(c.name, c.value, c.dimensions);
    }
  } catch {
    // never fails the write
  }
}

/**
 * Where a flush's EMF lines go. In Lambda (and only there): stdout, which CloudWatch Logs turns into metrics (no
 * SDK client, no request, no IAM beyond the log writes every function has). On the twin: its metrics log
 * (`setLocalMetricsLog`, shared/local/metrics-log.ts), which `GET /api/console/v1/metrics/` sums. Anywhere else
 * (unit tests, scripts): kept in this process (`localMetricLines`), nothing printed.
 */
export type MetricsLogWriter = (lines: readonly string[]) => void | Promise<void>;
let twinLog: MetricsLogWriter | null = null;
const MEMORY_LINES = 10_000;
const memoryLines: string[] = [];

const publishesToCloudWatch = (): boolean => !isLocalMode() && Boolean(process.env.AWS_LAMBDA_FUNCTION_NAME);

/**
 * The twin hands its metrics log here at start: every function of the process writes its lines there. Returns the
 * undo, for the twin's stop (a no-op once another twin of the process has handed its own).
 */
export function setLocalMetricsLog(writer: MetricsLogWriter): () => void {
  twinLog = writer;
  return () => {
    if (twinLog === writer) twinLog = null;
  };
}

type PowertoolsMetrics = typeof import('@aws-lambda-powertools/metrics');
let loading: Promise<PowertoolsMetrics> | undefined;

/** Powertools' Metrics is loaded at the first flush that has something to publish (in Lambda a lazy package beside the bundle). */
const powertools = () => (loading ??= import('@aws-lambda-powertools/metrics'));

/** EMF holds at most 100 values of one metric in a document; Powertools prints a document itself at 100. */
const VALUES_PER_DOCUMENT = 99;

/** The EMF documents of a batch, one per set of dimension values, made by Powertools' Metrics. */
async function emfDocuments(batch: readonly Pending[], namespace: string): Promise<object[]> {
  const { Metrics } = await powertools();
  const metrics = new Metrics({ namespace, serviceName: serviceName() });
  const groups = new Map<string, Pending[]>();
  for (const p of batch) {
    const key = JSON.stringify(p.dimensions);
    groups.set(key, [...(groups.get(key) ?? []), p]);
  }
  const documents: object[] = [];
  for (const group of groups.values()) {
    const rounds = Math.max(...group.map((p) => Math.ceil(p.values.length / VALUES_PER_DOCUMENT)));
    for (let round = 0; round < rounds; round++) {
      metrics.clearMetrics();
      metrics.clearDimensions();
      for (const [k, v] of Object.entries(group[0]!.dimensions)) metrics.addDimension(k, v);
      for (const p of group) {
        for (const value of p.values.slice(round * VALUES_PER_DOCUMENT, (round + 1) * VALUES_PER_DOCUMENT)) metrics.addMetric(p.name, METRICS[p.name].unit, value);
      }
      documents.push(metrics.serializeMetrics());
    }
  }
  metrics.clearMetrics();
  metrics.clearDimensions();
  return documents;
}

/**
 * Publish what was counted since the last flush, as Embedded Metric Format lines (one a set of dimension values),
 * with nothing written when nothing was counted. Call it once at the end of an invocation, on its error path too.
 * Never throws: a metric that cannot be published is logged, never a reason to fail the work it counted.
 */
export async function flushMetrics(): Promise<void> {
  if (pending.size === 0) return;
  const batch = [...pending.values()];
  pending.clear();
  try {
    const lambda = publishesToCloudWatch();
    const namespace = process.env[METRICS_NAMESPACE_ENV] || (lambda ? undefined : metricsNamespace(serviceName(), 'local'));
    if (!namespace) throw new Error(`Missing required environment variable ${METRICS_NAMESPACE_ENV}`);
    const lines = (await emfDocuments(batch, namespace)).map((d) => JSON.stringify(d));
    if (lambda) {
      if (/^(1|true|yes|on)$/i.test(process.env.POWERTOOLS_METRICS_DISABLED ?? '')) return;
      process.stdout.write(lines.map((l) => `${l}\n`).join(''));
    } else if (isLocalMode() && twinLog) {
      await twinLog(lines);
    } else {
      memoryLines.push(...lines);
      if (memoryLines.length > MEMORY_LINES) memoryLines.splice(0, memoryLines.length - MEMORY_LINES);
    }
  } catch (e) {
    logger.error('metrics not published', { error: e as Error, metrics: batch.map((p) => p.name) });
  }
}

/** Off Lambda and off the twin: the EMF lines flushed in this process, oldest first (the last 10,000). */
export function localMetricLines(): readonly string[] {
  return [...memoryLines];
}

/** Off Lambda and off the twin: every metric's total of what was flushed in this process (every dimension value together). */
export function localMetricTotals(): Record<MetricName, number> {
  const totals = Object.fromEntries(METRIC_NAMES.map((name) => [name, 0])) as Record<MetricName, number>;
  for (const line of memoryLines) {
    const doc = JSON.parse(line) as Record<string, unknown>;
    for (const name of METRIC_NAMES) {
      const v = doc[name];
      if (typeof v === 'number') totals[name] += v;
      else if (Array.isArray(v)) totals[name] += (v as number[]).reduce((a, b) => a + b, 0);
    }
  }
  return totals;
}

/** Tests: forget the lines kept in this process and anything counted but not flushed. */
export function resetLocalMetrics(): void {
  pending.clear();
  memoryLines.length = 0;
}
