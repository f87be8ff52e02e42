import { paginateQuery } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../adapters/aws.js';
import { tableName } from '../catalog/resource-names.js';
import { DUE_INDEX, DUE_SHARDS, dueShard, type TableKey } from '../catalog/tables.js';

/** The keys of a record on the due index (keys only: the sweeper reads the record itself, consistently). */
export interface DueKey {
  pk: string;
  sk: string;
}

/**
 * Every record of `table` whose next step was due at or before `now`, oldest first within each shard, at
 * most `limit` in all (the sweeper's next run takes the rest).
 */
export async function* dueKeys(table: TableKey, now: Date, limit: number): AsyncGenerator<DueKey> {
  let yielded = 0;
  for (let shard = 0; shard < DUE_SHARDS; shard++) {
    const pages = paginateQuery(
      { client: documentClient(), pageSize: 100 },
      {
        TableName: tableName(table),
        IndexName: DUE_INDEX.name,
        KeyConditionExpression: '#p = :p AND #a <= :now',
        ExpressionAttributeNames: { '#p': DUE_INDEX.pk, '#a': DUE_INDEX.sk },
        ExpressionAttributeValues: { ':p': dueShard(shard), ':now': now.toISOString() },
      },
    );
    for await (const page of pages) {
      for (const item of page.Items ?? []) {
        if (yielded++ >= limit) return;
        yield { pk: item.pk as string, sk: item.sk as string };
      }
    }
  }
}
