import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DAY_MS, HOUR_MS, MetricsLog, sumMetricLines } from '../../../shared/local/metrics-log.js';
import { METRIC_NAMES } from '../../../shared/core/metrics.js';

// EMF lines as the functions write them (shared/core/metrics.ts), at chosen timestamps.
const NS = 'people-outreach/local';
const NOW = Date.UTC(2026, 10, 20, 12, 0, 0);
function line(at: number, values: Record<string, number | number[]>, dims: Record<string, string> = {}, units: Record<string, string> = {}, namespace = NS): string {
  return JSON.stringify({
    _aws: {
      Timestamp: at,
      CloudWatchMetrics: [{ Namespace: namespace, Dimensions: [['service', ...Object.keys(dims)]], Metrics: Object.keys(values).map((Name) => ({ Name, Unit: units[Name] ?? 'Count' })) }],
    },
    service: 'people-outreach',
    ...dims,
    ...values,
  });
}

const LINES = [
  line(NOW - 10 * 60_000, { searches: 2, leads: 40 }, { tier: 'people' }),
  line(NOW - 20 * 60_000, { searches: 1, leads: 3 }, { tier: 'deep' }),
  line(NOW - 30 * 60_000, { sends: 1, bounces_hard: 1 }),
  line(NOW - 40 * 60_000, { job_latency: [100, 300] }, { tier: 'people' }, { job_latency: 'Milliseconds' }),
  line(NOW - 50 * 60_000, { enrichments: 4 }, { kind: 'email', outcome: 'found' }),
  line(NOW - 55 * 60_000, { enrichments: 1 }, { kind: 'email', outcome: 'not_found' }),
  // Earlier today: in the day, not in the hour.
  line(NOW - 2 * HOUR_MS, { searches: 5 }, { tier: 'people' }),
  line(NOW - 23 * HOUR_MS, { sends: 10, job_latency: 900 }, {}, { job_latency: 'Milliseconds' }),
  // Exactly a day (and an hour) old: out; older still: out; in the future (another clock): out.
  line(NOW - DAY_MS, { sends: 100 }),
  line(NOW - 3 * DAY_MS, { sends: 1000 }),
  line(NOW + 60_000, { sends: 7 }),
  // Another namespace (another stage), a line that is not EMF, an empty one.
  line(NOW - 60_000, { sends: 50 }, {}, {}, 'people-outreach/prod'),
  '{"message":"not a metric"}',
  'not json at all',
  '',
];

test('the last hour: sums, samples and the values of each dimension, every catalogue metric listed', () => {
  const hour = sumMetricLines(LINES, NOW, HOUR_MS, NS);
  expect(hour.from).toBe(new Date(NOW - HOUR_MS).toISOString());
  expect(hour.to).toBe(new Date(NOW).toISOString());
  expect(Object.keys(hour.metrics).sort()).toEqual([...METRIC_NAMES].sort());
  expect(hour.metrics.searches).toEqual({ unit: 'Count', sum: 3, samples: 2, by: { tier: { people: 2, deep: 1 } } });
  expect(hour.metrics.leads).toEqual({ unit: 'Count', sum: 43, samples: 2, by: { tier: { people: 40, deep: 3 } } });
  expect(hour.metrics.sends).toEqual({ unit: 'Count', sum: 1, samples: 1 });
  expect(hour.metrics.bounces_hard).toEqual({ unit: 'Count', sum: 1, samples: 1 });
  expect(hour.metrics.enrichments).toEqual({ unit: 'Count', sum: 5, samples: 2, by: { kind: { email: 5 }, outcome: { found: 4, not_found: 1 } } });
  expect(hour.metrics.job_latency).toEqual({ unit: 'Milliseconds', sum: 400, samples: 2, average: 200, maximum: 300, by: { tier: { people: 400 } } });
  expect(hour.metrics.complaints).toEqual({ unit: 'Count', sum: 0, samples: 0 });
  expect(hour.metrics.queue_age).toEqual({ unit: 'Seconds', sum: 0, samples: 0, average: 0, maximum: 0, by: { queue: {} } });
});

test('the last day takes the lines of the last 24 hours, the hour’s among them', () => {
  const day = sumMetricLines(LINES, NOW, DAY_MS, NS);
  expect(day.metrics.searches).toEqual({ unit: 'Count', sum: 8, samples: 3, by: { tier: { people: 7, deep: 1 } } });
  expect(day.metrics.sends.sum).toBe(11);
  expect(day.metrics.job_latency).toMatchObject({ sum: 1300, samples: 3, maximum: 900 });
  // Without a namespace, every stage's lines count.
  expect(sumMetricLines(LINES, NOW, DAY_MS).metrics.sends.sum).toBe(61);
});

describe('the log', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'metrics-log-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  test('a file: appended to (0600), read back, and at start only the last day of it kept', async () => {
    const file = join(dir, 'metrics.log');
    writeFileSync(file, `${[line(NOW - 2 * DAY_MS, { sends: 9 }), 'garbage', line(NOW - HOUR_MS / 2, { sends: 1 })].join('\n')}\n`);
    const log = new MetricsLog(file, NOW);
    expect(readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(1);
    await log.append([line(NOW - 1000, { sends: 2 }), line(NOW - 500, { drafts: 2 })]);
    await log.append([]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const report = await log.report(NS, NOW);
    expect(report.namespace).toBe(NS);
    expect([report.last_hour.metrics.sends.sum, report.last_hour.metrics.drafts.sum, report.last_day.metrics.sends.sum]).toEqual([3, 2, 3]);
  });

  test('a new file is made on the first append; memory when there is no file', async () => {
    const file = join(dir, 'new.log');
    const log = new MetricsLog(file, NOW);
    expect(await log.lines()).toEqual([]);
    await log.append([line(NOW - 1000, { replies: 1 })]);
    expect(await log.lines()).toHaveLength(1);
    const memory = new MetricsLog(null);
    await memory.append([line(NOW - 1000, { unsubscribes: 1 })]);
    expect((await memory.report(NS, NOW)).last_hour.metrics.unsubscribes.sum).toBe(1);
  });
});
