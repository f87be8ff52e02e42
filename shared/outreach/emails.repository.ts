import { randomBytes } from 'node:crypto';
import { GetCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetAll, documentClient, queryAll, scanAll } from '../adapters/aws.js';
import { countListIndexUpTo, walkListIndex, type ListCount, type ListIndexRange } from '../adapters/list-index.js';
import { tableName } from '../catalog/resource-names.js';
import { EMAIL_LIST_FIELDS, type EmailListRecord, type EmailRecord, type EmailStatus } from './model.js';
import { outreachKeys as K } from './outreach.keys.js';
import { setClauses } from '../adapters/update-expression.js';
import { cancellationReasons, isConditionFailed, isTransactionCanceled, itemOfConditionFailure } from '../adapters/dynamodb-errors.js';
import type { TransactItem } from '../accounts/ledger.repository.js';
import { DUE_ATTRIBUTES, TABLES, dueFields, expiresAt } from '../catalog/tables.js';

/**
 * A terminal state starts an email's retention (RETENTION.outreach_email) and leaves the due index: the
 * transition writes its TTL and removes its due time. A non-terminal transition says when its next step is
 * due (`due`), or that it rests (`null`, e.g. waiting for sending capacity).
 *
 * Waiting for capacity is `awaiting_capacity` with its await-index entry (`await_pk`/`await_sk`,
 * `awaitingCapacityEntry`), set together by the one write that parks an email. Every write that takes it out
 * of that state removes all three: one that removes `awaiting_capacity` (its slot booked) or moves the email
 * out of `queued` (sending, sent, cancelled, failed, back to review). Any other write (an edit, a due-time
 * move) leaves them as they are.
 */
const TERMINAL_STATUSES: readonly string[] = ['sent', 'cancelled', 'failed'];
const AWAIT_ATTRIBUTES = ['awaiting_capacity', 'await_pk', 'await_sk'] as const;
function bookkeeping(key: { pk: string; sk: string }, set: Record<string, unknown>, remove: string[], due: Date | null | undefined): { set: Record<string, unknown>; remove: string[] } {
  const parks = set.awaiting_capacity !== undefined && set.awaiting_capacity !== null;
  if (parks && (typeof set.await_pk !== 'string' || typeof set.await_sk !== 'string')) throw new Error('an email parked awaiting capacity carries its await-index entry (awaitingCapacityEntry)');
  const leaves = !parks && ((typeof set.status === 'string' && set.status !== 'queued') || remove.includes('awaiting_capacity') || set.awaiting_capacity === null);
  if (leaves) {
    set = Object.fromEntries(Object.entries(set).filter(([k]) => !(AWAIT_ATTRIBUTES as readonly string[]).includes(k)));
    remove = [...new Set([...remove, ...AWAIT_ATTRIBUTES])];
  }
  if (typeof set.status === 'string' && TERMINAL_STATUSES.includes(set.status)) {
    const at = typeof set.updated_at === 'string' ? new Date(set.updated_at) : new Date();
    return { set: { ...set, expires_at: expiresAt('outreach_email', at) }, remove: [...new Set([...remove, ...DUE_ATTRIBUTES])] };
  }
  if (due === null) return { set, remove: [...new Set([...remove, ...DUE_ATTRIBUTES])] };
  if (due) return { set: { ...set, ...dueFields(key, due) }, remove };
  return { set, remove };
}

/** The await index (catalog/tables.ts, outreach): keys only, sparse, the emails that wait for capacity. */
const AWAIT_INDEX = TABLES.outreach.gsis.find((g) => g.name === 'await')!;

/** The await-index attributes a write that parks `email` (waiting for capacity) sets with `awaiting_capacity`. */
export function awaitingCapacityEntry(email: Pick<EmailRecord, 'id' | 'account_id' | 'from_account' | 'created_at'>): { await_pk: string; await_sk: string } {
  return K.awaitEntry(email.account_id, email.from_account, email.created_at, email.id);
}

