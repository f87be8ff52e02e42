import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { documentClient } from './aws.js';
import { LIST_INDEX } from '../catalog/tables.js';

/**
 * Reads of the outreach table's list index (catalog/tables.ts LIST_INDEX) for the repositories that own its
 * keys. Entries hold only their keys and `status`, so walking or counting them reads no item body.
 */
export interface ListIndexRange {
  table: string;
  pk: string;
  /** Only entries whose list key is at or after this (a `since`). */
  from?: string;
  /** Only entries with this status (a filter over the ~150-byte entries). */
  status?: string;
}

function rangeInput(r: ListIndexRange): QueryCommandInput {
  return {
    TableName: r.table,
    IndexName: LIST_INDEX.name,
    KeyConditionExpression: r.from ? '#pk = :pk AND #sk >= :from' : '#pk = :pk',
    ExpressionAttributeNames: { '#pk': LIST_INDEX.pk, ...(r.from ? { '#sk': LIST_INDEX.sk } : {}), ...(r.status ? { '#s': 'status' } : {}) },
    ExpressionAttributeValues: { ':pk': r.pk, ...(r.from ? { ':from': r.from } : {}), ...(r.status ? { ':s': r.status } : {}) },
    ...(r.status ? { FilterExpression: '#s = :s' } : {}),
    ScanIndexForward: false,
  };
}

/**
 * Up to `want` list keys after `after` (newest first), and whether more follow. `baseKey` turns a list key
 * into its item's table key (the index's start key names both). Unfiltered, one read of `want + 1` entries;
 * with a status, reads continue until `want + 1` matches or the end, each at most 1 MB of entries.
 */
/**
 * The most entries one Query of a walk asks for. DynamoDB refuses a `Limit` above 2^31-1 (ValidationException), and a
 * page number far past the end (`?page=52265116`, found by schemathesis) would ask for billions: the walk asks in
 * bounded steps and stops at the end of the list, so such a page is simply past the end.
 */
const WALK_QUERY_LIMIT = 1_000;

export async function walkListIndex(r: ListIndexRange, after: string | undefined, want: number, baseKey: (listSk: string) => { pk: string; sk: string }): Promise<{ keys: string[]; more: boolean }> {
  const keys: string[] = [];
  let start: Record<string, unknown> | undefined = after ? { [LIST_INDEX.pk]: r.pk, [LIST_INDEX.sk]: after, ...baseKey(after) } : undefined;
  do {
    const input = rangeInput(r);
    const out = await documentClient().send(
      new QueryCommand({ ...input, ExpressionAttributeNames: { ...input.ExpressionAttributeNames, '#sk': LIST_INDEX.sk }, ProjectionExpression: '#sk', ...(r.status ? {} : { Limit: Math.min(want + 1 - keys.length, WALK_QUERY_LIMIT) }), ...(start ? { ExclusiveStartKey: start } : {}) }),
    );
    for (const item of out.Items ?? []) keys.push(item[LIST_INDEX.sk] as string);
    start = out.LastEvaluatedKey;
  } while (start && keys.length <= want);
  return { keys: keys.slice(0, want), more: keys.length > want };
}

/** How many entries the range holds: a COUNT over the entries (no item is read). */
export async function countListIndex(r: ListIndexRange): Promise<number> {
  let count = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const out = await documentClient().send(new QueryCommand({ ...rangeInput(r), Select: 'COUNT', ...(start ? { ExclusiveStartKey: start } : {}) }));
    count += out.Count ?? 0;
    start = out.LastEvaluatedKey;
  } while (start);
  return count;
}
