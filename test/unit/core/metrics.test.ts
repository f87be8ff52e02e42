import { jest } from '@jest/globals';
import { readFileSync } from 'node:fs';
import {
  METRICS,
  METRIC_DESCRIPTIONS,
  METRIC_NAMES,
  METRIC_QUEUES,
  countCommitted,
  countMetric,
  countOnCommit,
  flushMetrics,
  localMetricLines,
  localMetricTotals,
  metricsNamespace,
  observeMetric,
  resetLocalMetrics,
  setLocalMetricsLog,
} from '../../../shared/core/metrics.js';
import { QUEUE_LIST } from '../../../shared/catalog/queues.js';

// What each test runs as: the twin (SERVICE_MODE=local), or a Lambda function (AWS_LAMBDA_FUNCTION_NAME, which only
// Lambda sets) with the namespace the stack gives every function.
const VARIABLES = ['SERVICE_MODE', 'AWS_LAMBDA_FUNCTION_NAME', 'POWERTOOLS_METRICS_NAMESPACE', 'POWERTOOLS_SERVICE_NAME', 'POWERTOOLS_DEV', 'POWERTOOLS_METRICS_DISABLED'] as const;
const saved = Object.fromEntries(VARIABLES.map((k) => [k, process.env[k]]));
function runAs(env: Partial<Record<(typeof VARIABLES)[number], string>>): void {
  for (const k of VARIABLES) delete process.env[k];
  Object.assign(process.env, env);
}
afterAll(() => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

/** Everything written to stdout and stderr (console, Powertools' own Console, the logger) while `work` runs. */
async function output(work: () => unknown): Promise<{ stdout: string[]; stderr: string[] }> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const out = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown) => (stdout.push(String(chunk)), true));
  const err = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: unknown) => (stderr.push(String(chunk)), true));
  try {
    await work();
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
  return { stdout, stderr };
}

type Emf = { _aws: { Timestamp: number; CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] }[] } } & Record<string, unknown>;
const docs = () => localMetricLines().map((l) => JSON.parse(l) as Emf);
const zero = Object.fromEntries(METRIC_NAMES.map((n) => [n, 0]));

describe('the catalogue: one place for every name, unit, meaning and dimension', () => {
  test('every metric has a snake_case name, a unit CloudWatch knows, a sentence, and dimensions with a bounded list of values', () => {
    expect(METRIC_NAMES.length).toBeGreaterThanOrEqual(20);
    for (const name of METRIC_NAMES) {
      const def = METRICS[name];
      expect([name, /^[a-z][a-z_]*[a-z]$/.test(name)]).toEqual([name, true]);
      expect(['Count', 'Milliseconds', 'Seconds']).toContain(def.unit);
      expect(METRIC_DESCRIPTIONS[name].length).toBeGreaterThan(15);
      const dims = 'dimensions' in def ? (def.dimensions as Record<string, readonly string[]>) : {};
      // Few and bounded: at most two dimensions, each with a short fixed list, none naming an account or an address.
      expect(Object.keys(dims).length).toBeLessThanOrEqual(2);
      for (const [dim, values] of Object.entries(dims)) {
        expect(['tier', 'kind', 'outcome', 'queue', 'table']).toContain(dim);
        expect(values.length).toBeGreaterThan(0);
        expect(values.length).toBeLessThanOrEqual(10);
        // A dimension named like a metric would collide in the EMF document.
        expect(METRIC_NAMES).not.toContain(dim);
      }
    }
  });

  test('the business counters and the health metrics the operators read are there, latency and age timed', () => {
    for (const name of ['searches', 'leads', 'enrichments', 'credits_charged', 'credits_released', 'drafts', 'sends', 'bounces_hard', 'bounces_soft', 'complaints', 'replies', 'unsubscribes', 'webhook_attempts', 'webhook_failures']) {
      expect([name, METRICS[name as keyof typeof METRICS]?.unit]).toEqual([name, 'Count']);
    }
    expect(METRICS.job_latency.unit).toBe('Milliseconds');
    expect(METRICS.queue_age.unit).toBe('Seconds');
    for (const name of ['mailbox_polls_failed', 'messages_unprocessable', 'lost_work_ended', 'jobs_ended', 'dead_letters']) expect(METRIC_NAMES).toContain(name);
    expect(METRICS.searches.dimensions.tier).toEqual(['people', 'deep', 'agentic']);
    expect(METRICS.enrichments.dimensions).toEqual({ kind: ['email', 'phone', 'professional_url', 'professional_profile', 'bulk'], outcome: ['found', 'not_found', 'error'] });
  });

  test('docs/operating.md has a row for each, with its unit and what it counts', () => {
    const doc = readFileSync(new URL('../../../docs/operating.md', import.meta.url), 'utf8');
    const rows = new Map([...doc.matchAll(/^\| `([a-z_]+)` \| (\w+) \| [^|]* \| (.*) \|$/gm)].map((m) => [m[1]!, [m[2], m[3]]]));
    expect([...rows.keys()]).toEqual(METRIC_NAMES);
    for (const name of METRIC_NAMES) expect([name, ...rows.get(name)!]).toEqual([name, METRICS[name].unit, METRIC_DESCRIPTIONS[name]]);
  });

  test('the queue dimension names every queue of the catalogue', () => {
    expect([...METRIC_QUEUES].sort()).toEqual(QUEUE_LIST.map((q) => q.key).sort());
  });
});

