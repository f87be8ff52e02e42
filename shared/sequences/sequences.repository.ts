import { createHash } from 'node:crypto';
import { BatchWriteCommand, GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetAll, documentClient, queryAll, scanAll } from '../adapters/aws.js';
import { countListIndexUpTo, walkListIndex, type ListCount, type ListIndexRange } from '../adapters/list-index.js';
import { tableName } from '../catalog/resource-names.js';
import { outreachKeys as K } from '../outreach/outreach.keys.js';
import { setClauses } from '../adapters/update-expression.js';
import { cancellationReasons, isConditionFailed, isTransactionCanceled } from '../adapters/dynamodb-errors.js';
import { DUE_ATTRIBUTES, LIST_INDEX, dueFields, expiresAt } from '../catalog/tables.js';
import type { TransactItem } from '../accounts/ledger.repository.js';
import { replyIdOfListSk, replyKey, sequenceReplyListEntry, sequenceRepliesListPk, type ReplyRecord } from '../outreach/emails.repository.js';
import type { Lead } from '../outreach/leads.repository.js';
import { TERMINAL_ENROLLMENT, TERMINAL_SEQUENCE, type DraftingPass, type EnrollmentRecord, type EnrollmentStatus, type PendingEnrollment, type SequenceRecord, type SequenceStatus } from './model.js';
import { inBatches } from '../core/batches.js';

/**
 * Sequences and enrollments in the outreach table. Every state change is a guarded update whose condition
 * is the state machine's guard; the writes a workflow must make together come out as transaction items.
 */
const table = () => tableName('outreach');

/** The sequence an item key of the outreach table names (the due index hands out keys), or null. */
export const sequenceOfKey = K.sequenceOf;

export async function getSequence(accountId: string, id: string): Promise<SequenceRecord | null> {
  const out = await documentClient().send(new GetCommand({ TableName: table(), Key: K.sequence(accountId, id), ConsistentRead: true }));
  return (out.Item as SequenceRecord | undefined) ?? null;
}

/** The sequence without its pending enrollments (what every step's draft reads: kept small). */
export async function getSequenceHead(accountId: string, id: string): Promise<SequenceRecord | null> {
  const out = await documentClient().send(
    new GetCommand({
      TableName: table(),
      Key: K.sequence(accountId, id),
      ConsistentRead: true,
      ProjectionExpression: 'id, account_id, #n, #s, created_at, updated_at, instructions, steps, reply_to, cc, bcc, contacts, total_emails, drafted, pass, pass_drafted, pass_failed, pending_count',
      ExpressionAttributeNames: { '#n': 'name', '#s': 'status' },
    }),
  );
  return (out.Item as SequenceRecord | undefined) ?? null;
}

/** The write that records a new sequence with its first pass, due when its enrollments should be written. */
export function newSequenceWrite(s: SequenceRecord, dueAt: Date): TransactItem {
  const key = K.sequence(s.account_id, s.id);
  return { Put: { TableName: table(), Item: { ...key, ...s, ...dueFields(key, dueAt), ...K.sequenceListEntry(s.account_id, s.created_at, s.id) }, ConditionExpression: 'attribute_not_exists(pk)' } };
}

/** Guarded update of a sequence as an update input: `condition` over `#s` (status) and the caller's values. */
function sequenceUpdate(accountId: string, id: string, set: Record<string, unknown>, remove: string[], condition: string, values: Record<string, unknown>, extra = '') {
  const { clauses, names, values: v } = setClauses(set);
  const removes = remove.map((r, i) => {
    names[`#r${i}`] = r;
    return `#r${i}`;
  });
  return {
    TableName: table(),
    Key: K.sequence(accountId, id),
    UpdateExpression: [clauses.length ? `SET ${clauses.join(', ')}` : '', extra, removes.length ? `REMOVE ${removes.join(', ')}` : ''].filter(Boolean).join(' '),
    ConditionExpression: condition,
    ExpressionAttributeNames: { ...names, ...(condition.includes('#s') ? { '#s': 'status' } : {}) },
    ExpressionAttributeValues: { ...v, ...values },
  };
}

