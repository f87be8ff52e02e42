import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, paginateQuery, paginateScan, type QueryCommandInput, type ScanCommandInput } from '@aws-sdk/lib-dynamodb';
import { lazyClient } from './aws-client.js';

export { resetClients } from './aws-client.js';

/** The DynamoDB document client; the other services' clients live in their own modules (aws-client.ts). */
export const documentClient = /* @__PURE__ */ lazyClient(() => DynamoDBDocumentClient.from(new DynamoDBClient({}), { marshallOptions: { removeUndefinedValues: true } }));

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
