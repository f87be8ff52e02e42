import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../adapters/aws.js';
import { tableName } from '../catalog/resource-names.js';
import { serviceClock, type Clock } from '../core/clock.js';
import { newId } from '../core/ids.js';
import { NotFoundError } from '../core/errors.js';
import type { SendingAccount } from './model.js';
import { accountsKeys as K } from './accounts.keys.js';
import { isConditionFailed, isTransactionCanceled } from '../adapters/dynamodb-errors.js';
import { setClauses } from '../adapters/update-expression.js';
import { smtpSettingsView } from './smtp-settings.js';

/**
 * Sending accounts live in their owner's partition (ACCOUNT#<id> / EA#<ea_id>), so an account's list is one
 * strongly consistent query; a pointer item (EA#<ea_id> / EA) lets the console address one by id alone.
 * `sent_today` is derived from a per-local-day counter so it resets at the account's midnight.
 */
interface StoredSendingAccount extends Omit<SendingAccount, 'sent_today'> {
  account_id: string;
  created_at?: string;
  sent_day?: string;
  sent_count?: number;
}

export function localDayOf(date: Date, timeZone: string): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(date);
}

export function toSendingAccount(item: Record<string, unknown>, clock: Clock = serviceClock): SendingAccount {
  const s = item as unknown as StoredSendingAccount;
  const today = localDayOf(clock.now(), s.timezone);
  return {
    id: s.id,
    email: s.email,
    type: s.type,
    connected: s.connected,
    sending_enabled: s.sending_enabled,
    daily_limit: s.daily_limit,
    sent_today: s.sent_day === today ? (s.sent_count ?? 0) : 0,
    health: s.health,
    timezone: s.timezone,
    signature_html: s.signature_html ?? '',
    ...(s.smtp ? { smtp: s.smtp } : {}),
    ...(s.transport ? { transport: s.transport } : {}),
    warmup_started_at: s.warmup_started_at ?? s.created_at ?? clock.now().toISOString(),
  };
}

/**
 * The console's view: the public shape plus the console-side settings. An `smtp` account's server shows
 * without its password (`password_set` only).
 */
export function consoleSendingAccountView(a: SendingAccount) {
  return {
    ...sendingAccountView(a),
    timezone: a.timezone,
    ...(a.type === 'smtp' ? { smtp: smtpSettingsView(a.smtp), transport: a.transport ?? 'smtp' } : {}),
    ...(a.engagement ? { engagement: a.engagement } : {}),
  };
}

/** The wire shape of docs/decisions.md#sending-accounts (timezone is a console-side setting). */
export function sendingAccountView(a: SendingAccount) {
  return {
    id: a.id,
    email: a.email,
    type: a.type,
    connected: a.connected,
    sending_enabled: a.sending_enabled,
    daily_limit: a.daily_limit,
    sent_today: a.sent_today,
    health: a.health,
    // Beyond SPEC (additive): why `daily_limit` is what it is, once assessed (shared/outreach/sending-capacity.ts).
    ...(a.configured_daily_limit !== undefined ? { configured_daily_limit: a.configured_daily_limit } : {}),
    ...(a.warmup ? { warmup: a.warmup } : {}),
  };
}

export async function createSendingAccount(
  accountId: string,
  input: Omit<SendingAccount, 'id' | 'sent_today' | 'signature_html'>,
  clock: Clock = serviceClock,
  /** Minted by a caller that seals a secret for this record before it exists; a new id otherwise. */
  id: string = newId('ea', clock.now().getTime()),
): Promise<SendingAccount> {
  const table = tableName('accounts');
  const item: StoredSendingAccount & Record<string, unknown> = { ...input, signature_html: '', id, account_id: accountId, created_at: clock.now().toISOString(), warmup_started_at: input.warmup_started_at ?? clock.now().toISOString() };
  await documentClient().send(
    new TransactWriteCommand({
      TransactItems: [
        { ConditionCheck: { TableName: table, Key: K.account(accountId), ConditionExpression: 'attribute_exists(pk)' } },
        { Put: { TableName: table, Item: { ...K.sendingAccount(accountId, id), ...item } } },
        { Put: { TableName: table, Item: { ...K.sendingAccountOwner(id), account_id: accountId } } },
      ],
    }),
  ).catch((e: unknown) => {
    if (isTransactionCanceled(e)) throw new NotFoundError('Account not found.');
    throw e;
  });
  return toSendingAccount(item, clock);
}

