import { once } from '../../../shared/core/once.js';

test('once calls its function at the first call only and returns that result to every caller', async () => {
  let calls = 0;
  const load = once(() => Promise.resolve(++calls));
  expect(calls).toBe(0);
  const [a, b] = await Promise.all([load(), load()]);
  expect([a, b, await load(), calls]).toEqual([1, 1, 1, 1]);
});

test('an undefined result is remembered too, not recomputed', () => {
  let calls = 0;
  const nothing = once(() => {
    calls += 1;
    return undefined;
  });
  expect([nothing(), nothing(), calls]).toEqual([undefined, undefined, 1]);
});