/** How long a cancel has to end its enrollments before the sweeper finishes it. */
export const CANCEL_FINISH_MS = 60_000;

/**
 * A terminal status starts the sequence's retention and takes it off the due index, except `cancelled`: it
 * stays due until its enrollments are all ended (finishCancel rests it), so a cancel that dies half-way is
 * finished by the sweeper.
 */
function statusBookkeeping(accountId: string, id: string, status: SequenceStatus, at: string): { set: Record<string, unknown>; remove: string[] } {
  if (!TERMINAL_SEQUENCE.includes(status)) return { set: {}, remove: [] };
  const retention = { expires_at: expiresAt('sequence', new Date(at)) };
  if (status === 'cancelled') return { set: { ...retention, ...dueFields(K.sequence(accountId, id), new Date(Date.parse(at) + CANCEL_FINISH_MS)) }, remove: [] };
  return { set: retention, remove: [...DUE_ATTRIBUTES] };
}

/**
 * The write that opens an add-contacts pass on a settled sequence (status still `seen`, no pass open): the
 * new addresses, the pass, the id its pending enrollments are kept under (putPendingEnrollments, written
 * before), `drafting`, due when its enrollments should be written.
 */
export function startPassWrite(s: SequenceRecord, seen: SequenceStatus, pass: DraftingPass, pending: PendingEnrollment[], now: string, dueAt: Date): TransactItem {
  const key = K.sequence(s.account_id, s.id);
  const update = sequenceUpdate(
    s.account_id,
    s.id,
    { status: 'drafting', updated_at: now, pass, pending_pass_id: pass.id, pending_count: pending.length, pass_drafted: 0, pass_failed: 0, ...dueFields(key, dueAt) },
    ['expires_at', 'pass_pending'],
    '#s = :seen AND attribute_not_exists(pass)',
    { ':seen': seen, ':added': pending.map((p) => p.contact.email.toLowerCase()), ':emails': pending.length * s.steps },
  );
  update.UpdateExpression = update.UpdateExpression.replace('SET ', 'SET contacts = list_append(contacts, :added), total_emails = total_emails + :emails, ');
  return { Update: update };
}

/**
 * The pass's enrollments are written: the pending list goes (its items after the sequence lets go of them); the
 * sequence is due when the pass should have settled.
 */
export async function passMaterialized(accountId: string, id: string, passId: string, dueAt: Date): Promise<void> {
  const key = K.sequence(accountId, id);
  const moved = await documentClient()
    .send(new UpdateCommand(sequenceUpdate(accountId, id, { ...dueFields(key, dueAt), pending_count: 0 }, ['pass_pending', 'pending_pass_id'], 'pass.id = :p', { ':p': passId })))
    .then(() => true)
    .catch((e: unknown) => {
      if (!isConditionFailed(e)) throw e;
      return false;
    });
  if (moved) await deletePendingEnrollments(accountId, id, passId);
}

/**
 * Pending enrollments. A pass's contacts (up to 100, each up to ~6 KB with its context and profile URL) wait for
 * their enrollments in items of their own, ACCOUNT#<id> / SEQPEND#<sq_id>#<pass_id>#<nnn> (nnn: the order given),
 * written before the reservation transaction that records the pass (which already holds up to 64 lock buckets
 * and cannot take 100 more items), so the sequence item holds only the pass id (`pending_pass_id`) and stays far
 * below DynamoDB's 400 KB. Items of a pass whose reservation failed are deleted, and expire in any case; only the
 * addresses the sequence records (`contacts`) are ever read back. (Key builders belong in outreach.keys.ts.)
 */
const pendingPrefix = (sequenceId: string, passId: string) => `SEQPEND#${sequenceId}#${passId}#`;
const pendingKey = (accountId: string, sequenceId: string, passId: string, i: number) => ({ pk: K.accountPk(accountId), sk: `${pendingPrefix(sequenceId, passId)}${String(i).padStart(3, '0')}` });