/** The guarded update of one email: the change with its bookkeeping, on `condition`. */
function emailUpdate(
  accountId: string,
  id: string,
  set: Record<string, unknown>,
  remove: string[],
  due: Date | null | undefined,
  condition: { expression: string; names: Record<string, string>; values: Record<string, unknown> },
) {
  const key = K.email(accountId, id);
  const b = bookkeeping(key, set, remove, due);
  const { clauses: sets, names, values } = setClauses(b.set);
  const removes = b.remove.map((k, i) => {
    names[`#r${i}`] = k;
    return `#r${i}`;
  });
  return {
    TableName: tableName('outreach'),
    Key: key,
    UpdateExpression: [sets.length ? `SET ${sets.join(', ')}` : '', removes.length ? `REMOVE ${removes.join(', ')}` : ''].join(' ').trim(),
    ConditionExpression: condition.expression,
    ExpressionAttributeNames: { ...names, ...condition.names },
    ExpressionAttributeValues: { ...values, ...condition.values },
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
  };
}

export interface TransitionOptions {
  /** When the email's next step is due (the sweeper acts after it); null: it rests, off the due index. */
  due?: Date | null;
  /** Writes that must happen with the transition or not at all (settling its reservation, pointers). */
  with?: TransactItem[];
}

/**
 * Email records, their pointers (tracking token, Message-ID) and received replies. Every state change is a
 * guarded transition: its condition is the state machine's guard.
 */
export async function getEmail(accountId: string, id: string): Promise<EmailRecord | null> {
  const out = await documentClient().send(new GetCommand({ TableName: tableName('outreach'), Key: K.email(accountId, id), ConsistentRead: true }));
  return (out.Item as EmailRecord | undefined) ?? null;
}

/** The email an item key of the outreach table names (the due index hands out keys), or null. */
export const emailOfKey = K.emailOf;

export type TransitionResult = { moved: true; email: EmailRecord } | { moved: false; current: EmailRecord | null };

/**
 * Move an email from one of `from` to whatever `set` says (usually a new status). A lost condition (someone
 * else moved it first, or it does not exist) answers with the email as it is now, from the same request.
 */
export async function transitionOrCurrent(accountId: string, id: string, from: EmailStatus[], set: Partial<EmailRecord> & Record<string, unknown>, remove: string[] = [], opts: TransitionOptions = {}): Promise<TransitionResult> {
  const update = emailUpdate(accountId, id, set, remove, opts.due, {
    expression: `#s IN (${from.map((_, i) => `:from${i}`).join(', ')})`,
    names: { '#s': 'status' },
    values: Object.fromEntries(from.map((s, i) => [`:from${i}`, s])),
  });
  if (opts.with?.length) return transitionInTransaction(accountId, id, update, opts.with);
  try {
    const out = await documentClient().send(new UpdateCommand({ ...update, ReturnValues: 'ALL_NEW' }));
    return { moved: true, email: out.Attributes as EmailRecord };
  } catch (e) {
    if (isConditionFailed(e)) return { moved: false, current: itemOfConditionFailure<EmailRecord>(e) };
    throw e;
  }
}

/**
 * The transition and the writes that go with it, in one transaction. A lost condition on the email answers
 * with the email as it is; a lost condition on one of the other writes (a reservation settled meanwhile)
 * does not hold the transition back: it is made without them.
 */
async function transitionInTransaction(accountId: string, id: string, update: NonNullable<TransactItem['Update']>, writes: TransactItem[]): Promise<TransitionResult> {
  try {
    await documentClient().send(new TransactWriteCommand({ TransactItems: [{ Update: update }, ...writes] }));
  } catch (e) {
    if (!isTransactionCanceled(e)) throw e;
    const [email, ...rest] = cancellationReasons(e);
    if (email?.Code === 'ConditionalCheckFailed') return { moved: false, current: itemOfConditionFailure<EmailRecord>(email) };
    if (!rest.some((r) => r.Code === 'ConditionalCheckFailed')) throw e;
    try {
      await documentClient().send(new UpdateCommand(update));
    } catch (again) {
      if (isConditionFailed(again)) return { moved: false, current: itemOfConditionFailure<EmailRecord>(again) };
      throw again;
    }
  }
  const email = await getEmail(accountId, id);
  return email ? { moved: true, email } : { moved: false, current: null };
}

