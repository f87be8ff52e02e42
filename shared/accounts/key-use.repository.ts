import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../adapters/aws.js';
import { isTransactionCanceled } from '../adapters/dynamodb-errors.js';
import { tableName } from '../catalog/resource-names.js';
import { logger } from '../core/logger.js';
import { KEY_USE_ATTRIBUTE, accountsKeys as K } from './accounts.keys.js';

/**
 * An API key's "last used" time, as the web app's keys page shows it: to the hour, like the key lists of
 * GitHub and Stripe. Writing it on every request would add a DynamoDB write to each call; at this granularity
 * a key in constant use costs one write an hour. The key record the handler reads on every request
 * (caller.repository.ts) carries the time too, so deciding whether a write is due costs no extra read.
 */
export const KEY_USE_GRANULARITY_MS = 60 * 60 * 1000;

/** Whether a key last recorded as used at `lastUsedAt` is due for a new time at `now`. */
export function keyUseDue(lastUsedAt: string | null, now: Date): boolean {
  return lastUsedAt === null || Date.parse(lastUsedAt) <= now.getTime() - KEY_USE_GRANULARITY_MS;
}

/**
 * Records the use on the key record and on the listing item in one transaction, conditional on the key
 * record's time still being older than the window: of concurrent requests that all saw it due, one writes.
 * Never rejects: a failed write costs only a stale "last used" and must not fail the caller's request.
 */
export async function recordKeyUse(keyHash: string, key: { accountId: string; keyId: string }, now: Date): Promise<void> {
  const table = tableName('accounts');
  const at = now.toISOString();
  try {
    await documentClient().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: table,
              Key: K.apiKeyLookup(keyHash),
              UpdateExpression: `SET ${KEY_USE_ATTRIBUTE} = :at`,
              ConditionExpression: `attribute_exists(pk) AND (attribute_not_exists(${KEY_USE_ATTRIBUTE}) OR ${KEY_USE_ATTRIBUTE} <= :threshold)`,
              ExpressionAttributeValues: { ':at': at, ':threshold': new Date(now.getTime() - KEY_USE_GRANULARITY_MS).toISOString() },
            },
          },
          {
            Update: {
              TableName: table,
              Key: K.apiKeyMeta(key.accountId, key.keyId),
              UpdateExpression: `SET ${KEY_USE_ATTRIBUTE} = :at`,
              ConditionExpression: 'attribute_exists(pk)',
              ExpressionAttributeValues: { ':at': at },
            },
          },
        ],
      }),
    );
  } catch (error) {
    if (isTransactionCanceled(error)) return;
    logger.warn('API key last-used time not recorded', { keyId: key.keyId, error: error as Error });
  }
}
