import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../adapters/aws.js';
import { isConditionFailed, itemOfConditionFailure } from '../adapters/dynamodb-errors.js';
import { tableName } from '../catalog/resource-names.js';
import { expiresAt } from '../catalog/tables.js';
import type { Throttle } from '../catalog/routes.js';
import { accountsKeys as K } from './accounts.keys.js';
import { LruMap } from '../core/lru-map.js';

export interface KeyThrottleVerdict {
  allowed: boolean;
  /** Whole seconds until the next request of this key on this route would be allowed (0 when allowed). */
  retryAfterSeconds: number;
}

/**
 * The tat a bucket answered with when it last refused a request in this process, by key and route. A bucket's
 * tat never goes back while it is ahead of now (takes and debts only add to it), so a request that would need
 * tat ≤ latest is refused on this alone while the remembered tat is past it, with no DynamoDB call: a key that
 * keeps sending past its limit costs nothing until its bucket may have refilled, then one conditional update.
 * Anything else asks DynamoDB, which stays the authority (another process may have taken tokens meanwhile).
 */
const refusedAt = new LruMap<string, number>(10_000);

const refusal = (tat: number, latest: number): KeyThrottleVerdict => ({ allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((tat - latest) / 1000)) });

/**
 * A per-key token bucket kept in DynamoDB, for routes whose key the gateway does not see (API Gateway's
 * method throttles without a usage-plan key are one bucket for every caller).
 *
 * It is the generic cell rate algorithm: one number per (key, route), the theoretical arrival time `tat`
 * of the next request in an evenly spaced stream. With an emission interval T = 60 s / perMinute and a
 * tolerance τ = (burst − 1) · T, a request at `now` is allowed when max(tat, now) ≤ now + τ, and moves tat
 * to max(tat, now) + T: exactly a bucket of `burst` tokens refilled at `perMinute`.
 *
 * A request may cost `cost` tokens (the web app's contact checks cost their contacts): it is allowed when
 * max(tat, now) ≤ now + τ − (cost − 1) · T and moves tat by cost · T, as `cost` requests at once would. A cost
 * is at most the burst (more could never pass), and a refused one is told how long until `cost` tokens are there.
 *
 * max() is not an update expression, so the two cases are two conditional updates, each atomic on its own:
 * 1. an idle bucket (no item, or tat in the past) sets tat = now + cost · T;
 * 2. otherwise tat only grows, so tat ≥ now still holds and `tat = tat + cost · T` succeeds unless
 *    tat > now + τ − (cost − 1) · T.
 * No read comes first and nothing is retried: concurrent requests of one key serialise on the item, and
 * at most `burst` tokens' worth of them pass from a full bucket whatever their number. A request the first
 * update refuses with tat already past now + τ − (cost − 1) · T is refused on that answer alone (tat only
 * grows until now passes it), and later ones on the tat remembered (refusedAt) until it may pass.
 */
export async function takeKeyToken(keyHash: string, route: string, throttle: Throttle, multiplier = 1, now: number = Date.now(), cost = 1): Promise<KeyThrottleVerdict> {
  const interval = 60_000 / (throttle.perMinute * multiplier);
  const tolerance = (throttle.burst * multiplier - 1) * interval;
  const tokens = Math.min(Math.max(1, cost), throttle.burst * multiplier);
  // The latest tat at which `tokens` tokens are still in the bucket.
  const latest = now + tolerance - (tokens - 1) * interval;
  const remembered = `${keyHash}\n${route}`;
  const seen = refusedAt.get(remembered);
  if (seen !== undefined && seen > latest) return refusal(seen, latest);
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
  const refused = (tat: number | undefined): KeyThrottleVerdict => {
    if (typeof tat !== 'number') return refusal(latest + tokens * interval, latest);
    refusedAt.set(remembered, tat);
    return refusal(tat, latest);
  };
  try {
    await update('SET tat = :next', 'attribute_not_exists(tat) OR tat < :now', { ':next': now + tokens * interval, ':now': now });
    return { allowed: true, retryAfterSeconds: 0 };
  } catch (e) {
    if (!isConditionFailed(e)) throw e;
    // The failed condition hands back tat: a bucket already short of `tokens` is refused without a second write.
    const tat = itemOfConditionFailure<{ tat?: number }>(e)?.tat;
    if (typeof tat === 'number' && tat > latest) return refused(tat);
  }
  try {
    await update('SET tat = tat + :interval', 'tat <= :latest', { ':interval': tokens * interval, ':latest': latest });
    return { allowed: true, retryAfterSeconds: 0 };
  } catch (e) {
    if (!isConditionFailed(e)) throw e;
    return refused(itemOfConditionFailure<{ tat?: number }>(e)?.tat);
  }
}

/**
 * `tokens` more taken from the bucket of an allowed request, after the fact (the web app's reads are charged
 * by the bytes of their answer once it is built): tat moves on by tokens · T whatever it is, so the bucket may
 * go below empty and the key's next requests wait until it has refilled past the debt. tat becomes
 * max(tat, now) + tokens · T as for a take (a tat in the past starts from now) and the item's TTL moves on
 * with it: one conditional update when tat is ahead of now, as the request's own take left it.
 */
export async function addKeyDebt(keyHash: string, route: string, throttle: Throttle, tokens: number, multiplier = 1, now: number = Date.now()): Promise<void> {
  if (tokens <= 0) return;
  const interval = 60_000 / (throttle.perMinute * multiplier);
  const tolerance = (throttle.burst * multiplier - 1) * interval;
  const debt = tokens * interval;
  const key = K.apiKeyThrottle(keyHash, route);
  const send = (expression: string, condition: string, values: Record<string, number>) =>
    documentClient().send(new UpdateCommand({ TableName: tableName('accounts'), Key: key, UpdateExpression: expression, ConditionExpression: condition, ExpressionAttributeValues: values }));
  // Two conditional cases as for a take; a case lost to a concurrent take of the key means the other holds now.
  for (let attempt = 0; ; attempt++) {
    try {
      // The usual case: the request's own take left tat ahead of now.
      await send('SET tat = tat + :debt, expires_at = if_not_exists(expires_at, :expires) + :seconds', 'tat >= :now', { ':debt': debt, ':seconds': Math.ceil(debt / 1000), ':now': now, ':expires': expiresAt('key_throttle', new Date(now + tolerance + interval)) + 1 });
      return;
    } catch (e) {
      if (!isConditionFailed(e)) throw e;
    }
    try {
      await send('SET tat = :next, expires_at = :expires', 'attribute_not_exists(tat) OR tat < :now', { ':next': now + debt, ':now': now, ':expires': expiresAt('key_throttle', new Date(now + debt + tolerance + interval)) + 1 });
      return;
    } catch (e) {
      if (!isConditionFailed(e) || attempt >= 2) throw e;
    }
  }
}
