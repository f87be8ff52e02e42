import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../adapters/aws.js';
import { tableName } from '../catalog/resource-names.js';
import { asUsageIdentifier, type UsageIdentifier } from '../core/api-key-values.js';
import { accountsKeys as K } from './accounts.keys.js';

/** What the edge needs to know about a presented key: whether it is live, and what to throttle it by. */
export interface KeyGrant {
  keyId: string;
  accountId: string;
  revoked: boolean;
  /** null on key records written before usage identifiers existed (docs/security.md "API keys"). */
  usageIdentifier: UsageIdentifier | null;
}

/** The key record `APIKEY#<sha256>`, in one strongly consistent GetItem. */
export async function readKeyGrant(keyHash: string): Promise<KeyGrant | null> {
  const out = await documentClient().send(new GetCommand({ TableName: tableName('accounts'), Key: K.apiKeyLookup(keyHash), ConsistentRead: true }));
  const item = out.Item;
  if (!item) return null;
  return {
    keyId: item.key_id as string,
    accountId: item.account_id as string,
    revoked: Boolean(item.revoked_at),
    usageIdentifier: typeof item.usage_identifier === 'string' ? asUsageIdentifier(item.usage_identifier) : null,
  };
}
