import { LruMap } from '../core/lru-map.js';

/**
 * Token buckets per (key, route), as API Gateway usage-plan method throttles apply per API key. At most
 * `capacity` buckets are held: the least recently used goes first, so a flood of distinct presented keys
 * cannot grow the map without bound (a forgotten bucket comes back full, as after a quiet spell).
 */
export class TokenBuckets {
  private readonly buckets: LruMap<string, { tokens: number; at: number }>;
  constructor(
    private readonly now: () => number = () => Date.now(),
    capacity = 10_000,
  ) {
    this.buckets = new LruMap(capacity);
  }

  take(id: string, perMinute: number, burst: number): boolean {
    const t = this.now();
    const b = this.buckets.get(id) ?? { tokens: burst, at: t };
    b.tokens = Math.min(burst, b.tokens + ((t - b.at) / 60_000) * perMinute);
    b.at = t;
    const ok = b.tokens >= 1;
    if (ok) b.tokens -= 1;
    this.buckets.set(id, b);
    return ok;
  }

  get size(): number {
    return this.buckets.size;
  }
}