/**
 * A guarded transition of one email as a transaction item, for a workflow that moves several records
 * together (a sequence step and its enrollment). `from` null: the email is updated in whatever state it is.
 */
export function emailTransitionWrite(accountId: string, id: string, from: EmailStatus[] | null, set: Partial<EmailRecord> & Record<string, unknown>, remove: string[] = [], due?: Date | null): TransactItem {
  const condition: { expression: string; names: Record<string, string>; values: Record<string, unknown> } = from
    ? { expression: `#s IN (${from.map((_, i) => `:from${i}`).join(', ')})`, names: { '#s': 'status' }, values: Object.fromEntries(from.map((s, i) => [`:from${i}`, s])) }
    : { expression: 'attribute_exists(pk)', names: {}, values: {} };
  const update = emailUpdate(accountId, id, set, remove, due, condition);
  const { ReturnValuesOnConditionCheckFailure: _, ...item } = update;
  return { Update: Object.keys(item.ExpressionAttributeValues).length ? item : { ...item, ExpressionAttributeValues: undefined } };
}

/** Several emails of one account by id, in any order (missing ones are left out). */
export async function getEmails(accountId: string, ids: string[]): Promise<EmailRecord[]> {
  return batchGetEmails(accountId, ids);
}

/** The status of each of several emails (missing ones left out): a projection, so no body is read into memory. */
export async function emailStatuses(accountId: string, ids: string[]): Promise<EmailStatus[]> {
  return (await batchGetEmails<Pick<EmailRecord, 'status'>>(accountId, ids, { ProjectionExpression: '#s', ExpressionAttributeNames: { '#s': 'status' } })).map((e) => e.status);
}

async function batchGetEmails<T = EmailRecord>(accountId: string, ids: string[], projection: { ProjectionExpression?: string; ExpressionAttributeNames?: Record<string, string> } = {}): Promise<T[]> {
  return batchGetAll<T>(tableName('outreach'), ids.map((id) => K.email(accountId, id)), projection);
}

/** As `transitionOrCurrent`, for callers that only need to know whether they moved it: the updated email, or null. */
export async function transition(accountId: string, id: string, from: EmailStatus[], set: Partial<EmailRecord> & Record<string, unknown>, remove: string[] = [], opts: TransitionOptions = {}): Promise<EmailRecord | null> {
  const r = await transitionOrCurrent(accountId, id, from, set, remove, opts);
  return r.moved ? r.email : null;
}

/**
 * A transition out of `sending` made only by the attempt that holds the claim (`send_attempt`): a lost
 * claim writes nothing. Returns the updated email, or null when the claim is no longer this attempt's.
 */
export async function transitionClaimed(accountId: string, id: string, claim: { ':attempt': string }, set: Partial<EmailRecord> & Record<string, unknown>, writes: TransactItem[] = []): Promise<EmailRecord | null> {
  const update = emailUpdate(accountId, id, set, [], undefined, {
    expression: '#s = :sending AND send_attempt = :attempt',
    names: { '#s': 'status' },
    values: { ':sending': 'sending', ...claim },
  });
  try {
    if (writes.length) {
      await documentClient().send(new TransactWriteCommand({ TransactItems: [{ Update: update }, ...writes] }));
      return await getEmail(accountId, id);
    }
    const out = await documentClient().send(new UpdateCommand({ ...update, ReturnValues: 'ALL_NEW' }));
    return out.Attributes as EmailRecord;
  } catch (e) {
    if (isConditionFailed(e) || (isTransactionCanceled(e) && cancellationReasons(e)[0]?.Code === 'ConditionalCheckFailed')) return null;
    throw e;
  }
}

