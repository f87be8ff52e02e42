import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient, queryAll } from '../adapters/aws.js';
import { tableName } from '../catalog/resource-names.js';
import { serviceClock, type Clock } from '../core/clock.js';
import { newId } from '../core/ids.js';
import { ConflictError, ContentionError, NotFoundError } from '../core/errors.js';
import { apiKeyRegistry, type ApiKeyRegistry } from '../adapters/api-key-registry.js';
import { apiKeyPrefix, generateApiKey, hashApiKey, newUsageIdentifier } from '../core/api-key-values.js';
import { accountsKeys as K } from './accounts.keys.js';
import { unrevokedKeyListings } from './accounts.repository.js';
import { isConditionFailed, isTransactionCanceled } from '../adapters/dynamodb-errors.js';
import { DUE_ATTRIBUTES, dueFields } from '../catalog/tables.js';
import type { SweepAction } from '../catalog/deadlines.js';

/**
 * Issuing and revoking API keys: the key records in the accounts table and their registration with API
 * Gateway's usage plan. Kept apart from accounts.repository.ts so that the handlers that only read an
 * account (every public route) do not bundle the API Gateway client.
 */

/**
 * Live API keys an account may hold at once (README "Limits"). Each is one API Gateway key, and API Gateway
 * allows 10,000 per account and Region, fixed: 25 keys (a key per service, environment and rotation) lets
 * 400 accounts at the cap share one deployment, and no one account can take the Region's quota.
 */
export const MAX_LIVE_API_KEYS = 25;

/**
 * A key left `pending` this long belongs to a create that died; the account's next create, or the sweeper
 * (its listing is due on the due index then), rolls it back.
 */
export const PENDING_KEY_LEASE_MS = 60_000;

/** The step a create has just finished; a test seam to stop it there, as a crash would. */
export type ApiKeyCreateStep = 'reserved' | 'registered';

export interface CreateApiKeyOptions {
  afterStep?: (step: ApiKeyCreateStep) => Promise<void>;
}

const ATTEMPTS = 20;
const pause = (attempt: number) => new Promise((r) => setTimeout(r, 5 + Math.random() * 10 * Math.min(attempt + 1, 8)));

/** The keys holding a place under the cap, to start the live count of an account that has none: every unrevoked one, a pending create included. */
const countLiveKeys = async (accountId: string): Promise<number> => (await unrevokedKeyListings(accountId)).length;

const capReached = () =>
  new ConflictError(`This account already holds ${MAX_LIVE_API_KEYS} live API keys, the most it may hold; revoke one before creating another.`);

/**
 * A new API key, in three steps that a crash at any point leaves safe:
 * 1. **reserve** (one transaction): the key record `APIKEY#<hash>` is written refused (`revoked_at`, `pending`),
 *    its listing `pending`, and the account's `live_keys` counted up, conditioned below MAX_LIVE_API_KEYS (and on
 *    `public_api` as read): 26 concurrent creates cannot pass 25, and nothing usable exists yet;
 * 2. **register** the usage identifier with API Gateway, named by the key id;
 * 3. **activate** (one transaction): the refusal removed from the key record, the gateway key id on the listing.
 * Only then does the raw key leave in the answer. A create that died in 1–2 leaves a `pending` key nobody holds:
 * its listing is on the due index from the reserve (due PENDING_KEY_LEASE_MS later; activation takes it off), so
 * the sweeper (`sweepPendingApiKey`), or the account's next create, whichever comes first after the lease, deletes
 * its API Gateway key, found by its id or its name, and removes both records and the count in one transaction
 * (`rollBackPendingApiKey`). Over the cap: 409 `conflict`.
 */
