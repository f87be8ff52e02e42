import { BatchGetCommand, BatchWriteCommand, DeleteCommand, GetCommand, QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../adapters/aws.js';
import { tableName } from '../catalog/resource-names.js';
import type { ContactPoints, DirectoryEntry, DirectoryStore, ImportMarker } from './directory-store.js';
import { currentDirectoryVersion, readDirectoryVersion, switchDirectoryVersion } from './directory-version.repository.js';
import type { Company, DirectoryRecord, Person } from './types.js';
import { lookupKeys, normalizeProfessionalUrl } from './urls.js';

/**
 * The directory in DynamoDB (the store in AWS; `DIRECTORY_STORE=dynamodb` on the twin), shaped so that
 * every enrichment lookup is one request: one item per person (with their company denormalised), keyed
 * by profile URL, with GSIs on work email, name + domain and name + company. Every key carries its
 * directory version (`V#<version>#…`): an import writes a whole new version beside the current one, the
 * pointer (directory-version.repository.ts) switches to it, and the old one is deleted by version later.
 */
const versioned = (version: string, key: string) => `V#${version}#${key}`;
export const versionPrefix = (version: string) => `V#${version}#`;

/** A DynamoDB item as BatchWriteItem takes it. */
export type DirectoryItem = Record<string, unknown>;

export function personItem(version: string, person: Person, company: Company): DirectoryItem {
  const keys = lookupKeys(person, company);
  const get = (prefix: string) => {
    const key = keys.find((k) => k.startsWith(prefix));
    return key ? versioned(version, key) : undefined;
  };
  return {
    pk: get('url#'),
    sk: 'P',
    gsi1pk: get('email#'),
    gsi1sk: get('email#') ? person.id : undefined,
    gsi2pk: get('namedomain#'),
    gsi2sk: person.id,
    gsi3pk: get('namecompany#'),
    gsi3sk: person.id,
    work_email: person.work_email,
    professional_url: person.professional_url,
    phone: person.phone,
    person,
    company,
  };
}

/**
 * A company as an import stages it: a directory file lists every company before its people, but a chunk of
 * people is read without the companies' part of the file, so it reads its people's companies from here.
 */
export function companyItem(version: string, company: Company): DirectoryItem {
  return { pk: versioned(version, `company#${company.id}`), sk: 'C', company };
}

/** Companies of a version by id, consistently (their chunks finished before any people chunk started). */
export async function companiesById(version: string, ids: Iterable<string>): Promise<Map<string, Company>> {
  const table = tableName('directory');
  const out = new Map<string, Company>();
  const all = [...new Set(ids)];
  for (let i = 0; i < all.length; i += 100) {
    let keys: Record<string, unknown>[] = all.slice(i, i + 100).map((id) => ({ pk: versioned(version, `company#${id}`), sk: 'C' }));
    for (let attempt = 0; keys.length; attempt++) {
      if (attempt === 10) throw new Error(`directory: ${keys.length} company reads left unprocessed`);
      if (attempt) await backoff(attempt);
      const r = await documentClient().send(new BatchGetCommand({ RequestItems: { [table]: { Keys: keys, ConsistentRead: true } } }));
      for (const item of r.Responses?.[table] ?? []) out.set((item.company as Company).id, item.company as Company);
      keys = (r.UnprocessedKeys?.[table]?.Keys ?? []) as Record<string, unknown>[];
    }
  }
  return out;
}

const backoff = (attempt: number) => new Promise((r) => setTimeout(r, Math.min(2000, 25 * 2 ** attempt) * (0.5 + Math.random() / 2)));

/** One BatchWriteItem request (≤ 25 puts or deletes), what an import's chunk writer sends. */
export type WriteRequest = { PutRequest: { Item: DirectoryItem } } | { DeleteRequest: { Key: DirectoryItem } };
export type BatchWriter = (requests: WriteRequest[]) => Promise<void>;

/**
 * Write ≤ 25 requests, retrying what DynamoDB leaves unprocessed (throttling) with jittered exponential
 * backoff. Idempotent: the same keys with the same values, so a chunk written twice ends the same.
 */
export const writeDirectoryBatch: BatchWriter = async (requests) => {
  const table = tableName('directory');
  let pending = requests;
  for (let attempt = 0; pending.length; attempt++) {
    if (attempt === 10) throw new Error(`directory: ${pending.length} writes left unprocessed after ${attempt} attempts`);
    if (attempt) await backoff(attempt);
    const out = await documentClient().send(new BatchWriteCommand({ RequestItems: { [table]: pending } }));
    pending = (out.UnprocessedItems?.[table] ?? []) as WriteRequest[];
  }
};

/** Send requests in batches of 25, `concurrency` batches in flight. */
export async function writeAll(requests: Iterable<WriteRequest>, opts: { concurrency?: number; writer?: BatchWriter } = {}): Promise<void> {
  const writer = opts.writer ?? writeDirectoryBatch;
  const inFlight = new Set<Promise<void>>();
  let failed: unknown;
  let batch: WriteRequest[] = [];
  const flush = async () => {
    const p = writer(batch).catch((e) => {
      failed ??= e;
    });
    batch = [];
    const tracked = p.finally(() => inFlight.delete(tracked));
    inFlight.add(tracked);
    if (inFlight.size >= (opts.concurrency ?? 8)) await Promise.race(inFlight);
    if (failed) throw failed;
  };
  for (const r of requests) {
    batch.push(r);
    if (batch.length === 25) await flush();
  }
  if (batch.length) await flush();
  await Promise.all(inFlight);
  if (failed) throw failed;
}

/**
 * Write a whole directory (companies first, as files list them) under `version` in one process: the twin's
 * `DIRECTORY_STORE=dynamodb` start, the bench and the contract test. AWS imports run chunk by chunk instead
 * (import/import-chunk.ts). Lookups see it once `recordImport` points at it.
 */
export async function importDirectory(
  records: AsyncIterable<DirectoryRecord> | Iterable<DirectoryRecord>,
  opts: { version: string; concurrency?: number; onProgress?: (people: number) => void; drop?: (person: Person) => boolean },
): Promise<{ people: number; companies: number }> {
  const companies = new Map<string, Company>();
  let people = 0;
  let batch: WriteRequest[] = [];
  for await (const r of records) {
    if (r.type === 'company') {
      companies.set(r.id, r);
      continue;
    }
    const company = companies.get(r.company_id);
    if (!company) throw new Error(`directory import: person ${r.id} names unknown company ${r.company_id}`);
    // Left out: a person on the erasure list (the caller's predicate, docs/privacy.md).
    if (opts.drop?.(r)) continue;
    batch.push({ PutRequest: { Item: personItem(opts.version, r, company) } });
    people++;
    if (batch.length === 5000) {
      await writeAll(batch, { concurrency: opts.concurrency });
      batch = [];
      opts.onProgress?.(people);
    }
  }
  await writeAll(batch, { concurrency: opts.concurrency });
  opts.onProgress?.(people);
  return { people, companies: companies.size };
}

/**
 * One page of a parallel scan's segment over the keys of `version`'s items (people and staged companies),
 * for deleting a version that lookups no longer read.
 */
export async function versionKeysPage(version: string, segment: number, segments: number, startKey?: DirectoryItem): Promise<{ keys: DirectoryItem[]; next?: DirectoryItem }> {
  const out = await documentClient().send(
    new ScanCommand({
      TableName: tableName('directory'),
      Segment: segment,
      TotalSegments: segments,
      ExclusiveStartKey: startKey,
      FilterExpression: 'begins_with(pk, :prefix)',
      ProjectionExpression: 'pk, sk',
      ExpressionAttributeValues: { ':prefix': versionPrefix(version) },
    }),
  );
  return { keys: (out.Items ?? []) as DirectoryItem[], next: out.LastEvaluatedKey };
}

/**
 * Deletes, from `version`, the person items of these bare profile URLs and every person item holding `address` as
 * its work email (the email GSI, consistent reads of the keys it names): an erasure. Idempotent (an item already
 * gone is not an error). Returns the ids of the people deleted.
 */
export async function deletePersonItems(version: string, bareUrls: readonly string[], address: string): Promise<string[]> {
  const table = tableName('directory');
  const pks = new Set(bareUrls.map((u) => versioned(version, `url#${u}`)));
  let start: Record<string, unknown> | undefined;
  do {
    const out = await documentClient().send(
      new QueryCommand({
        TableName: table,
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :k',
        ExpressionAttributeValues: { ':k': versioned(version, `email#${address.trim().toLowerCase()}`) },
        ProjectionExpression: 'pk',
        ExclusiveStartKey: start,
      }),
    );
    for (const item of out.Items ?? []) pks.add(item.pk as string);
    start = out.LastEvaluatedKey;
  } while (start);
  const ids: string[] = [];
  for (const pk of pks) {
    const out = await documentClient().send(new DeleteCommand({ TableName: table, Key: { pk, sk: 'P' }, ReturnValues: 'ALL_OLD' }));
    const id = (out.Attributes?.person as Person | undefined)?.id;
    if (id) ids.push(id);
  }
  return ids;
}

/** Deletes the person items of `people` from `version` (their profile URL keys), 25 a request: a directory import's late erasures. */
export async function deletePeopleOfVersion(version: string, people: readonly Person[], opts: { writer?: BatchWriter } = {}): Promise<void> {
  const keys = [...new Set(people.map((p) => normalizeProfessionalUrl(p.professional_url)).filter((u): u is string => u !== null))];
  await writeAll(
    keys.map((u) => ({ DeleteRequest: { Key: { pk: versioned(version, `url#${u}`), sk: 'P' } } })),
    { concurrency: 4, writer: opts.writer },
  );
}

function points(item: Record<string, unknown> | undefined): ContactPoints | null {
  return item ? { work_email: (item.work_email as string | null) ?? null, professional_url: item.professional_url as string, phone: (item.phone as string | null) ?? null } : null;
}

/** The whole person (for profiles) by profile URL: one GetItem of the current version. */
async function findByProfessionalUrl(bareUrl: string): Promise<DirectoryEntry | null> {
  const current = await currentDirectoryVersion();
  if (!current) return null;
  const out = await documentClient().send(new GetCommand({ TableName: tableName('directory'), Key: { pk: versioned(current.version, `url#${bareUrl}`), sk: 'P' } }));
  return out.Item ? { person: out.Item.person as Person, company: out.Item.company as Company } : null;
}

async function contactByProfessionalUrl(bareUrl: string): Promise<ContactPoints | null> {
  const current = await currentDirectoryVersion();
  if (!current) return null;
  const out = await documentClient().send(
    new GetCommand({ TableName: tableName('directory'), Key: { pk: versioned(current.version, `url#${bareUrl}`), sk: 'P' }, ProjectionExpression: 'work_email, professional_url, phone' }),
  );
  return points(out.Item);
}

async function findByIndex(index: 'gsi1' | 'gsi2' | 'gsi3', key: string): Promise<ContactPoints | null> {
  const current = await currentDirectoryVersion();
  if (!current) return null;
  const out = await documentClient().send(
    new QueryCommand({
      TableName: tableName('directory'),
      IndexName: index,
      KeyConditionExpression: `${index}pk = :k`,
      ExpressionAttributeValues: { ':k': versioned(current.version, key) },
      // Namesakes at one company: the lowest person id wins, so answers are stable.
      Limit: 1,
    }),
  );
  return points(out.Items?.[0]);
}

export const dynamoDbDirectory: DirectoryStore = {
  findByProfessionalUrl,
  contactByProfessionalUrl,
  findByEmail: (key) => findByIndex('gsi1', key),
  findByNameAndDomain: (key) => findByIndex('gsi2', key),
  findByNameAndCompany: (key) => findByIndex('gsi3', key),
};

/** Which directory version lookups read, as the twin's start compares it with its file's sha256. */
export async function getImportMarker(): Promise<ImportMarker | null> {
  const current = await readDirectoryVersion();
  return current && { version: current.version, people: current.people, imported_at: current.switched_at };
}

/** Point lookups at a version `importDirectory` wrote completely. */
export async function recordImport(marker: ImportMarker): Promise<void> {
  const at = new Date(marker.imported_at);
  const r = await switchDirectoryVersion({ version: marker.version, people: marker.people, planned_at: at.toISOString(), index_artifact: null }, at);
  if (r === 'superseded') throw new Error(`directory version ${marker.version} is older than the current one`);
}