/** The lifecycle fields of an email not yet drafted, the same whether one email or a sequence step creates it. */
export function undraftedEmailFields(iso: string): Pick<
  EmailRecord,
  | 'status' | 'subject' | 'body_plain' | 'body_html' | 'created_at' | 'updated_at' | 'drafted_at' | 'scheduled_for' | 'sent_at'
  | 'opened_at' | 'replied_at' | 'open_count' | 'review_expires_at' | 'error' | 'message_id' | 'track_token'
> {
  return {
    status: 'drafting',
    subject: '',
    body_plain: '',
    body_html: '',
    created_at: iso,
    updated_at: iso,
    drafted_at: null,
    scheduled_for: null,
    sent_at: null,
    opened_at: null,
    replied_at: null,
    open_count: 0,
    review_expires_at: null,
    error: null,
    message_id: null,
    track_token: randomBytes(24).toString('base64url'),
  };
}

/**
 * The writes that record a new email and its tracking pointer, to ride in the caller's transaction (the
 * credit reservation).
 */
export function newEmailWrites(email: EmailRecord, dueAt: Date): TransactItem[] {
  const table = tableName('outreach');
  return [
    {
      Put: {
        TableName: table,
        Item: {
          ...K.email(email.account_id, email.id),
          ...email,
          ...dueFields(K.email(email.account_id, email.id), dueAt),
          ...(email.api_created ? K.emailListEntry(email.account_id, email.created_at, email.id) : {}),
          ...(email.status === 'queued' && email.awaiting_capacity ? awaitingCapacityEntry(email) : {}),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
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

export interface EmailListFilter {
  status?: EmailStatus;
  /** ISO instant: only emails created at or after it. */
  since?: string;
}

const emailListRange = (accountId: string, f: EmailListFilter): ListIndexRange => ({ table: tableName('outreach'), pk: K.emailListPk(accountId), from: f.since, status: f.status });

/**
 * One page of an account's API-created emails, newest first, after the list key `after`: the list index
 * names the page (`want` keys, and whether more follow), then the emails themselves are read by key,
 * consistently and without their bodies. An email whose status changed since the index was written (it
 * follows the table within a second) is left out of a status-filtered page rather than shown as it is not.
 */
export async function emailListPage(accountId: string, f: EmailListFilter, after: string | undefined, want: number): Promise<{ emails: EmailListRecord[]; walked: number; last: string | undefined; more: boolean }> {
  const { keys, more } = await walkListIndex(emailListRange(accountId, f), after, want, (sk) => K.email(accountId, K.idOfListSk(sk)));
  const names = Object.fromEntries(EMAIL_LIST_FIELDS.map((field, i) => [`#f${i}`, field]));
  const found = await batchGetEmails<EmailListRecord>(accountId, keys.map(K.idOfListSk), { ProjectionExpression: Object.keys(names).join(', '), ExpressionAttributeNames: names });
  const byId = new Map(found.map((e) => [e.id, e]));
  const emails = keys.flatMap((sk) => {
    const e = byId.get(K.idOfListSk(sk));
    return e && (!f.status || e.status === f.status) ? [e] : [];
  });
  return { emails, walked: keys.length, last: keys.at(-1), more };
}

/**
 * Where page `page` starts when it is asked for by number: the list key of the last email before it, walked
 * over the index entries (undefined for the first page, null past the end). A `cursor` saves the walk.
 */
export async function emailListPosition(accountId: string, f: EmailListFilter, page: number, pageSize: number): Promise<string | undefined | null> {
  if (page <= 1) return undefined;
  const skip = (page - 1) * pageSize;
  const { keys } = await walkListIndex(emailListRange(accountId, f), undefined, skip, (sk) => K.email(accountId, K.idOfListSk(sk)));
  return keys.length === skip ? keys.at(-1) : null;
}

/** How many API-created emails the filter matches: a count of list-index entries, no email read, exact up to LIST_COUNT_CAP entries. */
export async function countEmailList(accountId: string, f: EmailListFilter): Promise<ListCount> {
  return countListIndexUpTo(emailListRange(accountId, f));
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
export async function findByTrackToken(token: string): Promise<(EmailRef & { recipient: string; ea_id?: string }) | null> {
  const p = await getPointer(K.trackPointer(token));
  return p ? { account_id: p.account_id as string, email_id: p.email_id as string, recipient: p.recipient as string, ...(p.ea_id ? { ea_id: p.ea_id as string } : {}) } : null;
}

/** The email a Message-ID (ours, or the provider's) was sent as. */
export async function findByMessageId(messageId: string): Promise<EmailRef | null> {
  const p = await getPointer(K.messageIdPointer(messageId));
  return p ? { account_id: p.account_id as string, email_id: p.email_id as string } : null;
}

/**
 * The pointers a sent email needs, to ride in the transaction that records it `sent`: its Message-IDs (ours
 * and the provider's) for reply matching, and its tracking pointer (open pixel, unsubscribe) kept for its
 * retention from the send. Written with the transition, so no crash leaves a sent email whose replies
 * cannot be matched.
 */
export function sentPointerWrites(email: EmailRecord, messageIds: string[], sentAt: Date): TransactItem[] {
  const table = tableName('outreach');
  const ref: EmailRef = { account_id: email.account_id, email_id: email.id };
  const expires_at = expiresAt('tracking_pointer', sentAt);
  return [
    // One Put per distinct pointer key: a transaction may not name an item twice.
    ...[...new Map(messageIds.map((m) => [JSON.stringify(K.messageIdPointer(m)), m])).values()].map((m) => ({ Put: { TableName: table, Item: { ...K.messageIdPointer(m), ...ref, expires_at } } })),
    { Put: { TableName: table, Item: { ...K.trackPointer(email.track_token), ...ref, recipient: email.to.email.toLowerCase(), ea_id: email.from_account, expires_at } } },
    // The latest send from this mailbox to the lead: a bounce that returns no Message-ID of ours is matched by its failed recipient.
    ...(email.from_email
      ? [{ Put: { TableName: table, Item: { ...K.sentTo(email.from_email, email.to.email), ...ref, sent_at: sentAt.toISOString(), expires_at: expiresAt('sent_to_pointer', sentAt) } } }]
      : []),
  ];
}

/** The latest email `mailbox` sent to `recipient`, with when it was sent; null when it never did (or the pointer expired). */
export async function findLatestSendTo(mailbox: string, recipient: string): Promise<(EmailRef & { sent_at: string }) | null> {
  const p = await getPointer(K.sentTo(mailbox, recipient));
  return p ? { account_id: p.account_id as string, email_id: p.email_id as string, sent_at: p.sent_at as string } : null;
}

/** An open of a sent email: the first open's time is kept, every open counted. Not sent (yet): nothing. */
/** True when the open was recorded (the email was sent); false for a pixel of an email that was not. */
export async function recordOpen(ref: EmailRef, now: string): Promise<boolean> {
  return documentClient()
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
    .then(() => true)
    .catch((e: unknown) => {
      if (!isConditionFailed(e)) throw e;
      return false;
    });
}

/** A received message matched to one of the account's emails (docs/decisions.md#sequences). */
export interface ReplyRecord {
  email_id: string;
  from_email: string;
  from_name: string;
  subject: string;
  body_plain: string;
  classification: 'reply' | 'bounce' | 'auto_reply';
  received_at: string;
  sequence_id?: string;
  /** What the reading found beyond the public classification (a complaint is listed as an auto-reply). */
  kind?: 'reply' | 'bounce' | 'auto_reply' | 'complaint';
  /** A bounce: the failed recipient named by the report, and whether the failure is permanent. */
  bounce?: { recipient: string; status: string | null; hard: boolean; reason: string };
  /** The body was cut to the stored size (UTF-8 bytes). */
  body_truncated?: boolean;
}

/**
 * A reply to a sequence's step also carries its entry in the list index (SEQREPLIES#<account>#<sq_id> /
 * <received_at>#<reply id>), so GET /sequences/{id}/replies/ reads only that sequence's replies, a page at a time.
 */
export async function recordReply(accountId: string, replyId: string, reply: ReplyRecord): Promise<void> {
  const entry = reply.sequence_id ? sequenceReplyListEntry(accountId, reply.sequence_id, reply.received_at, replyId) : {};
  await documentClient().send(new PutCommand({ TableName: tableName('outreach'), Item: { ...K.reply(accountId, replyId), ...reply, ...entry, expires_at: expiresAt('reply', new Date(reply.received_at)) } }));
}

/**
 * Claims one CC/BCC copy of a sent email for this attempt (`due` → `sending`, with the attempt and until when
 * it counts as live). False when it is not `due` (another attempt has it, or it is done).
 */
export async function claimCopy(accountId: string, id: string, key: string, attempt: string, leaseUntilMs: number): Promise<boolean> {
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: tableName('outreach'),
        Key: K.email(accountId, id),
        UpdateExpression: 'SET #c.#k = :sending, copy_attempt = :a, copy_lease_until_ms = :l',
        ConditionExpression: '#c.#k = :due',
        ExpressionAttributeNames: { '#c': 'copies', '#k': key },
        ExpressionAttributeValues: { ':sending': 'sending', ':due': 'due', ':a': attempt, ':l': leaseUntilMs },
      }),
    );
    return true;
  } catch (e) {
    if (isConditionFailed(e)) return false;
    throw e;
  }
}

/** Ends a claimed copy (`sent`, `failed`, or `interrupted` for a dead attempt's), only while `attempt` holds it. */
export async function settleCopy(accountId: string, id: string, key: string, attempt: string, state: 'sent' | 'failed' | 'interrupted'): Promise<boolean> {
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: tableName('outreach'),
        Key: K.email(accountId, id),
        UpdateExpression: 'SET #c.#k = :state',
        ConditionExpression: '#c.#k = :sending AND copy_attempt = :a',
        ExpressionAttributeNames: { '#c': 'copies', '#k': key },
        ExpressionAttributeValues: { ':state': state, ':sending': 'sending', ':a': attempt },
      }),
    );
    return true;
  } catch (e) {
    if (isConditionFailed(e)) return false;
    throw e;
  }
}

