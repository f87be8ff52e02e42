import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../adapters/aws.js';
import { isConditionFailed } from '../adapters/dynamodb-errors.js';
import { tableName } from '../catalog/resource-names.js';
import { expiresAt } from '../catalog/tables.js';
import type { LookupBudget } from '../ports/mail-exchangers.js';

/**
 * The per-account daily lookup budget, one counter per account and UTC day in the outreach table (the table the
 * functions that judge contacts already use; the record names the account but no address or domain):
 *   ACCOUNT#<id> / LOOKUPS#<YYYY-MM-DD>   `used` (registrable domains looked up that day), `expires_at`
 * The key is built here, not in outreach/outreach.keys.ts (which lists it): this room stands below outreach.
 * Retention `lookup_budget` (catalog/tables.ts): two days from the start of its day.
 */
const key = (accountId: string, day: string) => ({ pk: `ACCOUNT#${accountId}`, sk: `LOOKUPS#${day}` });
const TRIES = 5;

/**
 * Take up to `wanted` lookups from the account's counter of `day`, never past `limit`: a conditional ADD
 * (`used <= limit - granted`), so concurrent requests can never take more than the limit between them. When
 * all of `wanted` no longer fits, what is left is read and taken (a partial grant); 0 once the day is spent.
 */
export const takeLookups: LookupBudget = async (accountId, day, wanted, limit) => {
  if (wanted <= 0 || limit <= 0) return 0;
  const expires = expiresAt('lookup_budget', new Date(`${day}T00:00:00Z`));
  let grant = Math.min(wanted, limit);
  for (let attempt = 0; attempt < TRIES && grant > 0; attempt++) {
    try {
      await documentClient().send(
        new UpdateCommand({
          TableName: tableName('outreach'),
          Key: key(accountId, day),
          UpdateExpression: 'ADD used :n SET expires_at = if_not_exists(expires_at, :exp)',
          ConditionExpression: 'attribute_not_exists(used) OR used <= :room',
          ExpressionAttributeValues: { ':n': grant, ':room': limit - grant, ':exp': expires },
        }),
      );
      return grant;
    } catch (e) {
      if (!isConditionFailed(e)) throw e;
    }
    const seen = await documentClient().send(new GetCommand({ TableName: tableName('outreach'), Key: key(accountId, day), ConsistentRead: true, ProjectionExpression: 'used' }));
    grant = Math.min(wanted, limit - Number(seen.Item?.used ?? 0));
  }
  // The day is spent, or the counter kept moving under us: nothing more is granted (the caller answers `unknown`).
  return 0;
};

/** How many lookups the account has used on `day` (tests, operators). */
export async function lookupsUsed(accountId: string, day: string): Promise<number> {
  const out = await documentClient().send(new GetCommand({ TableName: tableName('outreach'), Key: key(accountId, day), ConsistentRead: true }));
  return Number(out.Item?.used ?? 0);
}
