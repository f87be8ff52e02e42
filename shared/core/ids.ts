import { randomUUID } from 'node:crypto';
import { monotonicFactory } from 'ulid';

/** Ids are a prefix plus a 26-character lowercase ULID (docs/decisions.md#decisions-the-contract-leaves-open); test emails use UUID v4. */
export type IdPrefix = 'dj' | 'em' | 'sq' | 'ea' | 'acct' | 'key' | 'whsec' | 'chg' | 'lead' | 'en' | 'wd';

const ulid = monotonicFactory();

export function newId(prefix: IdPrefix, at: number = Date.now()): string {
  return `${prefix}_${ulid(at).toLowerCase()}`;
}

export function newUuid(): string {
  return randomUUID();
}
