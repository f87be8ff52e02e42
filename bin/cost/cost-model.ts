/**
 * The arithmetic of the cost bench (bin/bench-cost.ts), pure: what an operation consumed on the twin →
 * dollars at AWS's prices (aws-prices.ts) → dollars per 1,000 operations → beside the credits the price list
 * (shared/accounts/prices.ts) charges for them, the margin at a price per credit. Nothing here reads a clock,
 * a file or the network; test/unit/bench/cost-model.test.ts checks it on a recorded consumption.
 */
import { QUEUE_LIST } from '../../shared/catalog/queues.js';
import { HOURS_PER_MONTH, type AwsPrices } from './aws-prices.js';

/** What some number of operations consumed, as the twin measured it. */
export interface Consumption {
  /** Capacity units as DynamoDB reports them (`ReturnConsumedCapacity: 'TOTAL'`, GSI writes included). */
  dynamodb: { readUnits: number; writeUnits: number; calls: number; failedWrites: number };
  /** Per function: its configured memory, invocations and billed milliseconds (each invocation rounded up to 1 ms). */
  lambda: Record<string, { memoryMb: number; invocations: number; billedMs: number }>;
  /** Calls a client made to the public REST API. */
  apiRequests: number;
  /** Billable SQS requests: sends (per 64 KB chunk), non-empty receives and deletes. */
  sqsRequests: number;
  schedulerInvocations: number;
  /** Outbound emails through SES, one per recipient. */
  sesEmails: number;
  bedrock: { inputTokens: number; outputTokens: number };
  /** Bytes the functions logged (platform lines are added per invocation by the assumptions). */
  logBytes: number;
  s3: { gets: number; puts: number };
  secretsManagerCalls: number;
}

export interface CostAssumptions {
  /** Dollars a customer pays per credit. */
  pricePerCreditUsd: number;
  /** Share of invocations X-Ray records (the default rule: 1 a second, then 5%). */
  xraySampledShare: number;
  /** START, END and REPORT lines Lambda writes per invocation, in bytes. */
  lambdaPlatformLogBytes: number;
  /** The stage's access log line per API request (`AccessLogFormat.jsonWithStandardFields()`, lib/api-stack.ts), in bytes. */
  apiAccessLogBytes: number;
  /** OpenSearch Serverless (`-c searchEngine=opensearch`): OCUs always on, and the search jobs a month they are spread over. */
  openSearch: { ocus: number; monthlySearchJobs: number };
}

/** The stated defaults (docs/benchmarks.md#cost-per-operation says where each comes from). */
export const DEFAULT_ASSUMPTIONS: CostAssumptions = {
  pricePerCreditUsd: 0.01,
  xraySampledShare: 0.05,
  lambdaPlatformLogBytes: 350,
  apiAccessLogBytes: 300,
  openSearch: { ocus: 2, monthlySearchJobs: 100_000 },
};

export const COMPONENTS = ['dynamodb', 'lambdaCompute', 'lambdaRequests', 'apiGateway', 'waf', 'sqs', 'scheduler', 'ses', 'bedrock', 'logs', 'xray', 's3', 'secretsManager'] as const;
export type Component = (typeof COMPONENTS)[number];
export type CostBreakdown = Record<Component, number> & { total: number };

export function emptyConsumption(): Consumption {
  return {
    dynamodb: { readUnits: 0, writeUnits: 0, calls: 0, failedWrites: 0 },
    lambda: {},
    apiRequests: 0,
    sqsRequests: 0,
    schedulerInvocations: 0,
    sesEmails: 0,
    bedrock: { inputTokens: 0, outputTokens: 0 },
    logBytes: 0,
    s3: { gets: 0, puts: 0 },
    secretsManagerCalls: 0,
  };
}

/** One invocation of `name` at `memoryMb`, billed as Lambda bills it: its duration rounded up to the millisecond. */
export function addInvocation(c: Consumption, name: string, memoryMb: number, ms: number): void {
  const f = (c.lambda[name] ??= { memoryMb, invocations: 0, billedMs: 0 });
  f.invocations += 1;
  f.billedMs += Math.max(1, Math.ceil(ms));
}