async function batchWriteAll(requests: Record<string, unknown>[]): Promise<void> {
  for (let i = 0; i < requests.length; i += 25) {
    let pending: Record<string, unknown>[] | undefined = requests.slice(i, i + 25);
    for (let attempt = 0; pending?.length; attempt++) {
      if (attempt > 0) await conflictPause(attempt);
      const out = await documentClient().send(new BatchWriteCommand({ RequestItems: { [table()]: pending as never } }));
      pending = out.UnprocessedItems?.[table()] as Record<string, unknown>[] | undefined;
    }
  }
}

export async function putPendingEnrollments(accountId: string, sequenceId: string, passId: string, pending: PendingEnrollment[], now: Date): Promise<void> {
  const expires_at = expiresAt('sequence', now);
  await batchWriteAll(pending.map((p, i) => ({ PutRequest: { Item: { ...pendingKey(accountId, sequenceId, passId, i), sequence_id: sequenceId, pass_id: passId, pending: p, expires_at } } })));
}

/** The pending enrollments of the sequence's open (or cancelled) pass, in the order given; none once written. */
export async function pendingEnrollmentsOf(s: SequenceRecord): Promise<PendingEnrollment[]> {
  // A pass recorded before pending enrollments had items of their own holds them inline.
  if (Array.isArray(s.pass_pending)) return s.pass_pending;
  if (!s.pending_pass_id) return [];
  const items = await queryAll<{ pending: PendingEnrollment }>({
    TableName: table(),
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
    ExpressionAttributeValues: { ':pk': K.accountPk(s.account_id), ':p': pendingPrefix(s.id, s.pending_pass_id) },
    ConsistentRead: true,
  });
  const recorded = new Set(s.contacts);
  return items.map((i) => i.pending).filter((p) => recorded.has(p.contact.email.toLowerCase()));
}

export async function deletePendingEnrollments(accountId: string, sequenceId: string, passId: string): Promise<void> {
  const keys = await queryAll<{ pk: string; sk: string }>({
    TableName: table(),
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
    ExpressionAttributeValues: { ':pk': K.accountPk(accountId), ':p': pendingPrefix(sequenceId, passId) },
    ProjectionExpression: 'pk, sk',
  });
  await batchWriteAll(keys.map((k) => ({ DeleteRequest: { Key: { pk: k.pk, sk: k.sk } } })));
}

/**
 * The write that counts step drafts of the open pass (`drafted` successes or `failed` ones), to ride in the
 * transaction that ends them. Only while that pass is open: a draft that lands after a cancel is not counted
 * (and so not charged).
 */
export function countDraftsWrite(accountId: string, id: string, passId: string, outcome: 'drafted' | 'failed', n: number): TransactItem {
  const field = outcome === 'drafted' ? 'pass_drafted' : 'pass_failed';
  const also = outcome === 'drafted' ? ', drafted :n' : '';
  return {
    Update: {
      TableName: table(),
      Key: K.sequence(accountId, id),
      UpdateExpression: `ADD ${field} :n${also}`,
      ConditionExpression: 'pass.id = :p AND #s = :drafting',
      ExpressionAttributeNames: { '#s': 'status' },
      ExpressionAttributeValues: { ':n': n, ':p': passId, ':drafting': 'drafting' },
    },
  };
}

/**
 * Close the open pass (counts as seen) and move the sequence to `next`, with the writes that settle the pass's
 * reservation, in one transaction. False when someone else moved it first (or a count changed meanwhile).
 */
