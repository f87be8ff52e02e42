import { jest } from '@jest/globals';
import { METRIC_NAMES, countMetric, flushMetrics, localMetricTotals, metricsNamespace, resetLocalMetrics } from '../../../shared/core/metrics.js';

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

const zero = Object.fromEntries(METRIC_NAMES.map((n) => [n, 0]));

describe('on the twin (and in tests): counted in memory, nothing printed', () => {
  beforeEach(() => {
    runAs({ SERVICE_MODE: 'local', POWERTOOLS_SERVICE_NAME: 'people-outreach' });
    resetLocalMetrics();
  });

  test('a count reaches the totals when it is flushed, summed per metric', async () => {
    const printed = await output(async () => {
      countMetric('replies');
      countMetric('replies', 2);
      countMetric('bounces_hard');
      expect(localMetricTotals()).toEqual(zero);
      await flushMetrics();
      countMetric('replies');
      await flushMetrics();
    });
    expect(localMetricTotals()).toEqual({ ...zero, replies: 4, bounces_hard: 1 });
    expect(printed).toEqual({ stdout: [], stderr: [] });
  });

  test('a value that is not a finite, non-negative number is ignored, never thrown', async () => {
    for (const value of [Number.NaN, -1, Number.POSITIVE_INFINITY, '2' as unknown as number]) expect(() => countMetric('complaints', value)).not.toThrow();
    countMetric('complaints', 0);
    await flushMetrics();
    expect(localMetricTotals()).toEqual(zero);
  });

  test('without AWS_LAMBDA_FUNCTION_NAME it stays in memory even when SERVICE_MODE is unset (unit tests, scripts)', async () => {
    runAs({ POWERTOOLS_METRICS_NAMESPACE: 'people-outreach/test' });
    const printed = await output(async () => {
      countMetric('inbound_failed');
      await flushMetrics();
    });
    expect(printed.stdout).toEqual([]);
    expect(localMetricTotals().inbound_failed).toBe(1);
  });

  test('the twin running a Lambda-named process still keeps them in memory', async () => {
    runAs({ SERVICE_MODE: 'local', AWS_LAMBDA_FUNCTION_NAME: 'x', POWERTOOLS_METRICS_NAMESPACE: 'people-outreach/test' });
    const printed = await output(async () => {
      countMetric('mailbox_polls_failed');
      await flushMetrics();
    });
    expect(printed.stdout).toEqual([]);
    expect(localMetricTotals().mailbox_polls_failed).toBe(1);
  });
});

describe('in Lambda: one Embedded Metric Format document per flush, through Powertools', () => {
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
    const emf = JSON.parse(printed.stdout[0]!) as { _aws: { Timestamp: number; CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] }[] } } & Record<string, unknown>;
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
    // Published, not kept: the totals are the twin's alone.
    expect(localMetricTotals()).toEqual(zero);
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
