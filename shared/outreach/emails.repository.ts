import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient, queryAll, scanAll } from '../adapters/aws.js';
import { tableName } from '../core/env.js';
import type { EmailRecord, EmailStatus } from './model.js';
import { outreachKeys as K } from './outreach.keys.js';
import { setClauses } from '../adapters/update-expression.js';
import { isConditionFailed, itemOfConditionFailure } from '../adapters/dynamodb-errors.js';
import type { TransactItem } from '../accounts/ledger.repository.js';
import { expiresAt } from '../catalog/tables.js';

/** A terminal state starts an email's retention (RETENTION.outreach_email): the transition writes its TTL. */
const TERMINAL_STATUSES: readonly string[] = ['sent', 'cancelled', 'failed'];
function withRetention(set: Record<string, unknown>): Record<string, unknown> {
  if (typeof set.status !== 'string' || !TERMINAL_STATUSES.includes(set.status)) return set;
  const at = typeof set.updated_at === 'string' ? new Date(set.updated_at) : new Date();
  return { ...set, expires_at: expiresAt('outreach_email', at) };
}

/**
 * Email records, their pointers (tracking token, Message-ID) and received replies. Every state change is a
 * guarded transition: its condition is the state machine's guard.
 */
export async function getEmail(accountId: string, id: string): Promise<EmailRecord | null> {
  const out = await documentClient().send(new GetCommand({ TableName: tableName('outreach'), Key: K.email(accountId, id), ConsistentRead: true }));
  return (out.Item as EmailRecord | undefined) ?? null;
}

export type TransitionResult = { moved: true; email: EmailRecord } | { moved: false; current: EmailRecord | null };

/**
 * Move an email from one of `from` to whatever `set` says (usually a new status). A lost condition (someone
 * else moved it first, or it does not exist) answers with the email as it is now, from the same request.
 */