describe('off Lambda and off the twin (unit tests, scripts): EMF lines kept in the process, nothing printed', () => {
  beforeEach(() => {
    runAs({ POWERTOOLS_SERVICE_NAME: 'people-outreach' });
    resetLocalMetrics();
  });

  test('counts are summed per metric and dimension values until the flush, one document per set of dimension values', async () => {
    const printed = await output(async () => {
      countMetric('replies');
      countMetric('replies', 2);
      countMetric('searches', 1, { tier: 'people' });
      countMetric('searches', 1, { tier: 'people' });
      countMetric('leads', 25, { tier: 'people' });
      countMetric('searches', 1, { tier: 'deep' });
      expect(localMetricLines()).toEqual([]);
      await flushMetrics();
    });
    expect(printed).toEqual({ stdout: [], stderr: [] });
    const byDims = new Map(docs().map((d) => [JSON.stringify(d._aws.CloudWatchMetrics[0]!.Dimensions), d]));
    expect(docs()).toHaveLength(3);
    const plain = docs().find((d) => d.tier === undefined)!;
    expect(plain).toMatchObject({ service: 'people-outreach', replies: 3 });
    expect(plain._aws.CloudWatchMetrics).toEqual([{ Namespace: 'people-outreach/local', Dimensions: [['service']], Metrics: [{ Name: 'replies', Unit: 'Count' }] }]);
    const people = docs().find((d) => d.tier === 'people')!;
    expect(people).toMatchObject({ searches: 2, leads: 25 });
    expect(people._aws.CloudWatchMetrics[0]!.Dimensions).toEqual([['service', 'tier']]);
    expect(docs().find((d) => d.tier === 'deep')).toMatchObject({ searches: 1 });
    expect(byDims.size).toBe(2);
    expect(localMetricTotals()).toEqual({ ...zero, replies: 3, searches: 3, leads: 25 });
  });

  test('a timing keeps each observation (EMF values), split so no document holds more than 99 of one metric', async () => {
    for (let i = 0; i < 150; i++) observeMetric('queue_age', i, { queue: 'sending' });
    observeMetric('job_latency', 0, { tier: 'people' });
    await flushMetrics();
    const ages = docs().filter((d) => d.queue === 'sending');
    expect(ages.map((d) => (d.queue_age as number[]).length)).toEqual([99, 51]);
    expect(ages[0]!._aws.CloudWatchMetrics[0]!.Metrics).toEqual([{ Name: 'queue_age', Unit: 'Seconds' }]);
    // A zero timing is an observation (a zero count adds nothing).
    expect(docs().find((d) => d.tier === 'people')).toMatchObject({ job_latency: 0 });
    expect(localMetricTotals().queue_age).toBe((149 * 150) / 2);
  });

  test('a value that is not a finite, non-negative number, or a dimension the catalogue does not give, is ignored, never thrown', async () => {
    for (const value of [Number.NaN, -1, Number.POSITIVE_INFINITY, '2' as unknown as number, 0]) expect(() => countMetric('complaints', value)).not.toThrow();
    const loose = countMetric as unknown as (name: string, value?: unknown, dims?: unknown) => void;
    expect(() => loose('searches', 1, { tier: 'acct_01h0000000000000000000000' })).not.toThrow();
    expect(() => loose('searches', 1)).not.toThrow();
    expect(() => loose('searches', 1, { tier: 'people', account: 'acct_1' })).not.toThrow();
    expect(() => loose('replies', 1, { tier: 'people' })).not.toThrow();
    expect(() => loose('no_such_metric', 1)).not.toThrow();
    expect(() => loose('enrichments', 1, { kind: 'email' })).not.toThrow();
    await flushMetrics();
    expect(localMetricLines()).toEqual([]);
  });

  test('counts that ride in a transaction are taken only when it commits, once', async () => {
    const settle = countOnCommit(countOnCommit({ Update: { Key: { pk: 'a' } } }, 'credits_charged', 4), 'credits_released', 6);
    const other = { Update: { Key: { pk: 'b' } } };
    // A transaction that failed never reaches countCommitted; a committed one counts what its items carry.
    countCommitted([other, settle, null, 'x']);
    await flushMetrics();
    expect(localMetricTotals()).toEqual({ ...zero, credits_charged: 4, credits_released: 6 });
    expect(() => countCommitted(null as unknown as unknown[])).not.toThrow();
  });

  test('nothing counted: nothing kept', async () => {
    await flushMetrics();
    expect(localMetricLines()).toEqual([]);
  });
});

