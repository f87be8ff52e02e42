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

describe('token buckets are bounded', () => {
  test('beyond capacity the least recently used bucket is forgotten and comes back full', () => {
    let now = 0;
    const b = new TokenBuckets(() => now, 3);
    const take = (id: string) => b.take(id, 6, 1);
    expect(take('a')).toBe(true);
    expect(take('a')).toBe(false);
    expect(take('b')).toBe(true);
    expect(take('c')).toBe(true);
    expect(take('a')).toBe(false); // a is now the most recently used
    expect(take('d')).toBe(true); // evicts b
    expect(b.size).toBe(3);
    expect(take('c')).toBe(false); // still remembered
    expect(take('b')).toBe(true); // forgotten: a full bucket again
    for (let i = 0; i < 1000; i++) take(`flood-${i}`);
    expect(b.size).toBe(3);
  });
});