export async function closePass(s: SequenceRecord, next: SequenceStatus, now: string, settle: TransactItem[]): Promise<boolean> {
  const b = statusBookkeeping(s.account_id, s.id, next, now);
  const update = sequenceUpdate(
    s.account_id,
    s.id,
    { status: next, updated_at: now, ...b.set },
    // A cancel keeps the pending enrollments: finishCancel puts a cancelled one in place of each never written.
    ['pass', ...(next === 'cancelled' ? [] : ['pass_pending', 'pending_pass_id', ...DUE_ATTRIBUTES]), 'pending_count', 'pass_drafted', 'pass_failed'],
    '#s = :seen AND pass.id = :p AND pass_drafted = :d AND pass_failed = :f',
    { ':seen': s.status, ':p': s.pass!.id, ':d': s.pass_drafted ?? 0, ':f': s.pass_failed ?? 0 },
  );
  try {
    await documentClient().send(new TransactWriteCommand({ TransactItems: [{ Update: update }, ...settle] }));
    return true;
  } catch (e) {
    if (isTransactionCanceled(e)) return false;
    throw e;
  }
}

/** Move a settled sequence from one of `from` to `to`; the sequence as it is now, or null when it did not move. */
export async function transitionSequence(accountId: string, id: string, from: SequenceStatus[], to: SequenceStatus, now: string): Promise<SequenceRecord | null> {
  const b = statusBookkeeping(accountId, id, to, now);
  const values = Object.fromEntries(from.map((f, i) => [`:from${i}`, f]));
  const update = sequenceUpdate(accountId, id, { status: to, updated_at: now, ...b.set }, b.remove, `#s IN (${Object.keys(values).join(', ')})`, values);
  try {
    const out = await documentClient().send(new UpdateCommand({ ...update, ReturnValues: 'ALL_NEW' }));
    return out.Attributes as SequenceRecord;
  } catch (e) {
    if (isConditionFailed(e)) return null;
    throw e;
  }
}

/** Take a sequence off the due index (nothing of it is waiting). */
export async function restSequence(accountId: string, id: string): Promise<void> {
  await documentClient().send(new UpdateCommand({ TableName: table(), Key: K.sequence(accountId, id), UpdateExpression: `REMOVE ${DUE_ATTRIBUTES.join(', ')}`, ConditionExpression: 'attribute_exists(pk)' })).catch((e: unknown) => {
    if (!isConditionFailed(e)) throw e;
  });
}

/** Move the sequence's due time (the sweeper looks again then). */
export async function postponeSequence(accountId: string, id: string, at: Date): Promise<void> {
  const key = K.sequence(accountId, id);
  await documentClient().send(new UpdateCommand(sequenceUpdate(accountId, id, dueFields(key, at), [], 'attribute_exists(pk)', {})));
}

const sequenceListRange = (accountId: string): ListIndexRange => ({ table: table(), pk: K.sequenceListPk(accountId) });
const SEQUENCE_LIST_PROJECTION = { ProjectionExpression: 'id, account_id, #n, #s, created_at, updated_at, instructions, steps, total_emails, drafted', ExpressionAttributeNames: { '#n': 'name', '#s': 'status' } };

/**
 * One page of an account's sequences, newest first, after the list key `after`: the list index names the
 * page, then the sequences are read by key, consistently and without their contacts or pending passes.
 */
export async function sequenceListPage(accountId: string, after: string | undefined, want: number): Promise<{ sequences: SequenceRecord[]; walked: number; last: string | undefined; more: boolean }> {
  const { keys, more } = await walkListIndex(sequenceListRange(accountId), after, want, (sk) => K.sequence(accountId, K.idOfListSk(sk)));
  const found = await batchGetAll<SequenceRecord>(table(), keys.map((sk) => K.sequence(accountId, K.idOfListSk(sk))), SEQUENCE_LIST_PROJECTION);
  const byId = new Map(found.map((x) => [x.id, x]));
  return { sequences: keys.flatMap((sk) => byId.get(K.idOfListSk(sk)) ?? []), walked: keys.length, last: keys.at(-1), more };
}

/** Where page `page` starts when asked for by number (undefined for the first page, null past the end). */
export async function sequenceListPosition(accountId: string, page: number, pageSize: number): Promise<string | undefined | null> {
  if (page <= 1) return undefined;
  const skip = (page - 1) * pageSize;
  const { keys } = await walkListIndex(sequenceListRange(accountId), undefined, skip, (sk) => K.sequence(accountId, K.idOfListSk(sk)));
  return keys.length === skip ? keys.at(-1) : null;
}

