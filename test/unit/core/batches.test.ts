import { jest } from '@jest/globals';
import { inBatches } from '../../../shared/core/batches.js';

describe('inBatches', () => {
  test('runs at most `size` at once, one batch after the other, and keeps the order given', async () => {
    let running = 0;
    let most = 0;
    const started: number[] = [];
    const out = await inBatches([5, 1, 4, 2, 3, 0, 6], 3, async (n) => {
      started.push(n);
      running++;
      most = Math.max(most, running);
      await new Promise((r) => setTimeout(r, n));
      running--;
      return n * 10;
    });
    expect(out).toEqual([50, 10, 40, 20, 30, 0, 60]);
    expect(most).toBe(3);
    expect(started).toEqual([5, 1, 4, 2, 3, 0, 6]);
  });

  test('an empty list calls nothing', async () => {
    const fn = jest.fn(async () => 1);
    expect(await inBatches([], 10, fn)).toEqual([]);
    expect(fn).not.toHaveBeenCalled();
  });
});
