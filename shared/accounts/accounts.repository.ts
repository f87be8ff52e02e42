import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient, queryAll } from '../adapters/aws.js';
import { tableName } from '../catalog/resource-names.js';
import { serviceClock, type Clock } from '../core/clock.js';
import { newId } from '../core/ids.js';
import { ConflictError, NotFoundError } from '../core/errors.js';
import type { AccountPatch } from './account-schemas.js';
import { DEFAULT_FOLLOWUP_DAYS, toAccount, type Account, type ChargeRecord, toCharge } from './model.js';
import { accountsKeys as K } from './accounts.keys.js';
import { cancellationReasons, isTransactionCanceled } from '../adapters/dynamodb-errors.js';
import { setClauses } from '../adapters/update-expression.js';

/** Accounts, API keys and webhook signing secrets in the accounts table (keys: accounts.keys.ts). */

export async function createAccount(
  input: { name: string; credits: number; public_api: boolean; agentic_search: boolean; pilot: boolean; auto_recharge: boolean },
  opts: { pilotLimit: number; clock?: Clock } = { pilotLimit: 3 },
): Promise<Account> {
  const clock = opts.clock ?? serviceClock;
  const id = newId('acct', clock.now().getTime());
  const account: Account = {
    id,
    name: input.name,
    balance: input.credits,
    public_api: input.public_api,
    agentic_search: input.agentic_search,
    pilot: input.pilot,
    auto_recharge: input.auto_recharge,
    attachments_enabled: false,
    followup_days: [...DEFAULT_FOLLOWUP_DAYS],
    created_at: clock.now().toISOString(),
  };
  const table = tableName('accounts');
  const put = {
    Put: { TableName: table, Item: { ...K.account(id), ...account }, ConditionExpression: 'attribute_not_exists(pk)' },
  };
  if (!input.pilot) {
    await documentClient().send(new TransactWriteCommand({ TransactItems: [put] }));
    return account;
  }
  try {
    await documentClient().send(
      new TransactWriteCommand({
        TransactItems: [
          put,
          {
            Update: {
              TableName: table,
              Key: K.pilots(),
              UpdateExpression: 'ADD #n :one',
              ConditionExpression: 'attribute_not_exists(#n) OR #n < :limit',
              ExpressionAttributeNames: { '#n': 'count' },
              ExpressionAttributeValues: { ':one': 1, ':limit': opts.pilotLimit },
            },
          },
        ],
      }),
    );
  } catch (e) {
    if (isTransactionCanceled(e)) {
      throw new ConflictError(`At most ${opts.pilotLimit} accounts may hold the pilot flag.`);
    }
    throw e;
  }
  return account;
}

const pilotCounterChange = (table: string, delta: 1 | -1, pilotLimit: number) => ({
  Update: {
    TableName: table,
    Key: K.pilots(),
    UpdateExpression: 'ADD #n :delta',
    ConditionExpression: delta === 1 ? 'attribute_not_exists(#n) OR #n < :limit' : '#n > :zero',
    ExpressionAttributeNames: { '#n': 'count' },
    ExpressionAttributeValues: delta === 1 ? { ':delta': 1, ':limit': pilotLimit } : { ':delta': -1, ':zero': 0 },
  },
});

/**
 * Console PATCH of an account, in one transaction:
 * - granting the pilot flag takes a place under `pilotLimit` and withdrawing it gives one back; the
 *   account write is conditioned on the flag still being what was read, so a concurrent change is judged
 *   again instead of counted twice;
 * - a change of `public_api` also rewrites the copy every live API-key record carries (the one-read
 *   authentication of caller.repository.ts), conditioned on the account's `keys_version`, which creating
 *   a key bumps, so a key created meanwhile makes the change start again from a fresh read. One
 *   transaction holds at most 100 items: an account with more than 98 live keys is refused.
 */
export async function updateAccount(accountId: string, patch: AccountPatch, opts: { pilotLimit: number }): Promise<Account> {
  const table = tableName('accounts');
  for (let attempt = 0; attempt < 5; attempt++) {
    const meta = (await documentClient().send(new GetCommand({ TableName: table, Key: K.account(accountId), ConsistentRead: true }))).Item;
    if (!meta) throw new NotFoundError('Account not found.');
    const current = toAccount(meta);
    const pilotDelta = patch.pilot === undefined || patch.pilot === current.pilot ? 0 : patch.pilot ? 1 : -1;
    const syncKeys = patch.public_api !== undefined && patch.public_api !== current.public_api;
    const keyHashes = syncKeys ? await liveKeyHashes(accountId) : [];
    if (keyHashes.length > 98) throw new ConflictError('This account holds more than 98 live API keys; revoke some before changing public_api.');
    const version = meta.keys_version as number | undefined;
    const { clauses, names, values } = setClauses(patch);
    names['#pilot'] = 'pilot';
    values[':seenPilot'] = current.pilot;
    let condition = 'attribute_exists(pk) AND #pilot = :seenPilot';
    if (syncKeys && version === undefined) condition += ' AND attribute_not_exists(keys_version)';
    if (syncKeys && version !== undefined) {
      condition += ' AND keys_version = :keysVersion';
      values[':keysVersion'] = version;
    }
    const accountWrite = {
      Update: { TableName: table, Key: K.account(accountId), UpdateExpression: `SET ${clauses.join(', ')}`, ConditionExpression: condition, ExpressionAttributeNames: names, ExpressionAttributeValues: values },
    };
    const keyWrites = keyHashes.map((hash) => ({
      Update: { TableName: table, Key: K.apiKeyLookup(hash), UpdateExpression: 'SET public_api = :pa', ConditionExpression: 'attribute_exists(pk)', ExpressionAttributeValues: { ':pa': patch.public_api } },
    }));
    try {
      await documentClient().send(new TransactWriteCommand({ TransactItems: [accountWrite, ...(pilotDelta === 0 ? [] : [pilotCounterChange(table, pilotDelta, opts.pilotLimit)]), ...keyWrites] }));
      return requireAccount(accountId);
    } catch (e) {
      if (!isTransactionCanceled(e)) throw e;
      const [accountReason, counterReason] = cancellationReasons(e);
      if (pilotDelta === 1 && counterReason?.Code === 'ConditionalCheckFailed' && accountReason?.Code !== 'ConditionalCheckFailed') {
        throw new ConflictError(`At most ${opts.pilotLimit} accounts may hold the pilot flag.`);
      }
    }
  }
  throw new ConflictError('The account changed concurrently; try again.');
}