/** How many sequences the account has: a count of list-index entries, exact up to LIST_COUNT_CAP. */
export async function countSequenceList(accountId: string): Promise<ListCount> {
  return countListIndexUpTo(sequenceListRange(accountId));
}

export function newEnrollmentWrite(e: EnrollmentRecord): TransactItem {
  return { Put: { TableName: table(), Item: { ...K.enrollment(e.account_id, e.contact.email, e.sequence_id), ...e }, ConditionExpression: 'attribute_not_exists(pk)' } };
}

export async function getEnrollment(accountId: string, email: string, sequenceId: string): Promise<EnrollmentRecord | null> {
  const out = await documentClient().send(new GetCommand({ TableName: table(), Key: K.enrollment(accountId, email, sequenceId), ConsistentRead: true }));
  return (out.Item as EnrollmentRecord | undefined) ?? null;
}

/** Every enrollment of one address in any of the account's sequences. */
export async function enrollmentsOfContact(accountId: string, email: string): Promise<EnrollmentRecord[]> {
  return queryAll<EnrollmentRecord>({
    TableName: table(),
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
    ExpressionAttributeValues: { ':pk': K.accountPk(accountId), ':p': K.enrollmentsOfPrefix(email) },
    ConsistentRead: true,
  });
}

/** What the outreach table knows of one address when contacts are judged for a sequence. */
export interface ContactFacts {
  /** On the workspace's suppression list (unsubscribed, hard bounce). */
  suppressed: boolean;
  lead: Lead | null;
  /**
   * Every enrollment of the address in any of the account's sequences when its enrollment lock is held; none
   * read (empty) when it is free, as then none of them is running (a lock is taken before its enrollment is
   * written and let go only by the write that ends it), which is all the judge asks of them.
   */
  enrollments: EnrollmentRecord[];
}

/** Enrollment queries of contactFacts in flight at once (a 500-contact add never fires 500 at once). */
const FACTS_QUERY_CONCURRENCY = 10;

/**
 * Everything sequence eligibility reads of `addresses`, gathered: the lead and suppression items by key in
 * BatchGetItem requests of 100 keys (50 addresses), the enrollment locks of their buckets (at most 64 items, one
 * BatchGetItem: lockHolders), and the enrollments of a held address only, by one Query of its
 * `ENROLL#<address>#` prefix, 10 at once; every read consistent. Keyed by the lower-cased address. A check of
 * 500 addresses no sequence runs is 11 requests, not 510.
 */
export async function contactFacts(accountId: string, addresses: string[]): Promise<Map<string, ContactFacts>> {
  const lower = [...new Set(addresses.map((a) => a.toLowerCase()))];
  const keys = lower.flatMap((a) => [K.lead(accountId, a), K.suppression(accountId, a)]);
  const [items, enrollments] = await Promise.all([batchGetAll<Record<string, unknown>>(table(), keys), enrollmentsOfHeld(accountId, lower)]);
  const bySk = new Map(items.map((i) => [i.sk as string, i]));
  return new Map(
    lower.map((a) => [
      a,
      { suppressed: bySk.has(K.suppression(accountId, a).sk), lead: (bySk.get(K.lead(accountId, a).sk) as Lead | undefined) ?? null, enrollments: enrollments.get(a) ?? [] },
    ]),
  );
}

/** The enrollments of each of `addresses` whose lock is held (lower-cased); a free address is absent. */
async function enrollmentsOfHeld(accountId: string, addresses: string[]): Promise<Map<string, EnrollmentRecord[]>> {
  const held = await lockHolders(accountId, addresses);
  const heldAddresses = addresses.filter((a) => held.has(a));
  const found = await inBatches(heldAddresses, FACTS_QUERY_CONCURRENCY, (a) => enrollmentsOfContact(accountId, a));
  return new Map(heldAddresses.map((a, n) => [a, found[n]!]));
}

