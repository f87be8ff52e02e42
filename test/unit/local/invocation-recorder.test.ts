import { currentFunction, recordInvocations, runAsFunction, type InvocationRecord } from '../../../shared/local/function-context.js';

/** The twin's optional invocation recorder (bin/bench-cost.ts): off by default, then one record an invocation. */
afterEach(() => recordInvocations(null));

test('nothing is recorded until a recorder is set; then each invocation once, with its duration and outcome', async () => {
  const records: InvocationRecord[] = [];
  await runAsFunction('sweeper', async () => undefined);
  recordInvocations((r) => records.push(r));
  await runAsFunction('sending-worker', () => new Promise((r) => setTimeout(r, 20)));
  await expect(runAsFunction('drafting-worker', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
  expect(() => runAsFunction('timers-worker', () => { throw new Error('sync'); })).toThrow('sync');
  expect(runAsFunction('webhooks-worker', () => 7)).toBe(7);
  await new Promise((r) => setImmediate(r));
  expect(records.map((r) => [r.name, r.failed])).toEqual([
    ['sending-worker', false],
    ['drafting-worker', true],
    ['timers-worker', true],
    ['webhooks-worker', false],
  ]);
  expect(records[0]!.ms).toBeGreaterThanOrEqual(15);
  recordInvocations(null);
  await runAsFunction('sweeper', async () => undefined);
  expect(records).toHaveLength(4);
});

test('the running function is known inside an invocation, across awaits, and not outside one', async () => {
  expect(currentFunction()).toBeUndefined();
  const seen = await runAsFunction('search-worker', async () => {
    await new Promise((r) => setTimeout(r, 1));
    return currentFunction();
  });
  expect(seen).toBe('search-worker');
});
