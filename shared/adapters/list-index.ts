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

/**
 * The most list-index entries one count reads (issue 42). A count answers every page of GET /emails/ and
 * GET /sequences/ but the last, so it must not grow with the list: an account with 1,000,000 emails made each
 * page read all 1,000,000 entries (on DynamoDB Local 100,000 took 19 Queries and 2,377 read units, so about 190
 * and 23,800). Up to 10,000 entries the count is exact; past it, reading stops after 10,001 entries (2 Queries,
 * 237.5 read units) and the list answers a lower bound with `count_exact: false`. 10,000 entries is 200 pages of
 * 50 and 50 of the largest pages (200).
 */
export const LIST_COUNT_CAP = 10_000;

/** A bounded count: `count` is exact when `exact`; otherwise a lower bound of at most the cap. */
export interface ListCount {
  count: number;
  exact: boolean;
}

/**
 * How many entries the range holds, reading at most `cap + 1` of them (a COUNT over the entries, no item is
 * returned; `Limit` bounds the entries each Query evaluates, before a `status` filter). When the range holds at
 * most `cap` entries the count is exact. Past that, reading stops and the answer is the matching entries among
 * the newest `cap + 1`, at most `cap` (for an unfiltered range, `cap` itself), with `exact: false`.
 */
export async function countListIndexUpTo(r: ListIndexRange, cap: number = LIST_COUNT_CAP): Promise<ListCount> {
  if (!Number.isSafeInteger(cap) || cap < 0) throw new RangeError(`count cap ${cap}: a non-negative integer`);
  let count = 0;
  let evaluated = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const out = await documentClient().send(new QueryCommand({ ...rangeInput(r), Select: 'COUNT', Limit: cap + 1 - evaluated, ...(start ? { ExclusiveStartKey: start } : {}) }));
    count += out.Count ?? 0;
    evaluated += out.ScannedCount ?? out.Count ?? 0;
    start = out.LastEvaluatedKey;
  } while (start && evaluated <= cap);
  return evaluated <= cap ? { count, exact: true } : { count: Math.min(count, cap), exact: false };
}
