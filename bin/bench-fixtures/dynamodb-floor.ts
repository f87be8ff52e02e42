import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * The floor of a DynamoDB-only function's init (bin/bench-bundles.ts): a handler that only constructs the
 * document client, with nothing of the service, no logger and no middleware.
 */
const documents = DynamoDBDocumentClient.from(new DynamoDBClient({}));

export const handler = async () => documents.config.region();
