import { queryAll } from '../adapters/aws.js';
import { tableName } from '../catalog/resource-names.js';
import { accountsKeys as K } from './accounts.keys.js';

/**
 * What an account's owner may see of its credentials: API keys and webhook signing secrets, never a secret
 * itself (keys are stored as hashes, signing secrets sealed). Newest first.
 */
export interface ApiKeyListing {
  id: string;
  /** The first characters of the key, to tell keys apart; null for keys issued before it was kept. */
  prefix: string | null;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface WebhookSecretListing {
  id: string;
  created_at: string;
  revoked_at: string | null;
}

async function itemsUnder(accountId: string, prefix: string): Promise<Record<string, unknown>[]> {
  return queryAll<Record<string, unknown>>({
    TableName: tableName('accounts'),
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
    ExpressionAttributeValues: { ':pk': K.accountPk(accountId), ':p': prefix },
    ScanIndexForward: false,
    ConsistentRead: true,
  });
}

const orNull = (v: unknown) => (typeof v === 'string' ? v : null);

export async function listApiKeys(accountId: string): Promise<ApiKeyListing[]> {
  // A `pending` key is a create still running (or one that died, to be rolled back): nobody holds it yet.
  return (await itemsUnder(accountId, K.apiKeyMetaPrefix)).filter((item) => item.state !== 'pending').map((item) => ({
    id: item.key_id as string,
    prefix: orNull(item.prefix),
    created_at: item.created_at as string,
    last_used_at: orNull(item.last_used_at),
    revoked_at: orNull(item.revoked_at),
  }));
}

export async function listWebhookSecrets(accountId: string): Promise<WebhookSecretListing[]> {
  return (await itemsUnder(accountId, K.webhookSecretPrefix)).map((item) => ({
    id: item.id as string,
    created_at: item.created_at as string,
    revoked_at: orNull(item.revoked_at),
  }));
}
