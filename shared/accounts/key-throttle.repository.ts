import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../adapters/aws.js';
import { isConditionFailed, itemOfConditionFailure } from '../adapters/dynamodb-errors.js';
import { tableName } from '../catalog/resource-names.js';
import { expiresAt } from '../catalog/tables.js';
import type { Throttle } from '../catalog/routes.js';
import { accountsKeys as K } from './accounts.keys.js';

export interface KeyThrottleVerdict {
  allowed: boolean;
  /** Whole seconds until the next request of this key on this route would be allowed (0 when allowed). */
  retryAfterSeconds: number;
}

/**
 * A per-key token bucket kept in DynamoDB, for routes whose key the gateway does not see (API Gateway's
 * method throttles without a usage-plan key are one bucket for every caller).
 *
 * It is the generic cell rate algorithm: one number per (key, route), the theoretical arrival time `tat`
 * of the next request in an evenly spaced stream. With an emission interval T = 60 s / perMinute and a
 * tolerance τ = (burst − 1) · T, a request at `now` is allowed when max(tat, now) ≤ now + τ, and moves tat
 * to max(tat, now) + T: exactly a bucket of `burst` tokens refilled at `perMinute`.
 *
 * max() is not an update expression, so the two cases are two conditional updates, each atomic on its own:
 * 1. an idle bucket (no item, or tat in the past) sets tat = now + T;
 * 2. otherwise tat only grows, so tat ≥ now still holds and `tat = tat + T` succeeds unless tat > now + τ.
 * No read comes first and nothing is retried: concurrent requests of one key serialise on the item, and
 * at most `burst` of them pass from a full bucket whatever their number.
 */
export async function takeKeyToken(keyHash: string, route: string, throttle: Throttle, multiplier = 1, now: number = Date.now()): Promise<KeyThrottleVerdict> {
  const interval = 60_000 / (throttle.perMinute * multiplier);
  const tolerance = (throttle.burst * multiplier - 1) * interval;
  const key = K.apiKeyThrottle(keyHash, route);
  // After an allowed request the bucket is full again by now + τ + T at the latest.
  const expires = expiresAt('key_throttle', new Date(now + tolerance + interval)) + 1;
  const update = (expression: string, condition: string, values: Record<string, number>) =>
    documentClient().send(
      new UpdateCommand({
        TableName: tableName('accounts'),
        Key: key,
        UpdateExpression: `${expression}, expires_at = :expires`,
        ConditionExpression: condition,
        ExpressionAttributeValues: { ...values, ':expires': expires },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
  try {
    await update('SET tat = :next', 'attribute_not_exists(tat) OR tat < :now', { ':next': now + interval, ':now': now });
    return { allowed: true, retryAfterSeconds: 0 };
  } catch (e) {
    if (!isConditionFailed(e)) throw e;
  }
  try {
    await update('SET tat = tat + :interval', 'tat <= :latest', { ':interval': interval, ':latest': now + tolerance });
    return { allowed: true, retryAfterSeconds: 0 };
  } catch (e) {
    if (!isConditionFailed(e)) throw e;
    const tat = itemOfConditionFailure<{ tat?: number }>(e)?.tat;
    const wait = typeof tat === 'number' ? tat - tolerance - now : interval;
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(wait / 1000)) };
  }
}
