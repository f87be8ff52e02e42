import type { Caller } from './handler.js';

/**
 * A bounded map from API key hash to the caller it names (account and key id), least recently used entry
 * evicted first. It holds no secret (hashes only) and nothing that can go stale: a key belongs to one
 * account for its whole life, while revocation and flags are read from the key record on every request.
 */
export class KnownKeys {
  private readonly entries = new Map<string, Caller>();
  constructor(private readonly capacity: number) {}

  get(keyHash: string): Caller | undefined {
    const caller = this.entries.get(keyHash);
    if (caller) {
      this.entries.delete(keyHash);
      this.entries.set(keyHash, caller);
    }
    return caller;
  }

  remember(keyHash: string, caller: Caller): void {
    this.entries.delete(keyHash);
    this.entries.set(keyHash, caller);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }

  get size(): number {
    return this.entries.size;
  }
}