/**
 * The list-index entry of a reply matched to a sequence's step (catalog/tables.ts LIST_INDEX): one key range per
 * sequence, oldest first by `<received_at>#<reply id>`. (Key builders belong in outreach.keys.ts; kept here
 * until it moves there.)
 */
export const sequenceRepliesListPk = (accountId: string, sequenceId: string) => `SEQREPLIES#${accountId}#${sequenceId}`;
export function sequenceReplyListEntry(accountId: string, sequenceId: string, receivedAt: string, replyId: string): { list_pk: string; list_sk: string } {
  return { list_pk: sequenceRepliesListPk(accountId, sequenceId), list_sk: `${receivedAt}#${replyId}` };
}
/** The reply id a sequence-reply list key ends with. */
export const replyIdOfListSk = (listSk: string) => listSk.slice(listSk.lastIndexOf('#') + 1);
/** The table key of a reply. */
export const replyKey = (accountId: string, replyId: string) => K.reply(accountId, replyId);

/** What waking an email that waits for capacity needs of it (scheduleSend's reads): never its bodies. */
export type AwaitingCapacityEmail = Pick<EmailRecord, 'id' | 'account_id' | 'status' | 'from_account' | 'created_at' | 'awaiting_capacity' | 'recipient_timezone' | 'sequence_id' | 'step'>;
const AWAITING_CAPACITY_FIELDS = ['id', 'account_id', 'status', 'from_account', 'created_at', 'awaiting_capacity', 'recipient_timezone', 'sequence_id', 'step'] as const;
/** Index entries one Query page asks for at most, so a walk never holds more than this many (small, projected) records at once. */
const AWAITING_CAPACITY_PAGE = 100;