export async function createApiKey(
  accountId: string,
  clock: Clock = serviceClock,
  registry: ApiKeyRegistry = apiKeyRegistry(),
  opts: CreateApiKeyOptions = {},
): Promise<{ id: string; key: string; hash: string }> {
  await rollBackStalePendingKeys(accountId, clock, registry);
  // The raw key leaves this function once, in the 201 answer; only its hash is stored. API Gateway learns the
  // usage identifier, a separate random value the authorizer hands it for this key.
  const key = generateApiKey();
  const hash = hashApiKey(key);
  const usageIdentifier = newUsageIdentifier();
  const id = newId('key', clock.now().getTime());
  const created_at = clock.now().toISOString();
  const table = tableName('accounts');

  for (let attempt = 0; ; attempt++) {
    const account = (await documentClient().send(new GetCommand({ TableName: table, Key: K.account(accountId), ConsistentRead: true }))).Item;
    if (!account) throw new NotFoundError('Account not found.');
    const live = account.live_keys as number | undefined;
    // An account from before the count: its live keys are counted once, and the count is started by a write
    // conditioned on there being none yet.
    const start = live === undefined ? await countLiveKeys(accountId) : live;
    if (start >= MAX_LIVE_API_KEYS) throw capReached();
    const counted =
      live === undefined
        ? { UpdateExpression: 'SET live_keys = :n, keys_version = if_not_exists(keys_version, :zero) + :one', ConditionExpression: 'public_api = :pa AND attribute_not_exists(live_keys)', ExpressionAttributeValues: { ':n': start + 1, ':zero': 0, ':one': 1, ':pa': account.public_api } }
        : { UpdateExpression: 'ADD keys_version :one, live_keys :one', ConditionExpression: 'public_api = :pa AND live_keys < :cap', ExpressionAttributeValues: { ':one': 1, ':pa': account.public_api, ':cap': MAX_LIVE_API_KEYS } };
    try {
      // The key record carries the account's public_api flag (caller.repository.ts); bumping keys_version tells a
      // concurrent updateAccount that its list of keys to update is stale.
      await documentClient().send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: table,
                Item: { ...K.apiKeyLookup(hash), key_id: id, account_id: accountId, public_api: account.public_api, usage_identifier: usageIdentifier, created_at, revoked_at: created_at, pending: true },
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
            {
              Put: {
                TableName: table,
                // Due when the lease ends: the sweeper rolls back a create that never activated it.
                Item: { ...K.apiKeyMeta(accountId, id), key_id: id, hash, prefix: apiKeyPrefix(key), created_at, state: 'pending', pending_since: clock.now().getTime(), ...dueFields(K.apiKeyMeta(accountId, id), new Date(clock.now().getTime() + PENDING_KEY_LEASE_MS)) },
              },
            },
            { Update: { TableName: table, Key: K.account(accountId), ...counted } },
          ],
        }),
      );
      break;
    } catch (e) {
      if (!isTransactionCanceled(e)) throw e;
      // Lost to a concurrent create or account change (a condition or a transaction conflict): read again; the
      // count then says whether there is room.
      if (attempt + 1 >= ATTEMPTS) throw new ContentionError('The account is being changed by concurrent requests; retry shortly.');
      await pause(attempt);
    }
  }
  await opts.afterStep?.('reserved');
  const gatewayKeyId = await registry.register(id, usageIdentifier);
  await opts.afterStep?.('registered');
  await documentClient().send(
    new TransactWriteCommand({
      TransactItems: [
        { Update: { TableName: table, Key: K.apiKeyLookup(hash), UpdateExpression: 'REMOVE revoked_at, pending', ConditionExpression: 'pending = :t', ExpressionAttributeValues: { ':t': true } } },
        {
          Update: {
            TableName: table,
            Key: K.apiKeyMeta(accountId, id),
            UpdateExpression: gatewayKeyId ? `SET gateway_key_id = :g REMOVE #state, pending_since, ${DUE_ATTRIBUTES.join(', ')}` : `REMOVE #state, pending_since, ${DUE_ATTRIBUTES.join(', ')}`,
            ConditionExpression: '#state = :pending',
            ExpressionAttributeNames: { '#state': 'state' },
            ExpressionAttributeValues: { ':pending': 'pending', ...(gatewayKeyId ? { ':g': gatewayKeyId } : {}) },
          },
        },
      ],
    }),
  );
  return { id, key, hash };
}

/** The account's keys left `pending` longer than the lease, rolled back (a failure is left for the next try). */
async function rollBackStalePendingKeys(accountId: string, clock: Clock, registry: ApiKeyRegistry): Promise<void> {
  const pending = await queryAll<Record<string, unknown>>({
    TableName: tableName('accounts'),
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
    FilterExpression: '#state = :pending AND pending_since < :stale',
    ExpressionAttributeNames: { '#state': 'state' },
    ExpressionAttributeValues: { ':pk': K.accountPk(accountId), ':p': K.apiKeyMetaPrefix, ':pending': 'pending', ':stale': clock.now().getTime() - PENDING_KEY_LEASE_MS },
    ConsistentRead: true,
  });
  for (const item of pending) await rollBackPendingApiKey(accountId, item.key_id as string, registry);
}

/**
 * Undo a create that died before activating its key (no one ever got the raw key): delete its API Gateway key
 * (by the id the listing names, else by its name, the key id), then its two records and its place in the live
 * count, in one transaction conditioned on it still being `pending`. Idempotent; false when it is not pending.
 */
export async function rollBackPendingApiKey(accountId: string, keyId: string, registry: ApiKeyRegistry = apiKeyRegistry()): Promise<boolean> {
  const table = tableName('accounts');
  const meta = (await documentClient().send(new GetCommand({ TableName: table, Key: K.apiKeyMeta(accountId, keyId), ConsistentRead: true }))).Item;
  if (meta?.state !== 'pending') return false;
  await registry.release(keyId, (meta.gateway_key_id as string | undefined) ?? null);
  try {
    await documentClient().send(
      new TransactWriteCommand({
        TransactItems: [
          { Delete: { TableName: table, Key: K.apiKeyMeta(accountId, keyId), ConditionExpression: '#state = :pending', ExpressionAttributeNames: { '#state': 'state' }, ExpressionAttributeValues: { ':pending': 'pending' } } },
          { Delete: { TableName: table, Key: K.apiKeyLookup(meta.hash as string), ConditionExpression: 'attribute_not_exists(pk) OR pending = :t', ExpressionAttributeValues: { ':t': true } } },
          { Update: { TableName: table, Key: K.account(accountId), UpdateExpression: 'ADD live_keys :minus', ConditionExpression: 'live_keys > :zero', ExpressionAttributeValues: { ':minus': -1, ':zero': 0 } } },
        ],
      }),
    );
    return true;
  } catch (e) {
    if (isTransactionCanceled(e)) return false;
    throw e;
  }
}

