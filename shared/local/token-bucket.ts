/** Token buckets per (key, route), as API Gateway usage-plan method throttles apply per API key. */
export class TokenBuckets {
  private buckets = new Map<string, { tokens: number; at: number }>();
  constructor(private readonly now: () => number = () => Date.now()) {}

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
}
