import type { Company, Person } from './types.js';

/** A person with their company, as a profile lookup answers. */
export interface DirectoryEntry {
  person: Person;
  company: Company;
}

/** What every lookup answers in one request (the DynamoDB GSIs project just these). */
export interface ContactPoints {
  work_email: string | null;
  professional_url: string;
  phone: string | null;
}

/** Which directory version a store holds (the sha256 of the directory file). */
export interface ImportMarker {
  version: string;
  people: number;
  imported_at: string;
}

/**
 * The directory lookup port. Keys are the ones `lookupKeys` makes (`email#…`, `namedomain#…`,
 * `namecompany#…`; profile lookups take the bare normalized URL). Two adapters answer it identically:
 * DynamoDB (`directory-dynamodb.repository.ts`) and the in-memory index (`directory-memory.ts`).
 */
export interface DirectoryStore {
  findByProfessionalUrl(bareUrl: string): Promise<DirectoryEntry | null>;
  contactByProfessionalUrl(bareUrl: string): Promise<ContactPoints | null>;
  findByEmail(key: string): Promise<ContactPoints | null>;
  findByNameAndDomain(key: string): Promise<ContactPoints | null>;
  findByNameAndCompany(key: string): Promise<ContactPoints | null>;
}

export type DirectoryStoreName = 'dynamodb' | 'memory';

/**
 * `DIRECTORY_STORE`: `dynamodb` unless set. The CDK stack never sets it, so AWS always reads DynamoDB;
 * the local stack sets `memory` unless told otherwise.
 */
export function directoryStoreName(): DirectoryStoreName {
  const v = process.env.DIRECTORY_STORE;
  if (v === undefined || v === '' || v === 'dynamodb') return 'dynamodb';
  if (v === 'memory') return 'memory';
  throw new Error(`DIRECTORY_STORE must be dynamodb or memory, not ${v}`);
}
