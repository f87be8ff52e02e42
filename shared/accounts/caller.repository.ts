import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../adapters/aws.js';
import { tableName } from '../catalog/resource-names.js';
import type { TableKey } from '../catalog/tables.js';
import { accountsKeys as K } from './accounts.keys.js';

/**
 * The caller behind a presented API key, read the way an authenticated request needs it, in one round
 * trip. The key record `APIKEY#<sha256> / APIKEY` carries the key's account, its revocation and a copy of
 * the account flags a request checks (`public_api`), so one strongly consistent read answers "who is
 * calling, and may they"; the one item a GET needs rides in the same BatchGetItem. `updateAccount`
 * (accounts.repository.ts) keeps every key record's copy in step with the account in one transaction.
 */
export interface CallerKey {
  keyId: string;
  accountId: string;
  revoked: boolean;
  /** null on key records written before the flag was copied onto them: the account must be read. */
  publicApi: boolean | null;
  /** When the key was last recorded as used (key-use.repository.ts), null before its first use. */
  lastUsedAt: string | null;
}

/** An item read alongside the caller's key record (jobs/jobs.companion.ts, outreach/emails.companion.ts). */
export interface Companion<T> {
  table: TableKey;
  key: Record<string, string>;
  decode(item: Record<string, unknown>): T;
}

/** The account flags a key record carries. */
const KEY_RECORD_FLAGS = ['public_api'] as const;

const sameKey = (a: Record<string, unknown>, b: Record<string, string>) => Object.entries(b).every(([k, v]) => a[k] === v);

/**
 * The key record for `keyHash` and, when given, the companion item, in one strongly consistent
 * BatchGetItem (a revocation is seen by the very next request). Keys DynamoDB leaves unprocessed under
 * load are asked for again.
 */
export async function readCaller<T>(keyHash: string, companion: Companion<T> | null): Promise<{ key: CallerKey | null; item: T | null }> {
  const keyRef: { table: string; key: Record<string, string> } = { table: tableName('accounts'), key: { ...K.apiKeyLookup(keyHash) } };
  const companionRef = companion ? { table: tableName(companion.table), key: companion.key } : null;
  const found: { table: string; item: Record<string, unknown> }[] = [];
  let pending: Record<string, { Keys: Record<string, unknown>[]; ConsistentRead: boolean }> = {};
  for (const ref of companionRef ? [keyRef, companionRef] : [keyRef]) (pending[ref.table] ??= { Keys: [], ConsistentRead: true }).Keys.push(ref.key);
  for (let attempt = 0; Object.keys(pending).length; attempt++) {
    if (attempt) await new Promise((r) => setTimeout(r, Math.min(100, 5 * 2 ** attempt)));
    const out = await documentClient().send(new BatchGetCommand({ RequestItems: pending }));
    for (const [table, items] of Object.entries(out.Responses ?? {})) for (const item of items) found.push({ table, item });
    pending = (out.UnprocessedKeys ?? {}) as typeof pending;
  }
  const keyItem = found.find((f) => f.table === keyRef.table && sameKey(f.item, keyRef.key))?.item;
  const companionItem = companionRef ? found.find((f) => f.table === companionRef.table && sameKey(f.item, companionRef.key))?.item : undefined;
  return {
    key: keyItem
      ? {
          keyId: keyItem.key_id as string,
          accountId: keyItem.account_id as string,
          revoked: Boolean(keyItem.revoked_at),
          publicApi: typeof keyItem.public_api === 'boolean' ? keyItem.public_api : null,
          lastUsedAt: typeof keyItem.last_used_at === 'string' ? keyItem.last_used_at : null,
        }
      : null,
    item: companionItem && companion ? companion.decode(companionItem) : null,
  };
}