/** `a + b`, or `a - b` with `sign` -1 (a window's consumption from two snapshots of running totals). */
export function combine(a: Consumption, b: Consumption, sign: 1 | -1 = 1): Consumption {
  const out = emptyConsumption();
  const n = (x: number, y: number) => x + sign * y;
  out.dynamodb = { readUnits: n(a.dynamodb.readUnits, b.dynamodb.readUnits), writeUnits: n(a.dynamodb.writeUnits, b.dynamodb.writeUnits), calls: n(a.dynamodb.calls, b.dynamodb.calls), failedWrites: n(a.dynamodb.failedWrites, b.dynamodb.failedWrites) };
  for (const name of new Set([...Object.keys(a.lambda), ...Object.keys(b.lambda)])) {
    const x = a.lambda[name] ?? { memoryMb: b.lambda[name]!.memoryMb, invocations: 0, billedMs: 0 };
    const y = b.lambda[name] ?? { memoryMb: x.memoryMb, invocations: 0, billedMs: 0 };
    const f = { memoryMb: x.memoryMb, invocations: n(x.invocations, y.invocations), billedMs: n(x.billedMs, y.billedMs) };
    if (f.invocations !== 0 || f.billedMs !== 0) out.lambda[name] = f;
  }
  out.apiRequests = n(a.apiRequests, b.apiRequests);
  out.sqsRequests = n(a.sqsRequests, b.sqsRequests);
  out.schedulerInvocations = n(a.schedulerInvocations, b.schedulerInvocations);
  out.sesEmails = n(a.sesEmails, b.sesEmails);
  out.bedrock = { inputTokens: n(a.bedrock.inputTokens, b.bedrock.inputTokens), outputTokens: n(a.bedrock.outputTokens, b.bedrock.outputTokens) };
  out.logBytes = n(a.logBytes, b.logBytes);
  out.s3 = { gets: n(a.s3.gets, b.s3.gets), puts: n(a.s3.puts, b.s3.puts) };
  out.secretsManagerCalls = n(a.secretsManagerCalls, b.secretsManagerCalls);
  return out;
}

export function lambdaInvocations(c: Consumption): number {
  return Object.values(c.lambda).reduce((s, f) => s + f.invocations, 0);
}

export function gbSeconds(c: Consumption): number {
  return Object.values(c.lambda).reduce((s, f) => s + (f.billedMs / 1000) * (f.memoryMb / 1024), 0);
}

/**
 * A failed conditional write reports no consumed capacity but is charged: at least one write unit (the items
 * the service writes conditionally are under 1 KB).
 */
export const FAILED_WRITE_UNITS = 1;

export function dollars(c: Consumption, prices: AwsPrices, a: CostAssumptions): CostBreakdown {
  const invocations = lambdaInvocations(c);
  const b: Record<Component, number> = {
    dynamodb: c.dynamodb.readUnits * prices.dynamodbReadRequestUnit.usd + (c.dynamodb.writeUnits + c.dynamodb.failedWrites * FAILED_WRITE_UNITS) * prices.dynamodbWriteRequestUnit.usd,
    lambdaCompute: gbSeconds(c) * prices.lambdaGbSecondArm.usd,
    lambdaRequests: invocations * prices.lambdaRequest.usd,
    apiGateway: c.apiRequests * prices.apiGatewayRestRequest.usd,
    waf: c.apiRequests * prices.wafRequest.usd,
    sqs: c.sqsRequests * prices.sqsRequest.usd,
    scheduler: c.schedulerInvocations * prices.schedulerInvocation.usd,
    ses: c.sesEmails * prices.sesEmail.usd,
    bedrock: c.bedrock.inputTokens * prices.bedrockHaiku45InputToken.usd + c.bedrock.outputTokens * prices.bedrockHaiku45OutputToken.usd,
    logs: ((c.logBytes + invocations * a.lambdaPlatformLogBytes + c.apiRequests * a.apiAccessLogBytes) / 1e9) * prices.cloudWatchLogsIngestedGb.usd,
    xray: invocations * a.xraySampledShare * prices.xrayTrace.usd,
    s3: c.s3.gets * prices.s3GetRequest.usd + c.s3.puts * prices.s3PutRequest.usd,
    secretsManager: c.secretsManagerCalls * prices.secretsManagerCall.usd,
  };
  return { ...b, total: COMPONENTS.reduce((s, k) => s + b[k], 0) };
}

