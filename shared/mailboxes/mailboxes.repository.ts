import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../adapters/aws.js';
import { isConditionFailed } from '../adapters/dynamodb-errors.js';
import { tableName } from '../catalog/resource-names.js';
import { expiresAt } from '../catalog/tables.js';
import { accountsKeys as K } from '../accounts/accounts.keys.js';

/**
 * Mailbox connections and pending OAuth flows, in the accounts table (keys in accounts.keys.ts):
 *   MAILBOXES / EA#<ea_id>          a connected Google or Microsoft mailbox: sealed tokens, sync cursor
 *   OAUTHSTATE#<state> / STATE      a started connection: PKCE verifier (sealed), browser-binding hash, owner, expiry (TTL)
 * One partition lists every mailbox the poller visits; a poll reads it once per run, and the cursor of a
 * mailbox only moves by a conditional write on its revision, so two overlapping polls never both advance it.
 */
export type ProviderKind = 'google' | 'microsoft';

export interface MailboxConnection {
  ea_id: string;
  account_id: string;
  provider: ProviderKind;
  email: string;
  /** Secret box seal of `{access_token, refresh_token}`. */
  tokens_sealed: string;
  access_expires_ms: number;
  cursor: string;
  cursor_rev: number;
  status: 'active' | 'revoked';
  connected_at: string;
  revoked_reason?: string;
}

export interface OAuthFlow {
  state: string;
  account_id: string;
  provider: ProviderKind;
  verifier_sealed: string;
  /** SHA-256 (hex) of the browser-binding nonce the start set as a cookie (browser-binding.ts). */
  nonce_hash: string;
  redirect_uri: string;
  return_url: string | null;
  login_hint: string | null;
  /** The sending account this consent connects (an operator-created one); absent: found or created by address. */
  ea_id?: string | null;
  expires_at: number;
}

const MAILBOXES = K.mailboxesPk;
const keys = { connection: K.mailboxConnection, flow: K.oauthFlow };

export async function putOAuthFlow(flow: Omit<OAuthFlow, 'expires_at'>, now: Date): Promise<void> {
  await documentClient().send(
    new PutCommand({ TableName: tableName('accounts'), Item: { ...keys.flow(flow.state), ...flow, expires_at: expiresAt('oauth_state', now) }, ConditionExpression: 'attribute_not_exists(pk)' }),
  );
}

/** Single use: the state is deleted as it is read; an unknown, used or expired state (on the service clock) is null. */
export async function takeOAuthFlow(state: string, now: Date): Promise<OAuthFlow | null> {
  try {
    const out = await documentClient().send(
      new DeleteCommand({ TableName: tableName('accounts'), Key: keys.flow(state), ConditionExpression: 'attribute_exists(pk)', ReturnValues: 'ALL_OLD' }),
    );
    const flow = out.Attributes as OAuthFlow | undefined;
    return flow && flow.expires_at > Math.floor(now.getTime() / 1000) ? flow : null;
  } catch (e) {
    if (isConditionFailed(e)) return null;
    throw e;
  }
}

export async function saveConnection(c: MailboxConnection): Promise<void> {
  await documentClient().send(new PutCommand({ TableName: tableName('accounts'), Item: { ...keys.connection(c.ea_id), ...c } }));
}

export async function getConnection(eaId: string): Promise<MailboxConnection | null> {
  const out = await documentClient().send(new GetCommand({ TableName: tableName('accounts'), Key: keys.connection(eaId), ConsistentRead: true }));
  return (out.Item as MailboxConnection | undefined) ?? null;
}

export async function listActiveConnections(): Promise<MailboxConnection[]> {
  const out: MailboxConnection[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await documentClient().send(
      new QueryCommand({
        TableName: tableName('accounts'),
        KeyConditionExpression: 'pk = :pk',
        FilterExpression: '#s = :active',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':pk': MAILBOXES, ':active': 'active' },
        ExclusiveStartKey: start,
      }),
    );
    out.push(...((page.Items ?? []) as MailboxConnection[]));
    start = page.LastEvaluatedKey;
  } while (start);
  return out;
}

export async function storeTokens(eaId: string, sealed: string, accessExpiresMs: number): Promise<void> {
  await documentClient().send(
    new UpdateCommand({
      TableName: tableName('accounts'),
      Key: keys.connection(eaId),
      UpdateExpression: 'SET tokens_sealed = :t, access_expires_ms = :e',
      ConditionExpression: '#s = :active',
      ExpressionAttributeNames: { '#s': 'status' },
      ExpressionAttributeValues: { ':t': sealed, ':e': accessExpiresMs, ':active': 'active' },
    }),
  );
}

/** Moves the cursor only from the revision this poll started at; false when another poll moved it first. */
export async function advanceCursor(eaId: string, fromRev: number, cursor: string): Promise<boolean> {
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: tableName('accounts'),
        Key: keys.connection(eaId),
        UpdateExpression: 'SET #c = :c, cursor_rev = :next',
        ConditionExpression: 'cursor_rev = :rev',
        ExpressionAttributeNames: { '#c': 'cursor' },
        ExpressionAttributeValues: { ':c': cursor, ':rev': fromRev, ':next': fromRev + 1 },
      }),
    );
    return true;
  } catch (e) {
    if (isConditionFailed(e)) return false;
    throw e;
  }
}

export async function markRevoked(eaId: string, reason: string): Promise<void> {
  await documentClient().send(
    new UpdateCommand({
      TableName: tableName('accounts'),
      Key: keys.connection(eaId),
      UpdateExpression: 'SET #s = :revoked, revoked_reason = :r',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#s': 'status' },
      ExpressionAttributeValues: { ':revoked': 'revoked', ':r': reason },
    }),
  ).catch((e: unknown) => {
    if (!isConditionFailed(e)) throw e;
  });
}
