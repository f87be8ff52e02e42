/**
 * One contract, two adapters: the DynamoDB store (items imported into DynamoDB Local) and the in-memory
 * store (the persisted search index) answer every lookup key of every person, and keys nobody holds,
 * identically.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dynamoDbDirectory, importDirectory, recordImport } from '../../shared/directory/directory-dynamodb.repository.js';
import { memoryDirectory } from '../../shared/search-engine/directory-memory.js';
import type { DirectoryStore } from '../../shared/directory/directory-store.js';
import { readDirectoryFile, writeDirectoryFile } from '../../shared/directory/file.js';
import type { Company, Person } from '../../shared/directory/types.js';
import { lookupKeys } from '../../shared/directory/urls.js';
import { loadDirectoryFile, resetPeopleIndex, useLoadedDirectory } from '../../shared/search-engine/index-source.js';
import type { LocalStack } from '../../shared/local/stack.js';
import { startTestStack } from '../support/local.js';

let stack: LocalStack;
let dir: string;
const people: Person[] = [];
const CONTRACT_VERSION = '00000000000c0de1';
const companies = new Map<string, Company>();

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'directory-store-'));
  stack = await startTestStack({ workers: false });
  const file = join(dir, 'directory.jsonl');
  await writeDirectoryFile(file, { seed: 13, people: 250 });
  for await (const r of readDirectoryFile(file)) {
    if (r.type === 'company') companies.set(r.id, r);
    else people.push(r);
  }
  await importDirectory(readDirectoryFile(file), { version: CONTRACT_VERSION });
  await recordImport({ version: CONTRACT_VERSION, people: people.length, imported_at: new Date().toISOString() });
  useLoadedDirectory(await loadDirectoryFile(file));
}, 120_000);

afterAll(async () => {
  resetPeopleIndex();
  await stack?.stop();
  await rm(dir, { recursive: true, force: true });
});

/** Every question a caller can ask: each person's keys through the matching lookup, plus misses. */
async function answers(store: DirectoryStore): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const p of people) {
    for (const key of lookupKeys(p, companies.get(p.company_id)!)) {
      const [kind, rest] = [key.slice(0, key.indexOf('#')), key.slice(key.indexOf('#') + 1)];
      if (kind === 'url') out.push(key, await store.findByProfessionalUrl(rest), await store.contactByProfessionalUrl(rest));
      if (kind === 'email') out.push(key, await store.findByEmail(key));
      if (kind === 'namedomain') out.push(key, await store.findByNameAndDomain(key));
      if (kind === 'namecompany') out.push(key, await store.findByNameAndCompany(key));
    }
  }
  out.push(
    await store.findByProfessionalUrl('linkedin.com/in/nobody-here'),
    await store.contactByProfessionalUrl('linkedin.com/in/nobody-here'),
    await store.findByEmail('email#nobody@nowhere.test'),
    await store.findByNameAndDomain('namedomain#no|body|nowhere.test'),
    await store.findByNameAndCompany('namecompany#no|body|nowhere'),
  );
  return out;
}

const stores: [string, () => DirectoryStore][] = [
  ['dynamodb', () => dynamoDbDirectory],
  ['memory', () => memoryDirectory],
];

describe.each(stores)('the %s directory store', (_name, store) => {
  it('answers each person by profile URL with the person and company, and their contact points', async () => {
    for (const p of people.slice(0, 50)) {
      const url = lookupKeys(p, companies.get(p.company_id)!)[0]!.slice('url#'.length);
      expect(await store().findByProfessionalUrl(url)).toEqual({ person: p, company: companies.get(p.company_id) });
      expect(await store().contactByProfessionalUrl(url)).toEqual({ work_email: p.work_email ?? null, professional_url: p.professional_url, phone: p.phone ?? null });
    }
  }, 120_000);

  it('answers email, name + domain and name + company keys with the lowest-id holder, and null for nobody', async () => {
    const all = await answers(store());
    expect(all.slice(-5)).toEqual([null, null, null, null, null]);
    expect(all.filter((a) => a === null)).toHaveLength(5);
  }, 120_000);
});

test('both stores give the same answer to every question', async () => {
  expect(await answers(memoryDirectory)).toEqual(await answers(dynamoDbDirectory));
}, 240_000);
