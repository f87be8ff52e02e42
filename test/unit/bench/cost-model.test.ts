import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AWS_PRICES } from '../../../bin/cost/aws-prices.js';
import { addInvocation, combine, costRow, dearest, DEFAULT_ASSUMPTIONS, dollars, emptyConsumption, functionMemoryMb, gbSeconds, openSearchSharePerJob, type Consumption, type CostLine } from '../../../bin/cost/cost-model.js';

/**
 * The cost bench's arithmetic (bin/cost/cost-model.ts) on consumption the twin recorded: the fixture holds what
 * three operations consumed in one run of bin/bench-cost.ts and the dollars worked out from the price table
 * independently of the module.
 */
interface Fixture {
  lines: {
    operation: string;
    unit: string;
    operations: number;
    creditsPerOperation: number;
    consumption: Consumption;
    expected: { gbSeconds: number; per1000: Record<string, number>; totalPer1000: number; creditsPer1000: number; revenuePer1000: number; marginPer1000: number };
  }[];
}
const fixture = JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.url)), '../../fixtures/bench-cost/recorded-consumption.json'), 'utf8')) as Fixture;

describe('cost per 1,000 operations from a recorded consumption', () => {
  test.each(fixture.lines.map((l) => [l.operation, l] as const))('%s', (_name, l) => {
    const line: CostLine = { operation: l.operation, unit: l.unit, operations: l.operations, consumption: l.consumption, creditsPerOperation: l.creditsPerOperation, searchJobsPerOperation: 0 };
    const row = costRow(line, AWS_PRICES, DEFAULT_ASSUMPTIONS);
    expect(gbSeconds(l.consumption)).toBeCloseTo(l.expected.gbSeconds, 9);
    for (const [component, usd] of Object.entries(l.expected.per1000)) expect([component, row.per1000[component as keyof typeof row.per1000]]).toEqual([component, expect.closeTo(usd, 9)]);
    expect(row.per1000.total).toBeCloseTo(l.expected.totalPer1000, 9);
    expect(row.creditsPer1000).toBe(l.expected.creditsPer1000);
    expect(row.revenuePer1000).toBeCloseTo(l.expected.revenuePer1000, 9);
    expect(row.marginPer1000).toBeCloseTo(l.expected.marginPer1000, 9);
  });

  test('a sent email earns nothing: no margin share, and it is left out of the dearest per dollar earned', () => {
    const rows = fixture.lines.map((l) => costRow({ ...l, searchJobsPerOperation: 0 }, AWS_PRICES, DEFAULT_ASSUMPTIONS));
    const sent = rows.find((r) => r.operation === 'sent email (SES)')!;
    expect(sent.marginShare).toBeNull();
    expect(sent.largest).toBe('ses');
    const worst = dearest(rows);
    expect(worst.perOperation.operation).toMatch(/^sequence/);
    expect(worst.perRevenue!.operation).not.toBe('sent email (SES)');
  });
});

describe('the pieces', () => {
  test('an invocation is billed by the millisecond, rounded up, at its memory', () => {
    const c = emptyConsumption();
    addInvocation(c, 'sending-worker', 512, 10.2);
    addInvocation(c, 'sending-worker', 512, 0.3);
    addInvocation(c, 'search-worker', 2048, 1000);
    expect(c.lambda['sending-worker']).toEqual({ memoryMb: 512, invocations: 2, billedMs: 12 });
    expect(gbSeconds(c)).toBeCloseTo(0.012 * 0.5 + 1 * 2, 12);
    expect(dollars(c, AWS_PRICES, DEFAULT_ASSUMPTIONS).lambdaRequests).toBeCloseTo(3 * 0.2e-6, 15);
  });

  test('a window is the difference of two running totals', () => {
    const before = emptyConsumption();
    before.dynamodb.readUnits = 10;
    addInvocation(before, 'a', 512, 5);
    const after = structuredClone(before);
    after.dynamodb.readUnits += 4.5;
    after.sesEmails += 2;
    addInvocation(after, 'b', 1024, 7);
    const window = combine(after, before, -1);
    expect(window.dynamodb.readUnits).toBe(4.5);
    expect(window.sesEmails).toBe(2);
    expect(window.lambda).toEqual({ b: { memoryMb: 1024, invocations: 1, billedMs: 7 } });
  });

  test('functions run at their deployed memory: the catalogue, else 512 MB, under the deploy cap', () => {
    expect(functionMemoryMb('search-worker')).toBe(2048);
    expect(functionMemoryMb('directory-finalize-worker')).toBe(3008);
    expect(functionMemoryMb('directory-finalize-worker', 10240)).toBe(10240);
    expect(functionMemoryMb('POST /api/public/v1/enrich/email/')).toBe(512);
    expect(functionMemoryMb('sweeper')).toBe(512);
  });

  test("OpenSearch Serverless: the collection's minimum OCUs a month spread over the month's search jobs", () => {
    // 2 OCUs × $0.24 × 730 h = $350.40 a month, over 100,000 jobs.
    expect(openSearchSharePerJob(AWS_PRICES, DEFAULT_ASSUMPTIONS)).toBeCloseTo(0.003504, 9);
  });
});