/** The account and key id an item key of the accounts table names when it is an API key's listing (the due index hands out keys), or null. */
export const apiKeyOfKey = K.apiKeyMetaOf;

/**
 * The sweeper's step for an API key listing found on the due index: still `pending` past the lease, the create
 * died, and it is rolled back (its API Gateway key too); still within it (a clock behind), looked at again when
 * it ends; activated meanwhile (a listing left on the index), taken off it; gone, nothing.
 */
export async function sweepPendingApiKey(accountId: string, keyId: string, clock: Clock = serviceClock, registry: ApiKeyRegistry = apiKeyRegistry()): Promise<SweepAction> {
  const table = tableName('accounts');
  const key = K.apiKeyMeta(accountId, keyId);
  const meta = (await documentClient().send(new GetCommand({ TableName: table, Key: key, ConsistentRead: true }))).Item;
  if (!meta) return 'none';
  const pending = meta.state === 'pending';
  const leaseEnds = ((meta.pending_since as number | undefined) ?? 0) + PENDING_KEY_LEASE_MS;
  if (pending && leaseEnds <= clock.now().getTime()) return (await rollBackPendingApiKey(accountId, keyId, registry)) ? 'ended' : 'none';
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: table,
        Key: key,
        ...(pending
          ? { UpdateExpression: 'SET due_at = :at', ConditionExpression: '#state = :pending', ExpressionAttributeValues: { ':at': new Date(leaseEnds).toISOString(), ':pending': 'pending' } }
          : { UpdateExpression: `REMOVE ${DUE_ATTRIBUTES.join(', ')}`, ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(#state)' }),
        ExpressionAttributeNames: { '#state': 'state' },
      }),
    );
  } catch (e) {
    if (isConditionFailed(e)) return 'none';
    throw e;
  }
  return pending ? 'postponed' : 'cleared';
}

/**
 * Revoke a key: both records marked, the account's live count given back once (the first revocation of a live
 * key; an account from before the count has none to give back), then its API Gateway key deleted. A key still
 * `pending` is no key yet: 404, as for an unknown id.
 */
export async function revokeApiKey(accountId: string, keyId: string, clock: Clock = serviceClock, registry: ApiKeyRegistry = apiKeyRegistry()): Promise<{ hash: string }> {
  const table = tableName('accounts');
  const meta = await documentClient().send(new GetCommand({ TableName: table, Key: K.apiKeyMeta(accountId, keyId), ConsistentRead: true }));
  if (!meta.Item || meta.Item.state === 'pending') throw new NotFoundError('API key not found.');
  const now = clock.now().toISOString();
  const marks = [
    { Update: { TableName: table, Key: K.apiKeyMeta(accountId, keyId), UpdateExpression: 'SET revoked_at = if_not_exists(revoked_at, :now)', ConditionExpression: 'attribute_not_exists(#state)', ExpressionAttributeNames: { '#state': 'state' }, ExpressionAttributeValues: { ':now': now } } },
    { Update: { TableName: table, Key: K.apiKeyLookup(meta.Item.hash as string), UpdateExpression: 'SET revoked_at = if_not_exists(revoked_at, :now)', ExpressionAttributeValues: { ':now': now } } },
  ];
  const giveBack = { Update: { TableName: table, Key: K.account(accountId), UpdateExpression: 'ADD live_keys :minus', ConditionExpression: 'live_keys > :zero', ExpressionAttributeValues: { ':minus': -1, ':zero': 0 } } };
  const firstRevocation = { ...marks[0]!, Update: { ...marks[0]!.Update, ConditionExpression: 'attribute_not_exists(#state) AND attribute_not_exists(revoked_at)' } };
  const counted = meta.Item.revoked_at === undefined && (await documentClient().send(new TransactWriteCommand({ TransactItems: [firstRevocation, marks[1]!, giveBack] })).then(
    () => true,
    (e: unknown) => {
      if (isTransactionCanceled(e)) return false;
      throw e;
    },
  ));
  // Revoked already (or concurrently), or an account without a live count: mark only, idempotently.
  if (!counted) await documentClient().send(new TransactWriteCommand({ TransactItems: marks }));
  await registry.unregister((meta.Item.gateway_key_id as string | undefined) ?? null);
  return { hash: meta.Item.hash as string };
}