/** The sequence's enrollments, in enrollment order. */
export async function enrollmentsOf(s: SequenceRecord): Promise<EnrollmentRecord[]> {
  const found = await enrollmentsAt(s, s.contacts);
  return s.contacts.map((c) => found.get(c)).filter((e): e is EnrollmentRecord => e !== undefined);
}

/**
 * The enrollments of `addresses` (lower-cased, of `s.contacts`) by key, and nothing else of the sequence:
 * what one page of GET /sequences/{id}/ reads. An address whose enrollment is not written yet is absent.
 */
export async function enrollmentsAt(s: SequenceRecord, addresses: string[]): Promise<Map<string, EnrollmentRecord>> {
  return new Map((await batchGetEnrollments(s, addresses)).map((e) => [e.contact.email.toLowerCase(), e]));
}

/** Every enrollment's status and step ids, read with a projection (no contact, nothing else). */
export async function enrollmentStepsOf(s: SequenceRecord): Promise<Pick<EnrollmentRecord, 'status' | 'email_ids'>[]> {
  return batchGetEnrollments(s, s.contacts, { ProjectionExpression: '#s, email_ids', ExpressionAttributeNames: { '#s': 'status' } });
}

async function batchGetEnrollments(s: SequenceRecord, addresses: string[], projection: { ProjectionExpression?: string; ExpressionAttributeNames?: Record<string, string> } = {}): Promise<EnrollmentRecord[]> {
  return batchGetAll<EnrollmentRecord>(table(), addresses.map((c) => K.enrollment(s.account_id, c, s.id)), projection);
}

function enrollmentUpdate(accountId: string, email: string, sequenceId: string, from: EnrollmentStatus[] | null, set: Partial<EnrollmentRecord>) {
  const { clauses, names, values } = setClauses(set);
  names['#s'] = 'status';
  const fromValues = Object.fromEntries((from ?? []).map((f, i) => [`:from${i}`, f]));
  return {
    TableName: table(),
    Key: K.enrollment(accountId, email, sequenceId),
    UpdateExpression: `SET ${clauses.join(', ')}`,
    ConditionExpression: from ? `#s IN (${Object.keys(fromValues).join(', ')})` : 'attribute_exists(pk)',
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: { ...values, ...fromValues },
  };
}

/** An enrollment's move as a transaction item (`from` null: whatever its state). */
export function enrollmentTransitionWrite(accountId: string, email: string, sequenceId: string, from: EnrollmentStatus[] | null, set: Partial<EnrollmentRecord>): TransactItem {
  return { Update: enrollmentUpdate(accountId, email, sequenceId, from, set) };
}

/**
 * Move an enrollment from one of `from`; the updated enrollment, or null when it was not in one of them. A
 * move to a terminal status lets go of the address's enrollment lock in the same transaction (retried when it
 * collides with another write to the same lock bucket).
 */
export async function transitionEnrollment(accountId: string, email: string, sequenceId: string, from: EnrollmentStatus[], set: Partial<EnrollmentRecord>): Promise<EnrollmentRecord | null> {
  if (!set.status || !TERMINAL_ENROLLMENT.includes(set.status)) {
    try {
      const out = await documentClient().send(new UpdateCommand({ ...enrollmentUpdate(accountId, email, sequenceId, from, set), ReturnValues: 'ALL_NEW' }));
      return out.Attributes as EnrollmentRecord;
    } catch (e) {
      if (isConditionFailed(e)) return null;
      throw e;
    }
  }
  for (let attempt = 0; ; attempt++) {
    try {
      await writeTogether(enrollmentEndWrites(accountId, email, sequenceId, from, set));
      return getEnrollment(accountId, email, sequenceId);
    } catch (e) {
      if (cancellationReasons(e)[0]?.Code === 'ConditionalCheckFailed') return null;
      if (!isTransactionCanceled(e) || attempt >= CONFLICT_ATTEMPTS) throw e;
      await conflictPause(attempt);
    }
  }
}

const CONFLICT_ATTEMPTS = 10;
/** A jittered wait before a transaction that lost to a concurrent one on the same item is tried again. */
const conflictPause = (attempt: number) => new Promise((r) => setTimeout(r, Math.random() * Math.min(500, 10 * 2 ** attempt)));

