import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, paginateQuery, paginateScan, type QueryCommandInput, type ScanCommandInput } from '@aws-sdk/lib-dynamodb';
import { lazyClient } from './aws-client.js';
import { countCommitted } from '../core/metrics.js';

export { resetClients } from './aws-client.js';

/**
 * The DynamoDB document client; the other services' clients live in their own modules (aws-client.ts). A
 * transaction it commits has its items' counts taken (`countOnCommit` of shared/core/metrics.ts: a settle of the
 * ledger, a deliverability counter), only once DynamoDB has answered that it succeeded.
 */
export const documentClient = /* @__PURE__ */ lazyClient(() => {
  const client = DynamoDBDocumentClient.from(new DynamoDBClient({}), { marshallOptions: { removeUndefinedValues: true } });
  client.middlewareStack.add(
    (next) => async (args) => {
      const out = await next(args);
      const items = (args.input as { TransactItems?: unknown } | undefined)?.TransactItems;
      if (Array.isArray(items)) countCommitted(items);
      return out;
    },
    { step: 'initialize', name: 'countCommittedMetrics' },
  );
  return client;
});

/** Every item a Query matches, across pages (the SDK's own paginator). */
export async function queryAll<T>(input: QueryCommandInput): Promise<T[]> {
  const items: T[] = [];
  for await (const page of paginateQuery({ client: documentClient() }, input)) items.push(...((page.Items ?? []) as T[]));
  return items;
}

/** Every item a Scan matches, across pages (the SDK's own paginator). */
export async function scanAll<T>(input: ScanCommandInput): Promise<T[]> {
  const items: T[] = [];
  for await (const page of paginateScan({ client: documentClient() }, input)) items.push(...((page.Items ?? []) as T[]));
  return items;
}

/** BatchGetItem takes at most 100 keys a request (and answers at most 16 MB: the rest come back unprocessed). */
const BATCH_GET_KEYS = 100;

/**
 * The items of `table` at `keys`, read consistently (unless `ConsistentRead: false`) in BatchGetItem requests
 * of 100 keys; keys a request leaves unprocessed are asked again after a jittered, growing pause (as AWS
 * advises). Items missing from the table are absent; the order is DynamoDB's, not the keys'.
 */
export async function batchGetAll<T>(
  table: string,
  keys: Record<string, unknown>[],
  projection: { ProjectionExpression?: string; ExpressionAttributeNames?: Record<string, string>; ConsistentRead?: boolean } = {},
): Promise<T[]> {
  const found: T[] = [];
  for (let i = 0; i < keys.length; i += BATCH_GET_KEYS) {
    let pending: Record<string, unknown>[] | undefined = keys.slice(i, i + BATCH_GET_KEYS);
    for (let attempt = 0; pending?.length; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, Math.random() * Math.min(500, 10 * 2 ** (attempt - 1))));
      const r = await documentClient().send(new BatchGetCommand({ RequestItems: { [table]: { Keys: pending, ConsistentRead: true, ...projection } } }));
      found.push(...((r.Responses?.[table] ?? []) as T[]));
      pending = r.UnprocessedKeys?.[table]?.Keys as Record<string, unknown>[] | undefined;
    }
  }
  return found;
}
