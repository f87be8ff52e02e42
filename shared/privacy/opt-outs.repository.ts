import { createHash } from 'node:crypto';
import { BatchGetCommand, BatchWriteCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../adapters/aws.js';
import { isConditionFailed } from '../adapters/dynamodb-errors.js';
import { tableName } from '../catalog/resource-names.js';
import { expiresAt } from '../catalog/tables.js';
import { normalizeProfessionalUrl } from '../directory/urls.js';

/**
 * What the people in the directory asked for, as every account's search, enrichment, outreach and every
 * directory import read it (the privacy table; docs/privacy.md). Nothing here names a person in clear:
 *   OPTOUT#A#<sha256 of the lower-case address> / O     `request` (opt_out | erase), `at`
 *   OPTOUT#P#<sha256 of the bare profile URL>  / O     the directory person that address belongs to
 *   SUPPRESS / <sha256 of the address>                  the erasure list every directory import applies
 *   EMAILED#<sha256 of the address> / <sha256 of an account id>   `last_emailed_at` (expires after 400 days)
 * Every write is idempotent: a second opt-out of the same address changes nothing but keeps the stronger
 * request (an erasure is never turned back into an opt-out).
 */
export type OptOutRequest = 'opt_out' | 'erase';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
/** The hash every list keys an address by: trimmed and lower-cased first. */
export const addressHash = (email: string) => sha256(email.trim().toLowerCase());
/** The hash a directory person is keyed by: their bare profile URL (`linkedin.com/in/…`), normalized. */
export const profileHash = (url: string) => sha256(normalizeProfessionalUrl(url) ?? url.trim().toLowerCase());

const addressKey = (email: string) => ({ pk: `OPTOUT#A#${addressHash(email)}`, sk: 'O' });
const profileKey = (url: string) => ({ pk: `OPTOUT#P#${profileHash(url)}`, sk: 'O' });
const SUPPRESS_PK = 'SUPPRESS';
/** BatchGetItem takes at most 100 keys a request. */
const BATCH = 100;

async function presentKeys(keys: { pk: string; sk: string }[]): Promise<Set<string>> {
  const table = tableName('privacy');
  const found = new Set<string>();
  const unique = [...new Map(keys.map((k) => [k.pk, k])).values()];
  // The batches of one call go out together: a page of 100 people (200 keys) costs one round trip, not two.
  const batches = Array.from({ length: Math.ceil(unique.length / BATCH) }, (_, n) => unique.slice(n * BATCH, (n + 1) * BATCH));
  await Promise.all(
    batches.map(async (batch) => {
      let pending: Record<string, unknown>[] = batch;
      for (let attempt = 0; pending.length; attempt++) {
        if (attempt) await new Promise((r) => setTimeout(r, Math.min(1000, 20 * 2 ** attempt)));
        const out = await documentClient().send(new BatchGetCommand({ RequestItems: { [table]: { Keys: pending, ProjectionExpression: 'pk' } } }));
        for (const item of out.Responses?.[table] ?? []) found.add(item.pk as string);
        pending = (out.UnprocessedKeys?.[table]?.Keys ?? []) as Record<string, unknown>[];
      }
    }),
  );
  return found;
}

/** The addresses among `emails` (as given) whose owner opted out or asked for erasure. One BatchGetItem per 100. */
export async function optedOutAddresses(emails: readonly string[]): Promise<Set<string>> {
  if (!emails.length) return new Set();
  const found = await presentKeys(emails.map(addressKey));
  return new Set(emails.filter((e) => found.has(addressKey(e).pk)));
}

/** The profile URLs among `urls` (as given) of directory people who opted out or asked for erasure. */
export async function optedOutProfiles(urls: readonly string[]): Promise<Set<string>> {
  if (!urls.length) return new Set();
  const found = await presentKeys(urls.map(profileKey));
  return new Set(urls.filter((u) => found.has(profileKey(u).pk)));
}

/**
 * Which of `people` (directory people, leads, candidates: by profile URL, by work email, or both) opted out or asked
 * for erasure: a flag per person, in the order given. Every key in one call (BatchGetItem, 100 keys a request, the
 * requests in parallel): a search page of 25 people is one request, one of 100 two at once.
 */
export async function optedOutPeople(people: readonly { professional_url?: string | null; work_email?: string | null }[]): Promise<boolean[]> {
  const keysOf = people.map((p) => [...(p.professional_url ? [profileKey(p.professional_url)] : []), ...(p.work_email ? [addressKey(p.work_email)] : [])]);
  const all = keysOf.flat();
  if (!all.length) return people.map(() => false);
  const found = await presentKeys(all);
  return keysOf.map((keys) => keys.some((k) => found.has(k.pk)));
}

/** Whether a person (by address, by profile URL, or both) opted out. */
export async function isOptedOut(person: { email?: string | null; professional_url?: string | null }): Promise<boolean> {
  const keys = [...(person.email ? [addressKey(person.email)] : []), ...(person.professional_url ? [profileKey(person.professional_url)] : [])];
  return keys.length > 0 && (await presentKeys(keys)).size > 0;
}

async function putOptOut(key: { pk: string; sk: string }, request: OptOutRequest, at: string): Promise<void> {
  try {
    await documentClient().send(
      new PutCommand({
        TableName: tableName('privacy'),
        Item: { ...key, request, at },
        // Idempotent, and an erasure is never weakened to an opt-out by a later request.
        ConditionExpression: 'attribute_not_exists(pk) OR (#r = :opt AND :req = :erase)',
        ExpressionAttributeNames: { '#r': 'request' },
        ExpressionAttributeValues: { ':opt': 'opt_out', ':erase': 'erase', ':req': request },
      }),
    );
  } catch (e) {
    if (!isConditionFailed(e)) throw e;
  }
}

/**
 * Record an opt-out (or erasure) of `email` and of the directory people it belongs to (`profiles`). An erasure
 * also puts the address's hash on the suppression list every directory import applies. Idempotent.
 */
export async function recordOptOut(input: { email: string; profiles: readonly string[]; request: OptOutRequest; at: string }): Promise<void> {
  const { email, profiles, request, at } = input;
  await Promise.all([putOptOut(addressKey(email), request, at), ...profiles.map((p) => putOptOut(profileKey(p), request, at))]);
  if (request === 'erase') {
    await documentClient().send(new PutCommand({ TableName: tableName('privacy'), Item: { pk: SUPPRESS_PK, sk: addressHash(email), at } }));
  }
}

/**
 * The erasure list with when each address was erased (`at`, ISO): a directory import's finalize step tells the
 * erasures its chunks may have missed (recorded after the import was planned) from those they applied.
 */
export async function erasureSuppressionEntries(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  let start: Record<string, unknown> | undefined;
  do {
    const r = await documentClient().send(
      new QueryCommand({
        TableName: tableName('privacy'),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': SUPPRESS_PK },
        ExpressionAttributeNames: { '#at': 'at' },
        ProjectionExpression: 'sk, #at',
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    for (const item of r.Items ?? []) out.set(item.sk as string, (item.at as string | undefined) ?? '');
    start = r.LastEvaluatedKey;
  } while (start);
  return out;
}

/** The erasure list: the hash (addressHash) of every erased address. Every directory import drops their people. */
export async function erasureSuppressionList(): Promise<Set<string>> {
  const out = new Set<string>();
  let start: Record<string, unknown> | undefined;
  do {
    const r = await documentClient().send(
      new QueryCommand({ TableName: tableName('privacy'), KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': SUPPRESS_PK }, ProjectionExpression: 'sk', ExclusiveStartKey: start }),
    );
    for (const item of r.Items ?? []) out.add(item.sk as string);
    start = r.LastEvaluatedKey;
  } while (start);
  return out;
}

/** An account sent mail to `email` at `at` (hashes only): what an access request counts. Keeps the latest instant. */
export async function recordEmailed(email: string, accountId: string, at: string): Promise<void> {
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: tableName('privacy'),
        Key: { pk: `EMAILED#${addressHash(email)}`, sk: sha256(accountId) },
        UpdateExpression: 'SET last_emailed_at = :at, expires_at = :exp',
        ConditionExpression: 'attribute_not_exists(last_emailed_at) OR last_emailed_at < :at',
        ExpressionAttributeValues: { ':at': at, ':exp': expiresAt('emailed_by_account', new Date(at)) },
      }),
    );
  } catch (e) {
    if (!isConditionFailed(e)) throw e;
  }
}

/** How many accounts emailed `email` since `since` (ISO), and when last: counts only, never which accounts. */
export async function emailedSummary(email: string, since: string): Promise<{ accounts_that_emailed: number; last_emailed_at: string | null }> {
  let count = 0;
  let last: string | null = null;
  let start: Record<string, unknown> | undefined;
  do {
    const r = await documentClient().send(
      new QueryCommand({
        TableName: tableName('privacy'),
        KeyConditionExpression: 'pk = :pk',
        FilterExpression: 'last_emailed_at >= :since',
        ExpressionAttributeValues: { ':pk': `EMAILED#${addressHash(email)}`, ':since': since },
        ProjectionExpression: 'last_emailed_at',
        ExclusiveStartKey: start,
      }),
    );
    for (const item of r.Items ?? []) {
      count++;
      const at = item.last_emailed_at as string;
      if (!last || at > last) last = at;
    }
    start = r.LastEvaluatedKey;
  } while (start);
  return { accounts_that_emailed: count, last_emailed_at: last };
}

/**
 * An erasure: forget which accounts emailed `email` (its EMAILED# items). A send after this writes a new one,
 * which only an access request reads (counts, never accounts). Idempotent.
 */
export async function forgetEmailed(email: string): Promise<void> {
  const table = tableName('privacy');
  let start: Record<string, unknown> | undefined;
  do {
    const r = await documentClient().send(
      new QueryCommand({ TableName: table, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': `EMAILED#${addressHash(email)}` }, ProjectionExpression: 'pk, sk', ConsistentRead: true, ExclusiveStartKey: start }),
    );
    const keys = (r.Items ?? []).map((i) => ({ pk: i.pk as string, sk: i.sk as string }));
    for (let i = 0; i < keys.length; i += 25) {
      let pending: Record<string, unknown>[] = keys.slice(i, i + 25).map((Key) => ({ DeleteRequest: { Key } }));
      for (let attempt = 0; pending.length; attempt++) {
        if (attempt) await new Promise((res) => setTimeout(res, Math.min(1000, 20 * 2 ** attempt)));
        const out = await documentClient().send(new BatchWriteCommand({ RequestItems: { [table]: pending as never } }));
        pending = (out.UnprocessedItems?.[table] ?? []) as Record<string, unknown>[];
      }
    }
    start = r.LastEvaluatedKey;
  } while (start);
}
