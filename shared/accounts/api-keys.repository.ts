import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../adapters/aws.js';
import { tableName } from '../catalog/resource-names.js';
import { serviceClock, type Clock } from '../core/clock.js';
import { newId } from '../core/ids.js';
import { ConflictError, NotFoundError } from '../core/errors.js';
import { apiKeyRegistry, type ApiKeyRegistry } from '../adapters/api-key-registry.js';
import { apiKeyPrefix, generateApiKey, hashApiKey, newUsageIdentifier } from '../core/api-key-values.js';
import { accountsKeys as K } from './accounts.keys.js';
import { isTransactionCanceled } from '../adapters/dynamodb-errors.js';
import { requireAccount } from './accounts.repository.js';

/**
 * Issuing and revoking API keys: the key records in the accounts table and their registration with API
 * Gateway's usage plan. Kept apart from accounts.repository.ts so that the handlers that only read an
 * account (every public route) do not bundle the API Gateway client.
 */
export async function createApiKey(accountId: string, clock: Clock = serviceClock, registry: ApiKeyRegistry = apiKeyRegistry()): Promise<{ id: string; key: string; hash: string }> {
  const account = await requireAccount(accountId);
  // The raw key leaves this function once, in the console's 201 answer; only its hash is stored. API Gateway
  // learns the usage identifier, a separate random value the authorizer hands it for this key.
  const key = generateApiKey();
  const hash = hashApiKey(key);
  const usageIdentifier = newUsageIdentifier();
  const id = newId('key', clock.now().getTime());
  const created_at = clock.now().toISOString();
  const table = tableName('accounts');
  // The key record carries the account's public_api flag (caller.repository.ts); bumping keys_version
  // tells a concurrent updateAccount that its list of keys to update is stale.
  try {
    await documentClient().send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: table, Item: { ...K.apiKeyLookup(hash), key_id: id, account_id: accountId, public_api: account.public_api, usage_identifier: usageIdentifier, created_at }, ConditionExpression: 'attribute_not_exists(pk)' } },
          { Put: { TableName: table, Item: { ...K.apiKeyMeta(accountId, id), key_id: id, hash, prefix: apiKeyPrefix(key), created_at } } },
          {
            Update: {
              TableName: table,
              Key: K.account(accountId),
              UpdateExpression: 'ADD keys_version :one',
              ConditionExpression: 'public_api = :pa',
              ExpressionAttributeValues: { ':one': 1, ':pa': account.public_api },
            },
          },
        ],
      }),
    );
  } catch (e) {
    if (isTransactionCanceled(e)) throw new ConflictError('The account changed while the key was being created; try again.');
    throw e;
  }
  const gatewayKeyId = await registry.register(id, usageIdentifier);
  if (gatewayKeyId) {
    await documentClient().send(
      new UpdateCommand({ TableName: table, Key: K.apiKeyMeta(accountId, id), UpdateExpression: 'SET gateway_key_id = :g', ExpressionAttributeValues: { ':g': gatewayKeyId } }),
    );
  }
  return { id, key, hash };
}

export async function revokeApiKey(accountId: string, keyId: string, clock: Clock = serviceClock, registry: ApiKeyRegistry = apiKeyRegistry()): Promise<{ hash: string }> {
  const table = tableName('accounts');
  const meta = await documentClient().send(new GetCommand({ TableName: table, Key: K.apiKeyMeta(accountId, keyId), ConsistentRead: true }));
  if (!meta.Item) throw new NotFoundError('API key not found.');
  const now = clock.now().toISOString();
  await documentClient().send(
    new TransactWriteCommand({
      TransactItems: [
        { Update: { TableName: table, Key: K.apiKeyMeta(accountId, keyId), UpdateExpression: 'SET revoked_at = if_not_exists(revoked_at, :now)', ExpressionAttributeValues: { ':now': now } } },
        { Update: { TableName: table, Key: K.apiKeyLookup(meta.Item.hash as string), UpdateExpression: 'SET revoked_at = if_not_exists(revoked_at, :now)', ExpressionAttributeValues: { ':now': now } } },
      ],
    }),
  );
  await registry.unregister((meta.Item.gateway_key_id as string | undefined) ?? null);
  return { hash: meta.Item.hash as string };
}

