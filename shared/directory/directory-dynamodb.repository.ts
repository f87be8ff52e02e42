import { BatchWriteCommand, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../adapters/aws.js';
import { tableName } from '../core/env.js';
import type { ContactPoints, DirectoryEntry, DirectoryStore, ImportMarker } from './directory-store.js';
import type { Company, DirectoryRecord, Person } from './types.js';
import { lookupKeys } from './urls.js';

/**
 * The directory in DynamoDB (the store in AWS; `DIRECTORY_STORE=dynamodb` on the twin), shaped so that
 * every enrichment lookup is one request: one item per person (with their company denormalised), keyed
 * by profile URL, with GSIs on work email, name + domain and name + company.
 */

function itemFor(person: Person, company: Company): Record<string, unknown> {
  const keys = lookupKeys(person, company);
  const get = (prefix: string) => keys.find((k) => k.startsWith(prefix));
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

/** Write people (with their companies) in batches of 25, `concurrency` batches at a time. */
export async function importDirectory(records: AsyncIterable<DirectoryRecord> | Iterable<DirectoryRecord>, opts: { concurrency?: number; onProgress?: (people: number) => void } = {}): Promise<{ people: number; companies: number }> {
  const table = tableName('directory');
  const companies = new Map<string, Company>();
  let batch: Record<string, unknown>[] = [];
  const inFlight = new Set<Promise<void>>();
  let people = 0;

  const writeBatch = async (items: Record<string, unknown>[]) => {
    let requests = items.map((Item) => ({ PutRequest: { Item } }));
    for (let attempt = 0; requests.length && attempt < 10; attempt++) {
      const out = await documentClient().send(new BatchWriteCommand({ RequestItems: { [table]: requests } }));
      requests = (out.UnprocessedItems?.[table] ?? []) as typeof requests;
      if (requests.length) await new Promise((r) => setTimeout(r, 50 * 2 ** attempt));
    }
    if (requests.length) throw new Error(`directory import: ${requests.length} items left unprocessed`);
  };
  const flush = async () => {
    const items = batch;
    batch = [];
    const p = writeBatch(items).finally(() => inFlight.delete(p));
    inFlight.add(p);
    if (inFlight.size >= (opts.concurrency ?? 8)) await Promise.race(inFlight);
  };

  for await (const r of records) {
    if (r.type === 'company') {
      companies.set(r.id, r);
      continue;
    }
    const company = companies.get(r.company_id);
    if (!company) throw new Error(`directory import: person ${r.id} names unknown company ${r.company_id}`);
    batch.push(itemFor(r, company));
    people++;
    if (batch.length === 25) {
      await flush();
      if (people % 5000 === 0) opts.onProgress?.(people);
    }
  }
  if (batch.length) await flush();
  await Promise.all(inFlight);
  opts.onProgress?.(people);
  return { people, companies: companies.size };
}

function points(item: Record<string, unknown> | undefined): ContactPoints | null {
  return item ? { work_email: (item.work_email as string | null) ?? null, professional_url: item.professional_url as string, phone: (item.phone as string | null) ?? null } : null;
}

/** The whole person (for profiles) by profile URL: one GetItem. */
async function findByProfessionalUrl(bareUrl: string): Promise<DirectoryEntry | null> {
  const out = await documentClient().send(new GetCommand({ TableName: tableName('directory'), Key: { pk: `url#${bareUrl}`, sk: 'P' } }));
  return out.Item ? { person: out.Item.person as Person, company: out.Item.company as Company } : null;
}

async function contactByProfessionalUrl(bareUrl: string): Promise<ContactPoints | null> {
  const out = await documentClient().send(
    new GetCommand({ TableName: tableName('directory'), Key: { pk: `url#${bareUrl}`, sk: 'P' }, ProjectionExpression: 'work_email, professional_url, phone' }),
  );
  return points(out.Item);
}

async function findByIndex(index: 'gsi1' | 'gsi2' | 'gsi3', key: string): Promise<ContactPoints | null> {
  const out = await documentClient().send(
    new QueryCommand({
      TableName: tableName('directory'),
      IndexName: index,
      KeyConditionExpression: `${index}pk = :k`,
      ExpressionAttributeValues: { ':k': key },
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

/** Which directory version the table holds: written after a complete import, read to skip a re-import. */
const IMPORT_MARKER = { pk: 'META', sk: 'IMPORT' };

export async function getImportMarker(): Promise<ImportMarker | null> {
  const out = await documentClient().send(new GetCommand({ TableName: tableName('directory'), Key: IMPORT_MARKER, ConsistentRead: true }));
  return out.Item ? { version: out.Item.version as string, people: out.Item.people as number, imported_at: out.Item.imported_at as string } : null;
}

export async function recordImport(marker: ImportMarker): Promise<void> {
  await documentClient().send(new PutCommand({ TableName: tableName('directory'), Item: { ...IMPORT_MARKER, ...marker } }));
}