/**
 * The account's `queued` emails from sending account `eaId` that wait for capacity (`awaiting_capacity`), in
 * creation order, a page at a time: a Query of their key range of the await index (keys only, ~100 bytes an
 * entry, no other email of the account in it), then those emails read by key, consistently and projected to
 * the fields above, so neither the answer nor the caller ever holds a body. An entry the index still shows
 * for an email that has meanwhile left the state (the index follows the table within a second) is dropped by
 * that consistent read.
 */
export async function* emailsAwaitingCapacity(accountId: string, eaId: string): AsyncGenerator<AwaitingCapacityEmail[]> {
  const names = Object.fromEntries(AWAITING_CAPACITY_FIELDS.map((f, i) => [`#f${i}`, f]));
  let start: Record<string, unknown> | undefined;
  do {
    const out = await documentClient().send(
      new QueryCommand({
        TableName: tableName('outreach'),
        IndexName: AWAIT_INDEX.name,
        KeyConditionExpression: '#p = :p',
        ExpressionAttributeNames: { '#p': AWAIT_INDEX.pk },
        ExpressionAttributeValues: { ':p': K.awaitPk(accountId, eaId) },
        ScanIndexForward: true,
        Limit: AWAITING_CAPACITY_PAGE,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    const keys = (out.Items ?? []).map((i) => ({ pk: i.pk as string, sk: i.sk as string }));
    if (keys.length) {
      const found = await batchGetAll<AwaitingCapacityEmail>(tableName('outreach'), keys, { ProjectionExpression: Object.keys(names).join(', '), ExpressionAttributeNames: names });
      const byId = new Map(found.map((e) => [e.id, e]));
      const page = keys.flatMap((k) => {
        const e = byId.get(K.emailOf(k)?.emailId ?? '');
        return e && e.status === 'queued' && e.awaiting_capacity && e.from_account === eaId ? [e] : [];
      });
      if (page.length) yield page;
    }
    start = out.LastEvaluatedKey;
  } while (start);
}

/**
 * The await index's entries (catalog/tables.ts, outreach `await`) for emails that were parked awaiting capacity
 * before the index existed: each gets the `await_pk`/`await_sk` a parking write sets now. Run by the twin at
 * start and, in AWS, once after the deploy that adds the index (`npx tsx bin/backfill-await-index.ts`).
 * Idempotent, and guarded on the email still waiting: one scheduled or cancelled meanwhile is left alone.
 */
export async function backfillAwaitEntries(): Promise<number> {
  const table = tableName('outreach');
  const missing = await scanAll<Pick<EmailRecord, 'id' | 'account_id' | 'from_account' | 'created_at'> & { pk: string; sk: string }>({
    TableName: table,
    FilterExpression: 'begins_with(sk, :e) AND #s = :queued AND attribute_exists(awaiting_capacity) AND attribute_not_exists(await_pk)',
    ExpressionAttributeNames: { '#s': 'status' },
    ExpressionAttributeValues: { ':e': K.emailPrefix, ':queued': 'queued' },
    ProjectionExpression: 'pk, sk, id, account_id, from_account, created_at',
  });
  let added = 0;
  for (const item of missing) {
    const entry = awaitingCapacityEntry(item);
    try {
      await documentClient().send(
        new UpdateCommand({
          TableName: table,
          Key: { pk: item.pk, sk: item.sk },
          UpdateExpression: 'SET await_pk = :p, await_sk = :s',
          ConditionExpression: '#s = :queued AND attribute_exists(awaiting_capacity) AND attribute_not_exists(await_pk)',
          ExpressionAttributeNames: { '#s': 'status' },
          ExpressionAttributeValues: { ':p': entry.await_pk, ':s': entry.await_sk, ':queued': 'queued' },
        }),
      );
      added++;
    } catch (e) {
      if (!isConditionFailed(e)) throw e;
    }
  }
  return added;
}
