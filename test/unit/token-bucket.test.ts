import { TokenBuckets } from '../../shared/local/token-bucket.js';

describe('token buckets (local usage-plan throttles)', () => {
  test('burst then sustained rate, per id', () => {
    let now = 0;
    const b = new TokenBuckets(() => now);
    const take = (id: string) => b.take(id, 6, 2); // POST /search/: 6 per minute, burst 2
    expect([take('k1'), take('k1'), take('k1')]).toEqual([true, true, false]);
    expect(take('k2')).toBe(true);
    now += 9_999; // 6/min = one token per 10 s
    expect(take('k1')).toBe(false);
    now += 1;
    expect(take('k1')).toBe(true);
    now += 60_000;
    expect([take('k1'), take('k1'), take('k1')]).toEqual([true, true, false]);
  });
});
