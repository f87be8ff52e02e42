import { createHash } from 'node:crypto';
import { BatchWriteCommand, GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../adapters/aws.js';
import { cancellationReasons, isConditionFailed, isTransactionCanceled } from '../adapters/dynamodb-errors.js';
import { tableName } from '../catalog/resource-names.js';
import { expiresAt } from '../catalog/tables.js';
import { ValidationError } from '../core/errors.js';
import { addressHash } from '../privacy/opt-outs.repository.js';

/**
 * The privacy requests of the people in the directory (docs/privacy.md), in the privacy table:
 *   REQ#<pr_id> / R                   the request: `request`, `status` (pending | completed), `created_at`,
 *                                     `completed_at`, `email_hash`, and `email` in clear until an erasure of the
 *                                     address completes; gsi1 (REQS, <created_at>#<pr_id>) is the console's list
 *   TOKEN#<sha256 of the link token> / T   `request_id`, `created_at`, `used_at` once confirmed; the token itself is
 *                                     never stored
 *   RATE#<address hash> / <YYYY-MM-DD>     `sent`: verification messages mailed to the address that UTC day
 *   BYADDR#<address hash> / <pr_id>   a completed request that still names the address in clear, so that a later
 *                                     erasure of the address can take it out of them too
 * A request and its token are written together; the request expires with its link (24 h) while it is pending,
 * and is kept for `privacy_request` (400 days from creation) once completed. Reads check `expires_at` too, since
 * DynamoDB's TTL deletes lazily.
 */
export type PrivacyRequestKind = 'access' | 'opt_out' | 'erase';
export type PrivacyRequestStatus = 'pending' | 'completed';

export interface PrivacyRequestRecord {
  id: string;
  request: PrivacyRequestKind;
  status: PrivacyRequestStatus;
  /** Absent once an erasure of the address has completed (only `email_hash` is kept). */
  email?: string;
  email_hash: string;
  created_at: string;
  completed_at?: string;
  expires_at: number;
}

export interface PrivacyTokenRecord {
  request_id: string;
  created_at: string;
  used_at?: string;
  expires_at: number;
}

/** The console's list of requests (gsi1), newest first. */
const LIST_PK = 'REQS';
const requestKey = (id: string) => ({ pk: `REQ#${id}`, sk: 'R' });
const tokenKey = (token: string) => ({ pk: `TOKEN#${tokenHash(token)}`, sk: 'T' });
const byAddressPk = (email: string) => `BYADDR#${addressHash(email)}`;

/** The sha256 (hex) of a link token: all the table ever holds of it. */
export const tokenHash = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

const epochSeconds = (at: Date) => Math.floor(at.getTime() / 1000);
/** Still there for a reader: TTL deletes an expired item some time after `expires_at`, not at it. */
const live = (item: { expires_at?: unknown } | undefined, now: Date): boolean => !!item && typeof item.expires_at === 'number' && item.expires_at > epochSeconds(now);

/**
 * Take one of the address's verification messages of the UTC day of `now`: false when `max` were already taken
 * (then nothing is written). One conditional update; the counter expires two days after its day starts.
 */
export async function takeVerificationSlot(email: string, now: Date, max: number): Promise<boolean> {
  const day = now.toISOString().slice(0, 10);
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: tableName('privacy'),
        Key: { pk: `RATE#${addressHash(email)}`, sk: day },
        UpdateExpression: 'ADD #n :one SET expires_at = if_not_exists(expires_at, :exp)',
        ConditionExpression: 'attribute_not_exists(#n) OR #n < :max',
        ExpressionAttributeNames: { '#n': 'sent' },
        ExpressionAttributeValues: { ':one': 1, ':max': max, ':exp': expiresAt('privacy_rate', new Date(`${day}T00:00:00.000Z`)) },
      }),
    );
    return true;
  } catch (e) {
    if (isConditionFailed(e)) return false;
    throw e;
  }
}

