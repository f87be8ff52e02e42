import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient, scanAll } from '../adapters/aws.js';
import { isConditionFailed } from '../adapters/dynamodb-errors.js';
import { tableName } from '../catalog/resource-names.js';
import { outreachKeys as K } from './outreach.keys.js';

/**
 * The list index's entries (catalog/tables.ts LIST_INDEX) for API-created emails and sequences written
 * before the index existed: each gets the `list_pk`/`list_sk` a create writes now. Run by the twin at start
 * and, in AWS, once after the deploy that adds the index (`npx tsx bin/backfill-list-index.ts`). Idempotent:
 * an item that has its entry, or is gone, is left alone.
 */
export async function backfillListEntries(): Promise<{ emails: number; sequences: number }> {
  const table = tableName('outreach');
  const missing = await scanAll<{ pk: string; sk: string; id: string; account_id: string; created_at: string }>({
    TableName: table,
    FilterExpression: 'attribute_not_exists(list_pk) AND ((begins_with(sk, :e) AND api_created = :yes) OR begins_with(sk, :s))',
    ExpressionAttributeValues: { ':e': K.emailPrefix, ':s': K.sequencePrefix, ':yes': true },
    ProjectionExpression: 'pk, sk, id, account_id, created_at',
  });
  const counts = { emails: 0, sequences: 0 };
  for (const item of missing) {
    const email = item.sk.startsWith(K.emailPrefix);
    const entry = email ? K.emailListEntry(item.account_id, item.created_at, item.id) : K.sequenceListEntry(item.account_id, item.created_at, item.id);
    try {
      await documentClient().send(
        new UpdateCommand({
          TableName: table,
          Key: { pk: item.pk, sk: item.sk },
          UpdateExpression: 'SET list_pk = :p, list_sk = :s',
          ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(list_pk)',
          ExpressionAttributeValues: { ':p': entry.list_pk, ':s': entry.list_sk },
        }),
      );
      counts[email ? 'emails' : 'sequences']++;
    } catch (e) {
      if (!isConditionFailed(e)) throw e;
    }
  }
  return counts;
}
