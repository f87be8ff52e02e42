import { isLocalMode } from './env.js';
import { logger } from './logger.js';

/**
 * The service's own CloudWatch metrics (inbound mail), counted where they happen and published once an invocation
 * is done. The alarms on them are lib/constructs/mail-alarms.ts; docs/operating.md says what each means.
 */
export type MetricName = 'mailbox_polls_failed' | 'messages_unprocessable' | 'inbound_failed' | 'bounces_hard' | 'bounces_soft' | 'complaints' | 'replies';

export const METRIC_NAMES: readonly MetricName[] = ['mailbox_polls_failed', 'messages_unprocessable', 'inbound_failed', 'bounces_hard', 'bounces_soft', 'complaints', 'replies'];

/** The variable Powertools' Metrics reads its namespace from; the stack sets it on every function (ServiceFunction). */
export const METRICS_NAMESPACE_ENV = 'POWERTOOLS_METRICS_NAMESPACE';

/**
 * One namespace per deployment, `<service>/<stage>`: two stages in one account never add to each other's alarms.
 * Every data point also carries Powertools' default dimension `service` (POWERTOOLS_SERVICE_NAME).
 */
export const metricsNamespace = (serviceName: string, stage: string): string => `${serviceName}/${stage}`;

const pending = new Map<MetricName, number>();
const flushedLocally = new Map<MetricName, number>();

/**
 * In Lambda (and only there) counts become Embedded Metric Format lines on stdout, which CloudWatch Logs turns into
 * metrics: no SDK client, no request, no IAM beyond the log writes every function has. Anywhere else (the twin,
 * tests, scripts) nothing is printed and the counts stay in this process (`localMetricTotals`).
 */
const publishesToCloudWatch = (): boolean => !isLocalMode() && Boolean(process.env.AWS_LAMBDA_FUNCTION_NAME);

/** Count `value` (default 1) of a metric: kept in memory until `flushMetrics`. Never throws; a value that is not a finite, non-negative number is ignored. */
export function countMetric(name: MetricName, value = 1): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) return;
  pending.set(name, (pending.get(name) ?? 0) + value);
}

type PowertoolsMetrics = typeof import('@aws-lambda-powertools/metrics');
let loading: Promise<{ module: PowertoolsMetrics; metrics: InstanceType<PowertoolsMetrics['Metrics']> }> | undefined;

/** Powertools is loaded (and its `Metrics` made) at the first flush that has something to publish, in Lambda only. */
function cloudWatch(namespace: string) {
  loading ??= import('@aws-lambda-powertools/metrics').then((module) => ({ module, metrics: new module.Metrics({ namespace }) }));
  return loading;
}

/**
 * Publish what was counted since the last flush: in Lambda one EMF document (one `Count` per metric, summed), with
 * nothing printed when nothing was counted (Powertools would warn "No application metrics to publish"). Call it
 * once at the end of an invocation, on its error path too. Never throws: a metric that cannot be published is
 * logged, never a reason to fail the work it counted.
 */
export async function flushMetrics(): Promise<void> {
  if (pending.size === 0) return;
  const counts = [...pending];
  pending.clear();
  if (!publishesToCloudWatch()) {
    for (const [name, value] of counts) flushedLocally.set(name, (flushedLocally.get(name) ?? 0) + value);
    return;
  }
  try {
    const namespace = process.env[METRICS_NAMESPACE_ENV];
    if (!namespace) throw new Error(`Missing required environment variable ${METRICS_NAMESPACE_ENV}`);
    const { module, metrics } = await cloudWatch(namespace);
    for (const [name, value] of counts) metrics.addMetric(name, module.MetricUnit.Count, value);
    metrics.publishStoredMetrics();
  } catch (e) {
    logger.error('metrics not published', { error: e as Error, counts: Object.fromEntries(counts) });
  }
}

/** Off Lambda: every metric's total of what was flushed in this process (a count never flushed is lost in AWS too). */
export function localMetricTotals(): Record<MetricName, number> {
  return Object.fromEntries(METRIC_NAMES.map((name) => [name, flushedLocally.get(name) ?? 0])) as Record<MetricName, number>;
}

/** Tests: forget the local totals and anything counted but not flushed. */
export function resetLocalMetrics(): void {
  pending.clear();
  flushedLocally.clear();
}