/**
 * Enrollment locks. An address is in at most one running enrollment per account: the transaction that
 * records an enrollment (the pass's reservation) takes its address's lock, the write that ends the
 * enrollment lets go of it. A lock is an attribute named by the address, holding the sequence id, on one of
 * 64 bucket items per account (by address hash): a pass of 100 contacts then takes its locks in at most 64
 * items, which keeps its reservation within DynamoDB's 100 items per transaction.
 */
const LOCK_BUCKETS = 64;
const lockBucket = (address: string) => createHash('sha256').update(address.toLowerCase()).digest()[0]! % LOCK_BUCKETS;

/**
 * The writes that take the lock of every address for `sequenceId`, one per bucket: each fails (as a lost
 * condition) when another sequence holds one of its addresses.
 */
export function takeLocksWrites(accountId: string, sequenceId: string, addresses: string[]): TransactItem[] {
  const buckets = new Map<number, string[]>();
  for (const a of addresses.map((x) => x.toLowerCase())) buckets.set(lockBucket(a), [...(buckets.get(lockBucket(a)) ?? []), a]);
  return [...buckets].map(([bucket, inBucket]) => {
    const names = Object.fromEntries(inBucket.map((a, i) => [`#a${i}`, a]));
    const placeholders = Object.keys(names);
    return {
      Update: {
        TableName: table(),
        Key: K.automationLocks(accountId, bucket),
        UpdateExpression: `SET ${placeholders.map((p) => `${p} = :sq`).join(', ')}`,
        ConditionExpression: placeholders.map((p) => `(attribute_not_exists(${p}) OR ${p} = :sq)`).join(' AND '),
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: { ':sq': sequenceId },
      },
    };
  });
}

/** The write that lets go of an address's lock, riding with the move that ends its enrollment. */
function releaseLockWrite(accountId: string, address: string): TransactItem {
  return { Update: { TableName: table(), Key: K.automationLocks(accountId, lockBucket(address)), UpdateExpression: 'REMOVE #a', ExpressionAttributeNames: { '#a': address.toLowerCase() } } };
}

/** An enrollment's move to a terminal status and the release of its address's lock, as transaction items. */
export function enrollmentEndWrites(accountId: string, email: string, sequenceId: string, from: EnrollmentStatus[] | null, set: Partial<EnrollmentRecord>): TransactItem[] {
  return [enrollmentTransitionWrite(accountId, email, sequenceId, from, set), releaseLockWrite(accountId, email)];
}

/**
 * In place of an enrollment of a cancelled pass that was never written: a `cancelled` one without steps, and
 * its address's lock let go, together. False when the enrollment exists (written meanwhile): end that one.
 */
export async function putCancelledEnrollment(e: EnrollmentRecord): Promise<boolean> {
  try {
    await writeTogether([newEnrollmentWrite(e), releaseLockWrite(e.account_id, e.contact.email)]);
    return true;
  } catch (err) {
    if (cancellationReasons(err)[0]?.Code === 'ConditionalCheckFailed') return false;
    throw err;
  }
}

/**
 * Which sequence holds each of `addresses` (lower-cased) that is held: their buckets' lock items, read
 * consistently by key together (at most 64 keys: one BatchGetItem).
 */
export async function lockHolders(accountId: string, addresses: string[]): Promise<Map<string, string>> {
  const lower = addresses.map((a) => a.toLowerCase());
  const held = new Map<string, string>();
  if (lower.length === 0) return held;
  const buckets = [...new Set(lower.map(lockBucket))];
  const items = await batchGetAll<Record<string, unknown>>(table(), buckets.map((b) => K.automationLocks(accountId, b)));
  const bySk = new Map(items.map((i) => [i.sk as string, i]));
  for (const a of lower) {
    const holder = bySk.get(K.automationLocks(accountId, lockBucket(a)).sk)?.[a];
    if (typeof holder === 'string') held.set(a, holder);
  }
  return held;
}