describe('on the twin: the same lines, to the log the twin hands over', () => {
  beforeEach(() => {
    runAs({ SERVICE_MODE: 'local', POWERTOOLS_SERVICE_NAME: 'people-outreach', POWERTOOLS_METRICS_NAMESPACE: 'people-outreach/local' });
    resetLocalMetrics();
  });

  test('each flush writes its lines to the twin log, nothing printed; after the undo they stay in the process', async () => {
    const written: string[][] = [];
    const undo = setLocalMetricsLog((lines) => void written.push([...lines]));
    const printed = await output(async () => {
      countMetric('sends', 2);
      countMetric('enrichments', 1, { kind: 'email', outcome: 'found' });
      await flushMetrics();
      // The twin running a Lambda-named process is still the twin.
      process.env.AWS_LAMBDA_FUNCTION_NAME = 'x';
      countMetric('bounces_hard');
      await flushMetrics();
    });
    expect(printed).toEqual({ stdout: [], stderr: [] });
    expect(written.map((lines) => lines.length)).toEqual([2, 1]);
    const all = written.flat().map((l) => JSON.parse(l) as Emf);
    expect(all.find((d) => d.kind === 'email')).toMatchObject({ enrichments: 1, outcome: 'found', service: 'people-outreach' });
    expect(all.find((d) => d.kind === 'email')!._aws.CloudWatchMetrics[0]!.Dimensions).toEqual([['service', 'kind', 'outcome']]);
    expect(localMetricLines()).toEqual([]);
    undo();
    countMetric('sends');
    await flushMetrics();
    expect(written).toHaveLength(2);
    expect(localMetricTotals().sends).toBe(1);
  });

  test('a log that fails to write is logged, never thrown', async () => {
    const undo = setLocalMetricsLog(() => Promise.reject(new Error('disk full')));
    const printed = await output(async () => {
      countMetric('sends');
      await expect(flushMetrics()).resolves.toBeUndefined();
    });
    undo();
    expect([...printed.stdout, ...printed.stderr].join('')).toContain('metrics not published');
  });
});

