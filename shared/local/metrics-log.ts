import { appendFile, readFile } from 'node:fs/promises';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { METRICS, METRIC_NAMES, type MetricName } from '../core/metrics.js';

/**
 * The twin's stand-in for CloudWatch Logs and Metrics. Every function the twin runs writes the Embedded Metric
 * Format lines it would print in Lambda (shared/core/metrics.ts `flushMetrics`) to this log: an append-only file,
 * `metrics.log` under the data directory (0600, like everything there; lines older than a day are dropped when the
 * twin starts), or memory for an in-memory stack. `GET /api/console/v1/metrics/` (shared/local/dev-controls.ts)
 * sums it over the last hour and the last day. Timestamps are the lines' own (EMF `_aws.Timestamp`, the wall
 * clock, as CloudWatch files them): moving the service clock (`dev/clock/`) moves no metric out of its window.
 */
export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;
/** An in-memory log keeps at most this many lines (the oldest go first). */
const MEMORY_LINES = 100_000;

export interface MetricTotal {
  unit: string;
  /** Every value together: a count's total, a timing's sum of observations. */
  sum: number;
  /** Data points: the counts flushed, or the timings observed. */
  samples: number;
  /** Timings only. */
  average?: number;
  maximum?: number;
  /** The sum by each dimension's values (a metric with dimensions only). */
  by?: Record<string, Record<string, number>>;
}

export interface MetricsWindow {
  from: string;
  to: string;
  metrics: Record<string, MetricTotal>;
}

interface EmfDocument {
  _aws: { Timestamp: number; CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] }[] };
  [key: string]: unknown;
}

function parse(line: string): EmfDocument | null {
  try {
    const doc = JSON.parse(line) as EmfDocument;
    return typeof doc?._aws?.Timestamp === 'number' && Array.isArray(doc._aws.CloudWatchMetrics) ? doc : null;
  } catch {
    return null;
  }
}

const round = (n: number) => Math.round(n * 1000) / 1000;

/**
 * The totals of the lines whose timestamp falls in (`now` − `windowMs`, `now`], in `namespace` when one is given:
 * every metric of the catalogue (zero when none was counted) and any other metric the lines name.
 */
export function sumMetricLines(lines: Iterable<string>, now: number, windowMs: number, namespace?: string): MetricsWindow {
  const from = now - windowMs;
  const totals = new Map<string, MetricTotal>();
  const total = (name: string, unit: string) => {
    let t = totals.get(name);
    if (!t) totals.set(name, (t = { unit, sum: 0, samples: 0 }));
    return t;
  };
  for (const name of METRIC_NAMES) {
    const def = METRICS[name as MetricName];
    const t = total(name, def.unit);
    if ('dimensions' in def) t.by = Object.fromEntries(Object.keys(def.dimensions).map((d) => [d, {}]));
  }
  for (const line of lines) {
    const doc = parse(line);
    if (!doc || doc._aws.Timestamp <= from || doc._aws.Timestamp > now) continue;
    for (const directive of doc._aws.CloudWatchMetrics) {
      if (namespace && directive.Namespace !== namespace) continue;
      const dimensions = [...new Set(directive.Dimensions.flat())].filter((d) => d !== 'service' && typeof doc[d] === 'string');
      for (const { Name, Unit } of directive.Metrics) {
        const raw = doc[Name];
        const values = (Array.isArray(raw) ? raw : [raw]).filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
        if (!values.length) continue;
        const t = total(Name, Unit);
        const sum = values.reduce((a, b) => a + b, 0);
        t.sum += sum;
        t.samples += values.length;
        if (Unit !== 'Count') t.maximum = Math.max(t.maximum ?? 0, ...values);
        for (const d of dimensions) {
          t.by ??= {};
          const byValue = (t.by[d] ??= {});
          byValue[doc[d] as string] = (byValue[doc[d] as string] ?? 0) + sum;
        }
      }
    }
  }
  const metrics: Record<string, MetricTotal> = {};
  for (const [name, t] of totals) {
    const out: MetricTotal = { unit: t.unit, sum: round(t.sum), samples: t.samples };
    if (t.unit !== 'Count') Object.assign(out, { average: t.samples ? round(t.sum / t.samples) : 0, maximum: round(t.maximum ?? 0) });
    if (t.by) out.by = Object.fromEntries(Object.entries(t.by).map(([d, values]) => [d, Object.fromEntries(Object.entries(values).map(([v, n]) => [v, round(n)]))]));
    metrics[name] = out;
  }
  return { from: new Date(from).toISOString(), to: new Date(now).toISOString(), metrics };
}

/** What `GET /api/console/v1/metrics/` answers. */
export interface MetricsReport {
  namespace: string;
  last_hour: MetricsWindow;
  last_day: MetricsWindow;
}

export class MetricsLog {
  private readonly memory: string[] = [];

  /**
   * The log at `file` (null: in memory). An existing file keeps only its lines of the last day: the console
   * reads no further back, and a twin left running for months does not grow it without end.
   */
  constructor(
    readonly file: string | null,
    now = Date.now(),
  ) {
    if (!file || !existsSync(file)) return;
    const kept = readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => {
        const doc = line ? parse(line) : null;
        return doc !== null && doc._aws.Timestamp > now - DAY_MS;
      });
    writeFileSync(file, kept.length ? `${kept.join('\n')}\n` : '', { mode: 0o600 });
    chmodSync(file, 0o600);
  }

  /** Append a flush's lines (the functions' `MetricsLogWriter`). */
  async append(lines: readonly string[]): Promise<void> {
    if (!lines.length) return;
    if (this.file) {
      await appendFile(this.file, `${lines.join('\n')}\n`, { mode: 0o600 });
      return;
    }
    this.memory.push(...lines);
    if (this.memory.length > MEMORY_LINES) this.memory.splice(0, this.memory.length - MEMORY_LINES);
  }

  async lines(): Promise<string[]> {
    if (!this.file) return [...this.memory];
    return existsSync(this.file) ? (await readFile(this.file, 'utf8')).split('\n').filter(Boolean) : [];
  }

  /** The sums of the last hour and the last day, of `namespace`. */
  async report(namespace: string, now = Date.now()): Promise<MetricsReport> {
    const lines = await this.lines();
    return { namespace, last_hour: sumMetricLines(lines, now, HOUR_MS, namespace), last_day: sumMetricLines(lines, now, DAY_MS, namespace) };
  }
}