export async function transitionOrCurrent(accountId: string, id: string, from: EmailStatus[], set: Partial<EmailRecord> & Record<string, unknown>, remove: string[] = []): Promise<TransitionResult> {
  const { clauses: sets, names, values } = setClauses(withRetention(set));
  names['#s'] = 'status';
  from.forEach((s, i) => (values[`:from${i}`] = s));
  const removes = remove.map((k, i) => {
    names[`#r${i}`] = k;
    return `#r${i}`;
  });
  try {
    const out = await documentClient().send(
      new UpdateCommand({
        TableName: tableName('outreach'),
        Key: K.email(accountId, id),
        UpdateExpression: `SET ${sets.join(', ')}${removes.length ? ` REMOVE ${removes.join(', ')}` : ''}`,
        ConditionExpression: `#s IN (${from.map((_, i) => `:from${i}`).join(', ')})`,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { moved: true, email: out.Attributes as EmailRecord };
  } catch (e) {
    if (isConditionFailed(e)) return { moved: false, current: itemOfConditionFailure<EmailRecord>(e) };
    throw e;
  }
}

/** As `transitionOrCurrent`, for callers that only need to know whether they moved it: the updated email, or null. */
export async function transition(accountId: string, id: string, from: EmailStatus[], set: Partial<EmailRecord> & Record<string, unknown>, remove: string[] = []): Promise<EmailRecord | null> {
  const r = await transitionOrCurrent(accountId, id, from, set, remove);
  return r.moved ? r.email : null;
}

/**
 * A transition out of `sending` made only by the attempt that holds the claim (`send_attempt`): a lost
 * claim writes nothing. Returns the updated email, or null when the claim is no longer this attempt's.
 */
export async function transitionClaimed(accountId: string, id: string, claim: { ':attempt': string }, set: Partial<EmailRecord> & Record<string, unknown>): Promise<EmailRecord | null> {
  const { clauses: sets, names, values } = setClauses(withRetention(set));
  try {
    const out = await documentClient().send(
      new UpdateCommand({
        TableName: tableName('outreach'),
        Key: K.email(accountId, id),
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: '#s = :sending AND send_attempt = :attempt',
        ExpressionAttributeNames: { ...names, '#s': 'status' },
        ExpressionAttributeValues: { ...values, ':sending': 'sending', ...claim },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return out.Attributes as EmailRecord;
  } catch (e) {
    if (isConditionFailed(e)) return null;
    throw e;
  }
}

/**
 * The writes that record a new email and its tracking pointer, to ride in the caller's transaction (the
 * credit reservation).
 */
export function newEmailWrites(email: EmailRecord): TransactItem[] {
  const table = tableName('outreach');
  return [
    { Put: { TableName: table, Item: { ...K.email(email.account_id, email.id), ...email }, ConditionExpression: 'attribute_not_exists(pk)' } },
    // Retention runs from creation here and is extended from the send (extendTrackPointer).
    { Put: { TableName: table, Item: { ...K.trackPointer(email.track_token), account_id: email.account_id, email_id: email.id, recipient: email.to.email.toLowerCase(), expires_at: expiresAt('tracking_pointer', new Date(email.created_at)) } } },
  ];
}

/** All of an account's emails, newest first (ids are time-ordered). */
export async function queryEmails(accountId: string): Promise<EmailRecord[]> {
  return queryAll<EmailRecord>({
    TableName: tableName('outreach'),
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
    ExpressionAttributeValues: { ':pk': K.accountPk(accountId), ':p': K.emailPrefix },
    ScanIndexForward: false,
    ConsistentRead: true,
  });
}

/** Emails still in flight (local restart resume; a full scan is fine for the one-machine twin's sizes). */
export async function scanInFlightEmails(): Promise<EmailRecord[]> {
  return scanAll<EmailRecord>({
    TableName: tableName('outreach'),
    FilterExpression: 'begins_with(sk, :p) AND #s IN (:d, :q, :s)',
    ExpressionAttributeNames: { '#s': 'status' },
    ExpressionAttributeValues: { ':p': K.emailPrefix, ':d': 'drafting', ':q': 'queued', ':s': 'sending' },
    ConsistentRead: true,
  });
}

/** Which email a pointer leads to. */
export interface EmailRef {
  account_id: string;
  email_id: string;
}

async function getPointer(key: { pk: string; sk: string }): Promise<Record<string, unknown> | null> {
  const out = await documentClient().send(new GetCommand({ TableName: tableName('outreach'), Key: key, ConsistentRead: true }));
  return out.Item ?? null;
}

/** The email behind a tracking token (open pixel, unsubscribe link), with its recipient. */
export async function findByTrackToken(token: string): Promise<(EmailRef & { recipient: string }) | null> {
  const p = await getPointer(K.trackPointer(token));
  return p ? { account_id: p.account_id as string, email_id: p.email_id as string, recipient: p.recipient as string } : null;
}

/** The email a Message-ID (ours, or the provider's) was sent as. */
export async function findByMessageId(messageId: string): Promise<EmailRef | null> {
  const p = await getPointer(K.messageIdPointer(messageId));
  return p ? { account_id: p.account_id as string, email_id: p.email_id as string } : null;
}

export async function putMessageIdPointer(messageId: string, ref: EmailRef, sentAt: Date): Promise<void> {
  await documentClient().send(new PutCommand({ TableName: tableName('outreach'), Item: { ...K.messageIdPointer(messageId), ...ref, expires_at: expiresAt('tracking_pointer', sentAt) } }));
}

/** A sent email's open and unsubscribe links live as long as their retention from the send. */
export async function extendTrackPointer(token: string, sentAt: Date): Promise<void> {
  await documentClient().send(
    new UpdateCommand({ TableName: tableName('outreach'), Key: K.trackPointer(token), UpdateExpression: 'SET expires_at = :exp', ConditionExpression: 'attribute_exists(pk)', ExpressionAttributeValues: { ':exp': expiresAt('tracking_pointer', sentAt) } }),
  ).catch((e: unknown) => {
    if (!isConditionFailed(e)) throw e;
  });
}

/** An open of a sent email: the first open's time is kept, every open counted. Not sent (yet): nothing. */
export async function recordOpen(ref: EmailRef, now: string): Promise<void> {
  await documentClient()
    .send(
      new UpdateCommand({
        TableName: tableName('outreach'),
        Key: K.email(ref.account_id, ref.email_id),
        // opened_at starts as null (present), so the first open is kept in first_opened_at.
        UpdateExpression: 'SET first_opened_at = if_not_exists(first_opened_at, :now), opened_at = if_not_exists(first_opened_at, :now) ADD open_count :one',
        ConditionExpression: '#s IN (:sent, :replied)',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':now': now, ':one': 1, ':sent': 'sent', ':replied': 'replied' },
      }),
    )
    .catch((e: unknown) => {
      if (!isConditionFailed(e)) throw e;
    });
}

/** A received message matched to one of the account's emails (SPEC.md "Reply"). */
export interface ReplyRecord {
  email_id: string;
  from_email: string;
  from_name: string;
  subject: string;
  body_plain: string;
  classification: 'reply' | 'bounce' | 'auto_reply';
  received_at: string;
  sequence_id?: string;
}

export async function recordReply(accountId: string, replyId: string, reply: ReplyRecord): Promise<void> {
  await documentClient().send(new PutCommand({ TableName: tableName('outreach'), Item: { ...K.reply(accountId, replyId), ...reply, expires_at: expiresAt('reply', new Date(reply.received_at)) } }));
}
