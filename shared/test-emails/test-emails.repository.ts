import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient, queryAll } from '../adapters/aws.js';
import { tableName } from '../catalog/resource-names.js';
import { outreachKeys as K } from '../outreach/outreach.keys.js';
import { setClauses } from '../adapters/update-expression.js';
import { cancellationReasons, isConditionFailed, isTransactionCanceled } from '../adapters/dynamodb-errors.js';
import { DUE_ATTRIBUTES, dueFields, expiresAt } from '../catalog/tables.js';
import { QUOTAS, type TestEmailRecord, type TestEmailStatus } from './model.js';

/**
 * Test emails in the outreach table under their own key prefixes (outreach.keys.ts), apart from outreach
 * emails, leads and counters: the record, its account-wide Idempotency-Key, its attachment bytes in chunks,
 * and the account's quota slots. Every state change is a guarded update whose condition is the state
 * machine's guard.
 *
 * Attachment bytes are stored beside the record in DynamoDB, not in the queue message (SQS caps a message at
 * 256 KiB) nor in the record (an item caps at 400 KB, while five files may hold 1 MiB): each file is cut into
 * chunks well under the item limit and written in the record's own transaction, so a record never exists
 * without its bytes. The local twin has no S3, and this keeps the write atomic in AWS too.
 */
const CHUNK_BYTES = 350_000;

export const testEmailOfKey = K.testEmailOf;

export async function getTestEmail(accountId: string, id: string): Promise<TestEmailRecord | null> {
  const out = await documentClient().send(new GetCommand({ TableName: tableName('outreach'), Key: K.testEmail(accountId, id), ConsistentRead: true }));
  return (out.Item as TestEmailRecord | undefined) ?? null;
}

export interface TestEmailKeyRecord {
  test_email_id: string;
  body_hash: string;
}

export async function getTestEmailKey(accountId: string, idempotencyKey: string): Promise<TestEmailKeyRecord | null> {
  const out = await documentClient().send(new GetCommand({ TableName: tableName('outreach'), Key: K.testEmailKey(accountId, idempotencyKey), ConsistentRead: true }));
  return (out.Item as TestEmailKeyRecord | undefined) ?? null;
}

export type QuotaWindow = (typeof QUOTAS)[number]['window'];

/**
 * The quota slots free at `nowMs`, per window: a rolling window of `limit` sends is `limit` slot items, each
 * holding the instant it frees up again (its use + the window). A slot is only a candidate here; taking it is
 * a conditional write in the record's transaction, so concurrent requests can never take more than `limit`.
 */
export async function freeQuotaSlots(accountId: string, nowMs: number): Promise<Record<QuotaWindow, number[]>> {
  const items = await queryAll<{ sk: string; until_ms: number }>({
    TableName: tableName('outreach'),
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': K.accountPk(accountId), ':prefix': K.testQuotaPrefix },
    ConsistentRead: true,
  });
  const busy = new Set(items.filter((i) => i.until_ms > nowMs).map((i) => i.sk));
  const free = {} as Record<QuotaWindow, number[]>;
  for (const q of QUOTAS) free[q.window] = [...Array(q.limit).keys()].filter((n) => !busy.has(K.testQuotaSlot(accountId, q.window, n).sk));
  return free;
}

export type InsertOutcome = 'created' | 'key_taken' | 'retry';

/**
 * One transaction: the record (due for its dispatch at `dueAt`), its Idempotency-Key, its attachment chunks
 * and one slot of each quota window. A concurrent request that took the key first answers `key_taken`; one
 * that took a slot first, or a transaction that collided with another on any item, answers `retry`.
 */
