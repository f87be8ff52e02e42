import type { Company, Person } from './types.js';
import { lookupKeys } from './urls.js';

/**
 * Every enrichment lookup key (`url#…`, `email#…`, `namedomain#…`, `namecompany#…`, as the DynamoDB
 * table's key and GSIs hold them) sorted, each with the position of its person in the people index.
 * Kept as one string and two typed arrays so a snapshot of 400,000 keys loads as three copies; a lookup
 * is a binary search.
 */
export interface LookupTableSnapshot {
  text: string;
  offsets: Uint32Array;
  positions: Int32Array;
}

export class LookupTable {
  private constructor(private readonly s: LookupTableSnapshot) {}

  /**
   * `people` in index order (ascending id). A key held by several people answers the first of them: the
   * lowest person id, as the GSIs' sort key (person id) makes DynamoDB answer a `Limit: 1` query.
   */
  static build(size: number, entryAt: (i: number) => { person: Person; company: Company }): LookupTable {
    const keys: string[] = [];
    const positions: number[] = [];
    for (let i = 0; i < size; i++) {
      const { person, company } = entryAt(i);
      for (const k of lookupKeys(person, company)) {
        keys.push(k);
        positions.push(i);
      }
    }
    const order = Int32Array.from(keys.keys()).sort((a, b) => (keys[a]! < keys[b]! ? -1 : keys[a]! > keys[b]! ? 1 : positions[a]! - positions[b]!));
    const kept: number[] = [];
    for (const o of order) if (!kept.length || keys[kept.at(-1)!] !== keys[o]) kept.push(o);
    const offsets = new Uint32Array(kept.length + 1);
    kept.forEach((o, n) => (offsets[n + 1] = offsets[n]! + keys[o]!.length));
    return new LookupTable({ text: kept.map((o) => keys[o]).join(''), offsets, positions: Int32Array.from(kept, (o) => positions[o]!) });
  }

  static fromSnapshot(s: LookupTableSnapshot): LookupTable {
    return new LookupTable(s);
  }

  toSnapshot(): LookupTableSnapshot {
    return this.s;
  }

  get size(): number {
    return this.s.positions.length;
  }

  /** Every key starting with `prefix` (`email#`, …), in key order, with its person's position. */
  *withPrefix(prefix: string): Generator<{ key: string; position: number }> {
    const { text, offsets, positions } = this.s;
    const keyAt = (n: number) => text.slice(offsets[n]!, offsets[n + 1]!);
    let lo = 0;
    let hi = positions.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (keyAt(mid) < prefix) lo = mid + 1;
      else hi = mid;
    }
    for (let n = lo; n < positions.length; n++) {
      const key = keyAt(n);
      if (!key.startsWith(prefix)) return;
      yield { key, position: positions[n]! };
    }
  }

  /** The index position of the person a key names, or -1. */
  find(key: string): number {
    const { text, offsets, positions } = this.s;
    let lo = 0;
    let hi = positions.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (text.slice(offsets[mid]!, offsets[mid + 1]!) < key) lo = mid + 1;
      else hi = mid;
    }
    return lo < positions.length && text.slice(offsets[lo]!, offsets[lo + 1]!) === key ? positions[lo]! : -1;
  }
}