/** The fields of a reply GET /sequences/{id}/replies/ shows: the only ones a page reads. */
const REPLY_VIEW_PROJECTION = 'email_id, from_email, from_name, subject, body_plain, classification, received_at, list_sk';
export type ReplyView = Pick<ReplyRecord, 'email_id' | 'from_email' | 'from_name' | 'subject' | 'body_plain' | 'classification' | 'received_at'> & { list_sk: string };

/**
 * Up to `want` list keys of the sequence's replies after `after` (oldest first), and whether more follow: a
 * Query of the sequence's own key range of the list index (entries of ~150 bytes), never the account's replies.
 */
export async function sequenceReplyKeys(accountId: string, sequenceId: string, after: string | undefined, want: number): Promise<{ keys: string[]; more: boolean }> {
  const pk = sequenceRepliesListPk(accountId, sequenceId);
  const keys: string[] = [];
  let start: Record<string, unknown> | undefined = after ? { [LIST_INDEX.pk]: pk, [LIST_INDEX.sk]: after, ...replyKey(accountId, replyIdOfListSk(after)) } : undefined;
  do {
    const out = await documentClient().send(
      new QueryCommand({
        TableName: table(),
        IndexName: LIST_INDEX.name,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': LIST_INDEX.pk, '#sk': LIST_INDEX.sk },
        ExpressionAttributeValues: { ':pk': pk },
        ProjectionExpression: '#sk',
        ScanIndexForward: true,
        Limit: want + 1 - keys.length,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    for (const item of out.Items ?? []) keys.push(item[LIST_INDEX.sk] as string);
    start = out.LastEvaluatedKey;
  } while (start && keys.length <= want);
  return { keys: keys.slice(0, want), more: keys.length > want };
}

/** The replies at these list keys, by key and with only their public fields, in the keys' order (missing ones absent). */
export async function repliesAt(accountId: string, listSks: string[]): Promise<ReplyView[]> {
  const found = await batchGetAll<ReplyView>(table(), listSks.map((sk) => replyKey(accountId, replyIdOfListSk(sk))), { ProjectionExpression: REPLY_VIEW_PROJECTION });
  const bySk = new Map(found.map((r) => [r.list_sk, r]));
  return listSks.flatMap((sk) => bySk.get(sk) ?? []);
}

/**
 * Replies to sequence steps recorded before they carried their list entry get it: one scan of the table's
 * reply items without one (run once after the deploy that adds the entries, like backfillListEntries; running
 * it again is harmless). Returns how many entries it wrote.
 */
export async function backfillSequenceReplyEntries(): Promise<number> {
  const missing = await scanAll<{ pk: string; sk: string; sequence_id: string; received_at: string }>({
    TableName: table(),
    FilterExpression: 'begins_with(sk, :r) AND attribute_exists(sequence_id) AND attribute_not_exists(list_pk)',
    ExpressionAttributeValues: { ':r': K.replyPrefix },
    ProjectionExpression: 'pk, sk, sequence_id, received_at',
  });
  let written = 0;
  for (const r of missing) {
    const accountId = r.pk.slice('ACCOUNT#'.length);
    const entry = sequenceReplyListEntry(accountId, r.sequence_id, r.received_at, r.sk.slice(K.replyPrefix.length));
    await documentClient()
      .send(
        new UpdateCommand({
          TableName: table(),
          Key: { pk: r.pk, sk: r.sk },
          UpdateExpression: 'SET list_pk = :p, list_sk = :s',
          ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(list_pk)',
          ExpressionAttributeValues: { ':p': entry.list_pk, ':s': entry.list_sk },
        }),
      )
      .then(() => written++)
      .catch((e: unknown) => {
        if (!isConditionFailed(e)) throw e;
      });
  }
  return written;
}

/** Writes that must land together (one DynamoDB transaction); a lost condition surfaces as TransactionCanceledException. */
export async function writeTogether(writes: TransactItem[]): Promise<void> {
  await documentClient().send(new TransactWriteCommand({ TransactItems: writes }));
}