describe('in Lambda: Embedded Metric Format lines on stdout, made by Powertools', () => {
  beforeEach(() => {
    runAs({ AWS_LAMBDA_FUNCTION_NAME: 'people-outreach-test-inbound', POWERTOOLS_METRICS_NAMESPACE: metricsNamespace('people-outreach', 'test'), POWERTOOLS_SERVICE_NAME: 'people-outreach' });
    resetLocalMetrics();
  });

  test('the counts of an invocation, summed, as one line with the stage namespace and the service dimension', async () => {
    const printed = await output(async () => {
      countMetric('bounces_hard');
      countMetric('replies', 2);
      countMetric('replies');
      countMetric('messages_unprocessable');
      await flushMetrics();
    });
    expect(printed.stderr).toEqual([]);
    expect(printed.stdout).toHaveLength(1);
    const emf = JSON.parse(printed.stdout[0]!) as Emf;
    expect(emf._aws.CloudWatchMetrics).toEqual([
      {
        Namespace: 'people-outreach/test',
        Dimensions: [['service']],
        Metrics: [
          { Name: 'bounces_hard', Unit: 'Count' },
          { Name: 'replies', Unit: 'Count' },
          { Name: 'messages_unprocessable', Unit: 'Count' },
        ],
      },
    ]);
    expect(emf).toMatchObject({ service: 'people-outreach', bounces_hard: 1, replies: 3, messages_unprocessable: 1 });
    expect(Math.abs(emf._aws.Timestamp - Date.now())).toBeLessThan(60_000);
    // Published, not kept: the process keeps nothing.
    expect(localMetricLines()).toEqual([]);
  });

  test('one line per set of dimension values, each with its dimension, a timing with its unit', async () => {
    const printed = await output(async () => {
      observeMetric('job_latency', 1200, { tier: 'deep' });
      observeMetric('job_latency', 800, { tier: 'deep' });
      countMetric('searches', 1, { tier: 'deep' });
      countMetric('jobs_ended', 1, { outcome: 'completed' });
      await flushMetrics();
    });
    expect(printed.stderr).toEqual([]);
    expect(printed.stdout).toHaveLength(1);
    const lines = printed.stdout[0]!.trim().split('\n').map((l) => JSON.parse(l) as Emf);
    expect(lines).toHaveLength(2);
    const deep = lines.find((l) => l.tier === 'deep')!;
    expect(deep).toMatchObject({ job_latency: [1200, 800], searches: 1 });
    expect(deep._aws.CloudWatchMetrics[0]!.Metrics).toEqual([
      { Name: 'job_latency', Unit: 'Milliseconds' },
      { Name: 'searches', Unit: 'Count' },
    ]);
    expect(lines.find((l) => l.outcome === 'completed')!._aws.CloudWatchMetrics[0]!.Dimensions).toEqual([['service', 'outcome']]);
  });

  test('nothing counted: nothing printed, and no "No application metrics to publish" warning', async () => {
    const printed = await output(async () => {
      await flushMetrics();
      countMetric('complaints');
      await flushMetrics();
      await flushMetrics();
    });
    expect(printed.stderr).toEqual([]);
    expect(printed.stdout.map((line) => Object.keys(JSON.parse(line) as object))).toEqual([['_aws', 'service', 'complaints']]);
  });

  test('POWERTOOLS_METRICS_DISABLED silences them', async () => {
    process.env.POWERTOOLS_METRICS_DISABLED = 'true';
    const printed = await output(async () => {
      countMetric('complaints');
      await flushMetrics();
    });
    expect(printed).toEqual({ stdout: [], stderr: [] });
  });

  test('without its namespace nothing is published and the invocation goes on: the error is logged', async () => {
    runAs({ AWS_LAMBDA_FUNCTION_NAME: 'x', POWERTOOLS_SERVICE_NAME: 'people-outreach' });
    const printed = await output(async () => {
      countMetric('replies');
      await expect(flushMetrics()).resolves.toBeUndefined();
    });
    const lines = [...printed.stdout, ...printed.stderr].join('');
    expect(lines).not.toContain('"_aws"');
    expect(lines).toContain('POWERTOOLS_METRICS_NAMESPACE');
  });
});