export function scale(b: CostBreakdown, factor: number): CostBreakdown {
  return Object.fromEntries(Object.entries(b).map(([k, v]) => [k, v * factor])) as CostBreakdown;
}

/** The dollars of one OpenSearch Serverless search job: the collection's minimum OCUs a month over the month's search jobs. */
export function openSearchSharePerJob(prices: AwsPrices, a: CostAssumptions): number {
  return (a.openSearch.ocus * prices.openSearchServerlessOcuHour.usd * HOURS_PER_MONTH) / a.openSearch.monthlySearchJobs;
}

/** One line of the table: what `operations` operations consumed, and the credits each is charged. */
export interface CostLine {
  operation: string;
  /** What one "operation" is (`lead`, `call`, `job`, `sequence of 100 × 3`…). */
  unit: string;
  operations: number;
  consumption: Consumption;
  creditsPerOperation: number;
  /** Search jobs per operation (people search per lead: 1 / leads per job), for the OpenSearch share; 0 for the rest. */
  searchJobsPerOperation: number;
}

export interface CostRow {
  operation: string;
  unit: string;
  operations: number;
  /** AWS dollars per 1,000 operations, by component. */
  per1000: CostBreakdown;
  /** The OpenSearch Serverless share per 1,000 operations, with `-c searchEngine=opensearch` only. */
  openSearchPer1000: number;
  creditsPer1000: number;
  revenuePer1000: number;
  /** Revenue minus AWS cost, per 1,000 operations (in-memory engine). */
  marginPer1000: number;
  /** Margin over revenue; null when the operation earns nothing. */
  marginShare: number | null;
  /** The largest component of the cost. */
  largest: Component;
}

export function costRow(line: CostLine, prices: AwsPrices, a: CostAssumptions): CostRow {
  const per1000 = scale(dollars(line.consumption, prices, a), 1000 / line.operations);
  const creditsPer1000 = line.creditsPerOperation * 1000;
  const revenuePer1000 = creditsPer1000 * a.pricePerCreditUsd;
  const marginPer1000 = revenuePer1000 - per1000.total;
  return {
    operation: line.operation,
    unit: line.unit,
    operations: line.operations,
    per1000,
    openSearchPer1000: line.searchJobsPerOperation * 1000 * openSearchSharePerJob(prices, a),
    creditsPer1000,
    revenuePer1000,
    marginPer1000,
    marginShare: revenuePer1000 > 0 ? marginPer1000 / revenuePer1000 : null,
    largest: COMPONENTS.reduce((m, k) => (per1000[k] > per1000[m] ? k : m), COMPONENTS[0]),
  };
}

/**
 * The dearest rows: by AWS dollars per operation, and by AWS dollars per dollar earned (the thinnest margin;
 * rows that earn nothing are left out of the second).
 */
export function dearest(rows: CostRow[]): { perOperation: CostRow; perRevenue: CostRow | null } {
  const perOperation = rows.reduce((m, r) => (r.per1000.total > m.per1000.total ? r : m));
  const earning = rows.filter((r) => r.revenuePer1000 > 0);
  const ratio = (r: CostRow) => r.per1000.total / r.revenuePer1000;
  const perRevenue = earning.length ? earning.reduce((m, r) => (ratio(r) > ratio(m) ? r : m)) : null;
  return { perOperation, perRevenue };
}

/** Lambda's default memory for every function that names none (lib/constructs/service-function.ts `props.memorySize ?? 512`). */
export const DEFAULT_MEMORY_MB = 512;
/** The deploy's default memory cap (`-c maxLambdaMemoryMb`, lib/constructs/service-function.ts). */
export const DEFAULT_MEMORY_CAP_MB = 3008;

/** The memory a catalogue function (shared/catalog/functions.ts) is deployed with. */
export function functionMemoryMb(name: string, capMb = DEFAULT_MEMORY_CAP_MB): number {
  const worker = QUEUE_LIST.find((q) => `${q.key}-worker` === name);
  return Math.min(worker?.worker.memoryMb ?? DEFAULT_MEMORY_MB, capMb);
}
