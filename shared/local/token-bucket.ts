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

/**
 * Requests per (rule, source address) over a trailing window, as an AWS WAF rate-based rule counts them: the
 * estimate weighs the previous fixed window by how much of it still lies inside the trailing one (WAF "gives
 * more importance to more recent requests"). Every request counts, refused ones too, so a source that keeps
 * sending stays refused until its rate falls. LRU-bounded like the buckets.
 */
export class SourceWindows {
  private readonly windows: LruMap<string, { index: number; current: number; previous: number }>;
  constructor(
    private readonly now: () => number = () => Date.now(),
    capacity = 10_000,
  ) {
    this.windows = new LruMap(capacity);
  }

  /** Count one request; true while the source's estimate stays within `limit` per `windowSeconds`. */
  hit(id: string, limit: number, windowSeconds: number): boolean {
    const t = this.now();
    const length = windowSeconds * 1000;
    const index = Math.floor(t / length);
    const known = this.windows.get(id);
    const w =
      known?.index === index ? known : known?.index === index - 1 ? { index, current: 0, previous: known.current } : { index, current: 0, previous: 0 };
    w.current += 1;
    this.windows.set(id, w);
    const inside = 1 - (t - index * length) / length;
    return w.previous * inside + w.current <= limit;
  }

  get size(): number {
    return this.windows.size;
  }
}
