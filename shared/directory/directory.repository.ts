import { dynamoDbDirectory, getImportMarker, importDirectory, recordImport } from './directory-dynamodb.repository.js';
import { directoryStoreName, type ContactPoints, type DirectoryEntry, type DirectoryStore } from './directory-store.js';

/**
 * Directory lookups for enrichment, outreach and search, answered by the store `DIRECTORY_STORE` names
 * (see directory-store.ts). The in-memory store is loaded only where it is chosen.
 */
export type { ContactPoints, DirectoryEntry, ImportMarker } from './directory-store.js';
export { getImportMarker, importDirectory, recordImport };

let memory: Promise<DirectoryStore> | undefined;
// Named through a variable so bundlers leave it out: the in-memory store serves the one-machine twin only,
// and a Lambda (DIRECTORY_STORE unset) never loads it.
const MEMORY_STORE_MODULE = '../search-engine/directory-memory.js';

function store(): DirectoryStore | Promise<DirectoryStore> {
  if (directoryStoreName() === 'dynamodb') return dynamoDbDirectory;
  memory ??= (import(MEMORY_STORE_MODULE) as Promise<{ memoryDirectory: DirectoryStore }>).then((m) => m.memoryDirectory);
  return memory;
}

export async function findByProfessionalUrl(bareUrl: string): Promise<DirectoryEntry | null> {
  return (await store()).findByProfessionalUrl(bareUrl);
}

export async function contactByProfessionalUrl(bareUrl: string): Promise<ContactPoints | null> {
  return (await store()).contactByProfessionalUrl(bareUrl);
}

export async function findByEmail(key: string): Promise<ContactPoints | null> {
  return (await store()).findByEmail(key);
}

export async function findByNameAndDomain(key: string): Promise<ContactPoints | null> {
  return (await store()).findByNameAndDomain(key);
}

export async function findByNameAndCompany(key: string): Promise<ContactPoints | null> {
  return (await store()).findByNameAndCompany(key);
}