export async function listSendingAccounts(accountId: string, clock: Clock = serviceClock): Promise<SendingAccount[]> {
  const out = await documentClient().send(
    new QueryCommand({
      TableName: tableName('accounts'),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
      ExpressionAttributeValues: { ':pk': K.accountPk(accountId), ':p': K.sendingAccountPrefix },
      ConsistentRead: true,
    }),
  );
  return (out.Items ?? []).map((i) => toSendingAccount(i, clock));
}

/** Tenant-scoped read: another account's id is simply not found. */
export async function getSendingAccount(accountId: string, eaId: string, clock: Clock = serviceClock): Promise<SendingAccount | null> {
  const out = await documentClient().send(
    new GetCommand({ TableName: tableName('accounts'), Key: K.sendingAccount(accountId, eaId), ConsistentRead: true }),
  );
  return out.Item ? toSendingAccount(out.Item, clock) : null;
}

export async function ownerOfSendingAccount(eaId: string): Promise<string | null> {
  const out = await documentClient().send(new GetCommand({ TableName: tableName('accounts'), Key: K.sendingAccountOwner(eaId), ConsistentRead: true }));
  return (out.Item?.account_id as string | undefined) ?? null;
}

export type SendingAccountChange = Partial<Pick<SendingAccount, 'connected' | 'sending_enabled' | 'daily_limit' | 'health' | 'timezone' | 'signature_html' | 'smtp' | 'transport' | 'warmup_started_at'>>;

export async function updateSendingAccount(
  eaId: string,
  patch: SendingAccountChange,
  clock: Clock = serviceClock,
): Promise<SendingAccount & { account_id: string }> {
  const owner = await ownerOfSendingAccount(eaId);
  if (!owner) throw new NotFoundError('Sending account not found.');
  const { clauses: sets, names, values } = setClauses(patch);
  const out = await documentClient().send(
    new UpdateCommand({
      TableName: tableName('accounts'),
      Key: K.sendingAccount(owner, eaId),
      UpdateExpression: `SET ${sets.join(', ')}`,
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
      ReturnValues: 'ALL_NEW',
    }),
  );
  return { ...toSendingAccount(out.Attributes!, clock), account_id: owner };
}

/** Count one real send against the account's local day (resets when the local day changes). */
export async function recordSend(accountId: string, eaId: string, timeZone: string, clock: Clock = serviceClock): Promise<void> {
  const day = localDayOf(clock.now(), timeZone);
  const key = K.sendingAccount(accountId, eaId);
  const table = tableName('accounts');
  try {
    await documentClient().send(
      new UpdateCommand({ TableName: table, Key: key, UpdateExpression: 'ADD sent_count :one', ConditionExpression: 'sent_day = :d', ExpressionAttributeValues: { ':one': 1, ':d': day } }),
    );
  } catch (e) {
    if (!isConditionFailed(e)) throw e;
    await documentClient().send(
      new UpdateCommand({
        TableName: table,
        Key: key,
        UpdateExpression: 'SET sent_day = :d, sent_count = :one',
        ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(sent_day) OR sent_day <> :d)',
        ExpressionAttributeValues: { ':one': 1, ':d': day },
      }),
    ).catch(async (err: unknown) => {
      // Another send started the day first: count on top of it.
      if (!isConditionFailed(err)) throw err;
      await documentClient().send(new UpdateCommand({ TableName: table, Key: key, UpdateExpression: 'ADD sent_count :one', ExpressionAttributeValues: { ':one': 1 } }));
    });
  }
}