/** An account's unrevoked API key listings (a `pending` one included), strongly consistent. */
export async function unrevokedKeyListings(accountId: string): Promise<Record<string, unknown>[]> {
  return queryAll<Record<string, unknown>>({
    TableName: tableName('accounts'),
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
    FilterExpression: 'attribute_not_exists(revoked_at)',
    ExpressionAttributeValues: { ':pk': K.accountPk(accountId), ':p': K.apiKeyMetaPrefix },
    ConsistentRead: true,
  });
}

/** Hashes of an account's unrevoked API keys (whose lookup records carry the account's flags). */
async function liveKeyHashes(accountId: string): Promise<string[]> {
  return (await unrevokedKeyListings(accountId)).map((item) => item.hash as string);
}

export async function getAccount(accountId: string): Promise<Account | null> {
  const out = await documentClient().send(
    new GetCommand({ TableName: tableName('accounts'), Key: K.account(accountId), ConsistentRead: true }),
  );
  return out.Item ? toAccount(out.Item) : null;
}

export async function requireAccount(accountId: string): Promise<Account> {
  const a = await getAccount(accountId);
  if (!a) throw new NotFoundError('Account not found.');
  return a;
}

/**
 * Signing secrets are counted on the account item (`active_webhook_secrets`) in the same transaction that
 * adds or revokes one, so accepting a job can require "at least one active secret" as a condition of its
 * own reservation transaction instead of a separate query.
 */
export async function createWebhookSecretRecord(accountId: string, sealFor: (id: string) => Promise<string>, clock: Clock = serviceClock): Promise<{ id: string }> {
  const id = newId('whsec', clock.now().getTime());
  // Sealed for this record's identity (the id is minted first), so the sealed value opens only here.
  const sealed = await sealFor(id);
  const table = tableName('accounts');
  try {
    await documentClient().send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: table, Item: { ...K.webhookSecret(accountId, id), id, sealed, created_at: clock.now().toISOString() } } },
          {
            Update: {
              TableName: table,
              Key: K.account(accountId),
              UpdateExpression: 'ADD active_webhook_secrets :one',
              ConditionExpression: 'attribute_exists(pk)',
              ExpressionAttributeValues: { ':one': 1 },
            },
          },
        ],
      }),
    );
  } catch (e) {
    if (isTransactionCanceled(e)) throw new NotFoundError('Account not found.');
    throw e;
  }
  return { id };
}

export async function revokeWebhookSecret(accountId: string, secretId: string, clock: Clock = serviceClock): Promise<void> {
  const table = tableName('accounts');
  const key = K.webhookSecret(accountId, secretId);
  const current = await documentClient().send(new GetCommand({ TableName: table, Key: key, ConsistentRead: true }));
  if (!current.Item) throw new NotFoundError('Webhook signing secret not found.');
  if (current.Item.revoked_at) return; // already revoked: idempotent
  try {
    await documentClient().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: table,
              Key: key,
              UpdateExpression: 'SET revoked_at = :now',
              ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(revoked_at)',
              ExpressionAttributeValues: { ':now': clock.now().toISOString() },
            },
          },
          { Update: { TableName: table, Key: K.account(accountId), UpdateExpression: 'ADD active_webhook_secrets :minus', ExpressionAttributeValues: { ':minus': -1 } } },
        ],
      }),
    );
  } catch (e) {
    // A concurrent revocation won: the count was decremented once, by it.
    if (!(isTransactionCanceled(e))) throw e;
  }
}

/** Active (unrevoked) sealed signing secrets of an account. */
export async function activeWebhookSecrets(accountId: string): Promise<{ id: string; sealed: string }[]> {
  const out = await documentClient().send(
    new QueryCommand({
      TableName: tableName('accounts'),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
      FilterExpression: 'attribute_not_exists(revoked_at)',
      ExpressionAttributeValues: { ':pk': K.accountPk(accountId), ':p': K.webhookSecretPrefix },
      ConsistentRead: true,
    }),
  );
  return (out.Items ?? []).map((i) => ({ id: i.id as string, sealed: i.sealed as string }));
}

export async function listCharges(accountId: string, limit = 200): Promise<ChargeRecord[]> {
  const out = await documentClient().send(
    new QueryCommand({
      TableName: tableName('accounts'),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
      ExpressionAttributeValues: { ':pk': K.accountPk(accountId), ':p': K.chargePrefix },
      ScanIndexForward: false,
      Limit: limit,
      ConsistentRead: true,
    }),
  );
  return (out.Items ?? []).map(toCharge);
}
