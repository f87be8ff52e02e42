import { BatchGetCommand, GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../adapters/aws.js';
import { tableName } from '../core/env.js';
import type { TableKey } from '../catalog/tables.js';
import { ConflictError, NotFoundError } from '../core/errors.js';
import { isTransactionCanceled } from '../adapters/dynamodb-errors.js';
import type { Job } from '../jobs/model.js';
import { jobsKeys } from '../jobs/jobs.keys.js';
import type { EmailRecord } from '../outreach/model.js';
import { outreachKeys } from '../outreach/outreach.keys.js';
import { toAccount, type Account } from './model.js';
import { accountsKeys as K } from './accounts.keys.js';

/**
 * The caller behind a presented API key, read the way an authenticated request needs it, in one round
 * trip. The key record `APIKEY#<sha256> / APIKEY` carries the key's account, its revocation and a copy of
 * the account flags a request checks (`public_api`), so one strongly consistent read answers "who is
 * calling, and may they"; the one item a GET needs rides in the same BatchGetItem. `setAccountFlags`
 * keeps every key record's copy in step with the account in one transaction.
 */
export interface CallerKey {
  keyId: string;
  accountId: string;
  revoked: boolean;
  /** null on key records written before the flag was copied onto them: the account must be read. */
  publicApi: boolean | null;
}

/** An item read alongside the caller's key record. */
export interface Companion<T> {
  table: TableKey;
  key: Record<string, string>;
  decode(item: Record<string, unknown>): T;
}

export const jobCompanion = (jobId: string): Companion<Job> => ({ table: 'jobs', key: jobsKeys.job(jobId), decode: (item) => item as unknown as Job });

export const emailCompanion = (accountId: string, emailId: string): Companion<EmailRecord> => ({
  table: 'outreach',
  key: outreachKeys.email(accountId, emailId),
  decode: (item) => item as unknown as EmailRecord,
});

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
        }
      : null,
    item: companionItem && companion ? companion.decode(companionItem) : null,
  };
}

export type AccountFlags = Pick<Account, 'public_api' | 'agentic_search' | 'auto_recharge'>;

/**
 * Change account flags and, in the same transaction, the copy every live key record carries. A key
 * created meanwhile bumps the account's `keys_version`, which fails this transaction's condition, and the
 * whole change is made again from a fresh read. One transaction holds at most 100 items: an account with
 * more than 99 live keys is refused rather than updated in parts.
 */
export async function setAccountFlags(accountId: string, flags: Partial<AccountFlags>): Promise<Account> {
  const table = tableName('accounts');
  const metaKey = K.account(accountId);
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const sets: string[] = [];
  for (const [i, [name, value]] of Object.entries(flags).filter(([, v]) => v !== undefined).entries()) {
    names[`#f${i}`] = name;
    values[`:f${i}`] = value;
    sets.push(`#f${i} = :f${i}`);
  }
  const keyCopies = KEY_RECORD_FLAGS.filter((f) => flags[f] !== undefined);
  for (let attempt = 0; attempt < 3; attempt++) {
    const meta = (await documentClient().send(new GetCommand({ TableName: table, Key: metaKey, ConsistentRead: true }))).Item;
    if (!meta) throw new NotFoundError('Account not found.');
    if (!sets.length) return toAccount(meta);
    const keys = keyCopies.length ? await liveKeyHashes(accountId) : [];
    if (keys.length > 99) throw new ConflictError('This account holds more than 99 live API keys; revoke some before changing its flags.');
    const version = meta.keys_version as number | undefined;
    try {
      await documentClient().send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: table,
                Key: metaKey,
                UpdateExpression: `SET ${sets.join(', ')}`,
                ConditionExpression: version === undefined ? 'attribute_exists(pk) AND attribute_not_exists(keys_version)' : 'keys_version = :v',
                ExpressionAttributeNames: names,
                ExpressionAttributeValues: version === undefined ? values : { ...values, ':v': version },
              },
            },
            ...keys.map((hash) => ({
              Update: {
                TableName: table,
                Key: K.apiKeyLookup(hash),
                UpdateExpression: `SET ${keyCopies.map((_, i) => `#k${i} = :k${i}`).join(', ')}`,
                ExpressionAttributeNames: Object.fromEntries(keyCopies.map((f, i) => [`#k${i}`, f])),
                ExpressionAttributeValues: Object.fromEntries(keyCopies.map((f, i) => [`:k${i}`, flags[f]])),
              },
            })),
          ],
        }),
      );
      return toAccount({ ...meta, ...flags });
    } catch (e) {
      if (!isTransactionCanceled(e)) throw e;
    }
  }
  throw new ConflictError('The account changed while its flags were being updated; try again.');
}

async function liveKeyHashes(accountId: string): Promise<string[]> {
  const hashes: string[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await documentClient().send(
      new QueryCommand({
        TableName: tableName('accounts'),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
        FilterExpression: 'attribute_not_exists(revoked_at)',
        ExpressionAttributeValues: { ':pk': K.accountPk(accountId), ':p': K.apiKeyMetaPrefix },
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    for (const item of out.Items ?? []) hashes.push(item.hash as string);
    start = out.LastEvaluatedKey;
  } while (start);
  return hashes;
}
