import { loadedDirectory } from './index-source.js';
import type { ContactPoints, DirectoryStore } from '../directory/directory-store.js';

/**
 * The directory served from the in-memory index search already loads (`index-source.ts`): the same
 * answers as the DynamoDB table for the same keys, without importing 100,000 people into DynamoDB Local
 * first (about 185 s at its 451 people/s ceiling).
 */
async function entryFor(key: string) {
  const { index, lookups } = await loadedDirectory();
  const at = lookups.find(key);
  return at < 0 || index.isRemoved(at) ? null : index.entryAt(at);
}

async function contactFor(key: string): Promise<ContactPoints | null> {
  const entry = await entryFor(key);
  return entry && { work_email: entry.person.work_email ?? null, professional_url: entry.person.professional_url, phone: entry.person.phone ?? null };
}

export const memoryDirectory: DirectoryStore = {
  findByProfessionalUrl: (bareUrl) => entryFor(`url#${bareUrl}`),
  contactByProfessionalUrl: (bareUrl) => contactFor(`url#${bareUrl}`),
  findByEmail: contactFor,
  findByNameAndDomain: contactFor,
  findByNameAndCompany: contactFor,
};