/** A new pending request and its link token, in one transaction. The request lives as long as its link until it is confirmed. */
export async function putPendingRequest(input: { id: string; request: PrivacyRequestKind; email: string; token: string; now: Date }): Promise<void> {
  const { id, request, email, token, now } = input;
  const created_at = now.toISOString();
  const linkExpires = expiresAt('privacy_token', now);
  const table = tableName('privacy');
  const record: PrivacyRequestRecord = { id, request, status: 'pending', email: email.trim(), email_hash: addressHash(email), created_at, expires_at: linkExpires };
  await documentClient().send(
    new TransactWriteCommand({
      TransactItems: [
        { Put: { TableName: table, Item: { ...requestKey(id), ...record, gsi1pk: LIST_PK, gsi1sk: `${created_at}#${id}` }, ConditionExpression: 'attribute_not_exists(pk)' } },
        { Put: { TableName: table, Item: { ...tokenKey(token), request_id: id, created_at, expires_at: linkExpires } satisfies PrivacyTokenRecord & Record<string, unknown>, ConditionExpression: 'attribute_not_exists(pk)' } },
      ],
    }),
  );
}

/** The token's record while its link is valid (used or not); null for an unknown or expired token. */
export async function getLiveToken(token: string, now: Date): Promise<PrivacyTokenRecord | null> {
  const out = await documentClient().send(new GetCommand({ TableName: tableName('privacy'), Key: tokenKey(token), ConsistentRead: true }));
  return live(out.Item, now) ? (out.Item as PrivacyTokenRecord) : null;
}

export async function getRequest(id: string): Promise<PrivacyRequestRecord | null> {
  const out = await documentClient().send(new GetCommand({ TableName: tableName('privacy'), Key: requestKey(id), ConsistentRead: true }));
  return (out.Item as PrivacyRequestRecord | undefined) ?? null;
}

/**
 * Mark a pending request completed and its token used, together, guarded by the request being pending and the
 * link not used and still valid. `forgetAddress` (an erasure) removes the clear-text address from the request,
 * keeping its hash; otherwise a BYADDR pointer is written so that a later erasure finds the request. The request
 * is then kept for `privacy_request`. Answers `lost` when the guard failed (another confirm completed it first,
 * or the link expired meanwhile): the caller reads the request again.
 */
export async function completeRequest(input: { request: PrivacyRequestRecord; token: string; now: Date; forgetAddress: boolean }): Promise<'completed' | 'lost'> {
  const { request, token, now, forgetAddress } = input;
  const at = now.toISOString();
  const kept = expiresAt('privacy_request', new Date(request.created_at));
  const table = tableName('privacy');
  try {
    await documentClient().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: table,
              Key: requestKey(request.id),
              UpdateExpression: `SET #s = :done, completed_at = :at, expires_at = :kept${forgetAddress ? ' REMOVE email' : ''}`,
              ConditionExpression: '#s = :pending',
              ExpressionAttributeNames: { '#s': 'status' },
              ExpressionAttributeValues: { ':done': 'completed', ':pending': 'pending', ':at': at, ':kept': kept },
            },
          },
          {
            Update: {
              TableName: table,
              Key: tokenKey(token),
              UpdateExpression: 'SET used_at = :at',
              ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(used_at) AND expires_at > :now',
              ExpressionAttributeValues: { ':at': at, ':now': epochSeconds(now) },
            },
          },
          ...(!forgetAddress && request.email ? [{ Put: { TableName: table, Item: { pk: byAddressPk(request.email), sk: request.id, expires_at: kept } } }] : []),
        ],
      }),
    );
    return 'completed';
  } catch (e) {
    if (isTransactionCanceled(e) && cancellationReasons(e).some((r) => r.Code === 'ConditionalCheckFailed')) return 'lost';
    throw e;
  }
}

/**
 * An erasure: take the clear-text address out of every earlier completed request of it (found by their BYADDR
 * pointers), keeping the hash, and drop the pointers. Idempotent; a request already without it is left as is.
 */
export async function forgetAddressInRequests(email: string): Promise<void> {
  const table = tableName('privacy');
  const pk = byAddressPk(email);
  let start: Record<string, unknown> | undefined;
  do {
    const out = await documentClient().send(new QueryCommand({ TableName: table, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pk }, ProjectionExpression: 'pk, sk', ConsistentRead: true, ExclusiveStartKey: start }));
    for (const item of out.Items ?? []) {
      try {
        await documentClient().send(
          new UpdateCommand({ TableName: table, Key: requestKey(item.sk as string), UpdateExpression: 'REMOVE email', ConditionExpression: 'attribute_exists(pk)' }),
        );
      } catch (e) {
        if (!isConditionFailed(e)) throw e;
      }
    }
    await deleteKeys(table, (out.Items ?? []).map((i) => ({ pk: i.pk as string, sk: i.sk as string })));
    start = out.LastEvaluatedKey;
  } while (start);
}

