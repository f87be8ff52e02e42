import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { lazyClient } from './aws-client.js';

export { resetClients } from './aws-client.js';

/** The DynamoDB document client; the other services' clients live in their own modules (aws-client.ts). */
export const documentClient = lazyClient(() => DynamoDBDocumentClient.from(new DynamoDBClient({}), { marshallOptions: { removeUndefinedValues: true } }));