export async function insertTestEmail(
  record: TestEmailRecord,
  attachments: Buffer[],
  slots: Record<QuotaWindow, number>,
  nowMs: number,
  dueAt: Date,
): Promise<InsertOutcome> {
  const table = tableName('outreach');
  const key = K.testEmail(record.account_id, record.id);
  const expires_at = expiresAt('test_email', new Date(record.created_at));
  const chunks = attachments.flatMap((bytes, i) =>
    [...Array(Math.ceil(bytes.length / CHUNK_BYTES)).keys()].map((n) => ({
      Put: { TableName: table, Item: { ...K.testEmailPart(record.account_id, record.id, i, n), bytes: bytes.subarray(n * CHUNK_BYTES, (n + 1) * CHUNK_BYTES), expires_at } },
    })),
  );
  // Slots have no expiry: an account has at most 60, rewritten in place.
  const slotWrites = QUOTAS.map((q) => ({
    Update: {
      TableName: table,
      Key: K.testQuotaSlot(record.account_id, q.window, slots[q.window]),
      UpdateExpression: 'SET until_ms = :until',
      ConditionExpression: 'attribute_not_exists(until_ms) OR until_ms <= :now',
      ExpressionAttributeValues: { ':until': nowMs + q.ms, ':now': nowMs },
    },
  }));
  try {
    await documentClient().send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: table, Item: { ...key, ...record, ...dueFields(key, dueAt), expires_at }, ConditionExpression: 'attribute_not_exists(pk)' } },
          {
            Put: {
              TableName: table,
              Item: { ...K.testEmailKey(record.account_id, record.idempotency_key), test_email_id: record.id, body_hash: record.body_hash, expires_at },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          ...slotWrites,
          ...chunks,
        ],
      }),
    );
    return 'created';
  } catch (e) {
    if (!isTransactionCanceled(e)) throw e;
    const reasons = cancellationReasons(e);
    if (reasons[1]?.Code === 'ConditionalCheckFailed') return 'key_taken';
    const slotTaken = reasons.slice(2, 2 + slotWrites.length).some((r) => r.Code === 'ConditionalCheckFailed');
    if (slotTaken || reasons.some((r) => r.Code === 'TransactionConflict')) return 'retry';
    throw e;
  }
}

export interface TestEmailTransition {
  /** When the next step is due (the sweeper acts after it); null: it rests or has ended, off the due index. */
  due?: Date | null;
  /** Only the attempt holding the claim may make this change. */
  attempt?: string;
}

/** Move a test email from one of `from` to what `set` says; the updated record, or null when the guard lost. */
export async function transitionTestEmail(
  accountId: string,
  id: string,
  from: TestEmailStatus[],
  set: Partial<TestEmailRecord>,
  opts: TestEmailTransition = {},
): Promise<TestEmailRecord | null> {
  const key = K.testEmail(accountId, id);
  const { clauses, names, values } = setClauses({ ...set, ...(opts.due ? dueFields(key, opts.due) : {}) });
  const removes = opts.due === null ? DUE_ATTRIBUTES.map((a, i) => ((names[`#r${i}`] = a), `#r${i}`)) : [];
  names['#s'] = 'status';
  from.forEach((s, i) => (values[`:from${i}`] = s));
  let condition = `#s IN (${from.map((_, i) => `:from${i}`).join(', ')})`;
  if (opts.attempt) {
    values[':attempt'] = opts.attempt;
    condition += ' AND send_attempt = :attempt';
  }
  try {
    const out = await documentClient().send(
      new UpdateCommand({
        TableName: tableName('outreach'),
        Key: key,
        UpdateExpression: [clauses.length ? `SET ${clauses.join(', ')}` : '', removes.length ? `REMOVE ${removes.join(', ')}` : ''].join(' ').trim(),
        ConditionExpression: condition,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      }),
    );
    return out.Attributes as TestEmailRecord;
  } catch (e) {
    if (isConditionFailed(e)) return null;
    throw e;
  }
}

/** The bytes of each attachment, in order, put back together from their chunks. */
export async function readAttachmentBytes(record: TestEmailRecord): Promise<Buffer[]> {
  if (!record.attachments.length) return [];
  const parts = await queryAll<{ sk: string; bytes: Uint8Array }>({
    TableName: tableName('outreach'),
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': K.accountPk(record.account_id), ':prefix': K.testEmailPartsPrefix(record.id) },
    ConsistentRead: true,
  });
  const bySk = new Map(parts.map((p) => [p.sk, p.bytes]));
  return record.attachment_chunks.map((count, i) =>
    Buffer.concat(
      [...Array(count).keys()].map((n) => {
        const chunk = bySk.get(K.testEmailPart(record.account_id, record.id, i, n).sk);
        if (!chunk) throw new Error(`test email ${record.id}: attachment ${i} chunk ${n} missing`);
        return Buffer.from(chunk);
      }),
    ),
  );
}

export const chunkCount = (bytes: number) => Math.ceil(bytes / CHUNK_BYTES);