/** Delete items by key, 25 a BatchWriteItem, retrying what DynamoDB leaves unprocessed. */
export async function deleteKeys(table: string, keys: { pk: string; sk: string }[]): Promise<void> {
  for (let i = 0; i < keys.length; i += 25) {
    let pending: Record<string, unknown>[] = keys.slice(i, i + 25).map((Key) => ({ DeleteRequest: { Key } }));
    for (let attempt = 0; pending.length; attempt++) {
      if (attempt) await new Promise((r) => setTimeout(r, Math.min(1000, 20 * 2 ** attempt)));
      const out = await documentClient().send(new BatchWriteCommand({ RequestItems: { [table]: pending as never } }));
      pending = (out.UnprocessedItems?.[table] ?? []) as Record<string, unknown>[];
    }
  }
}

/**
 * What the service's own sending learnt about the address (the mail_evidence table's `ADDR#<sha256>` items: its
 * latest bounce and delivery, and the accounts' inbound bounce reports, hashes only), deleted for an erasure.
 * The same hash as `addressHash`. Idempotent.
 */
export async function deleteAddressMailEvidence(email: string): Promise<void> {
  const table = tableName('mail_evidence');
  const pk = `ADDR#${addressHash(email)}`;
  let start: Record<string, unknown> | undefined;
  do {
    const out = await documentClient().send(new QueryCommand({ TableName: table, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pk }, ProjectionExpression: 'pk, sk', ConsistentRead: true, ExclusiveStartKey: start }));
    await deleteKeys(table, (out.Items ?? []).map((i) => ({ pk: i.pk as string, sk: i.sk as string })));
    start = out.LastEvaluatedKey;
  } while (start);
}

export interface RequestListQuery {
  status?: PrivacyRequestStatus;
  limit: number;
  cursor?: string;
}

export interface RequestListPage {
  results: PrivacyRequestRecord[];
  /** Pass back as `cursor` for the next page; null when nothing can follow (a full last page may still carry one, which then reads empty). */
  next_cursor: string | null;
}

/** How many reads one page may take to fill itself past filtered-out items (as the console's charges list). */
const MAX_READS = 5;
const LIST_SK = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z#(pr_[0-9a-z]{26})$/;

function decodeListCursor(cursor: string): Record<string, string> {
  const sk = Buffer.from(cursor, 'base64url').toString('utf8');
  const m = LIST_SK.exec(sk);
  if (!m) throw new ValidationError('Invalid query parameters.', [{ path: 'cursor', message: 'not a cursor from this list' }]);
  return { ...requestKey(m[1]!), gsi1pk: LIST_PK, gsi1sk: sk };
}

/**
 * The requests, newest first (gsi1), optionally of one status. A pending request whose link has expired is
 * left out (its item is on its way out through TTL). Status is a filter, which DynamoDB applies after its
 * `Limit`: a page is filled from up to MAX_READS reads, and the cursor resumes exactly where reading stopped.
 */
export async function listRequests(q: RequestListQuery, now: Date): Promise<RequestListPage> {
  const values: Record<string, unknown> = { ':pk': LIST_PK, ':now': epochSeconds(now) };
  const filters = ['expires_at > :now'];
  if (q.status) {
    values[':st'] = q.status;
    filters.push('#s = :st');
  }
  const results: PrivacyRequestRecord[] = [];
  let start = q.cursor ? decodeListCursor(q.cursor) : undefined;
  for (let reads = 0; reads < MAX_READS && results.length < q.limit; reads++) {
    const out = await documentClient().send(
      new QueryCommand({
        TableName: tableName('privacy'),
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :pk',
        FilterExpression: filters.join(' AND '),
        ExpressionAttributeValues: values,
        ...(q.status ? { ExpressionAttributeNames: { '#s': 'status' } } : {}),
        ScanIndexForward: false,
        Limit: q.limit - results.length,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    results.push(...((out.Items ?? []) as PrivacyRequestRecord[]));
    start = out.LastEvaluatedKey as Record<string, string> | undefined;
    if (!start) break;
  }
  return { results, next_cursor: start ? Buffer.from(start.gsi1sk!, 'utf8').toString('base64url') : null };
}
