/**
 * A map that holds at most `capacity` entries, the least recently used evicted first. Used where a
 * process remembers something per caller or per item (key hash → caller, finished jobs, throttle
 * buckets) and must not grow without bound under a flood of distinct keys.
 */
export class LruMap<K, V> {
  private readonly entries = new Map<K, V>();
  constructor(private readonly capacity: number) {}

  /** The value, marked as just used. */
  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  has(key: K): boolean {
    return this.entries.has(key);
  }

  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as K);
  }

  get size(): number {
    return this.entries.size;
  }
}
