import { randomBytes } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../adapters/aws.js';
import { isConditionFailed } from '../adapters/dynamodb-errors.js';
import { tableName } from '../catalog/resource-names.js';
import { outreachKeys as K } from './outreach.keys.js';

interface Sender {
  send(command: PutCommand): Promise<unknown>;
}

/**
 * Makes the list cursor key (cursor-key.repository.ts) unless one exists: the sweeper in AWS, the twin at start.
 * A conditional put, so concurrent makers agree on the first key.
 */
export async function ensureListCursorKey(client: Sender = documentClient(), table: string = tableName('outreach')): Promise<void> {
  await client
    .send(new PutCommand({ TableName: table, Item: { ...K.listCursorKey, key: randomBytes(32).toString('base64') }, ConditionExpression: 'attribute_not_exists(pk)' }))
    .catch((e: unknown) => {
      if (!isConditionFailed(e)) throw e;
    });
}
