import { optionalEnv } from '../core/env.js';
import { logger } from '../core/logger.js';
import { deletePersonItems } from '../directory/directory-dynamodb.repository.js';
import { readDirectoryVersion } from '../directory/directory-version.repository.js';
import { normalizeProfessionalUrl } from '../directory/urls.js';
import { loadedDirectoryIfAny } from '../search-engine/loaded-directory.js';

/**
 * An erasure's part in the directory (docs/privacy.md; called by the privacy request's confirm, after
 * `recordOptOut` put the address's hash on the erasure list): the person's directory record, and with it their
 * enrichment data (work email, phone, profile), deleted wherever this process can reach it:
 *
 * 1. The DynamoDB directory store: the person items of the current version and of the version it replaced (still
 *    readable during the switch's grace period, and OpenSearch's rollback), found by profile URL and by the work
 *    email's index. Deleting the item takes its index entries (email, name + domain, name + company) with it.
 * 2. The in-memory index and lookups (the twin's `DIRECTORY_STORE=memory` and in-memory search engine), when this
 *    process has loaded them: the person is taken out of every search and lookup (PeopleIndex.remove).
 * 3. OpenSearch, when it is this process's engine (`SEARCH_ENGINE=opensearch`): the person's documents, by id,
 *    from the indices the `people` alias names.
 *
 * What it cannot reach synchronously: another process's in-memory index (in AWS, the search workers' containers
 * hold the version's index artifact until the next import builds a new one without the person), and a version an
 * import is writing at this moment. Neither ever answers the person: every search, enrichment and outreach path
 * reads the opt-out the confirm recorded first and leaves them out, and every later import (chunks, finalize, the
 * index artifact it builds, the twin's start) drops the people on the erasure list.
 *
 * Idempotent: a confirm retried after a crash deletes what is still there and nothing else.
 */
export async function eraseFromDirectory(profiles: string[], email: string): Promise<void> {
  const urls = [...new Set(profiles.map((p) => normalizeProfessionalUrl(p) ?? p.trim().toLowerCase()))];
  const address = email.trim().toLowerCase();
  const ids = new Set<string>();

  const pointer = await readDirectoryVersion();
  for (const version of pointer ? [pointer.version, pointer.previous] : []) {
    if (version) for (const id of await deletePersonItems(version, urls, address)) ids.add(id);
  }

  const loading = loadedDirectoryIfAny();
  const loaded = loading ? await loading.catch(() => null) : null;
  if (loaded) {
    for (const key of [...urls.map((u) => `url#${u}`), `email#${address}`]) {
      const at = loaded.lookups.find(key);
      if (at < 0) continue;
      ids.add(loaded.index.entryAt(at).person.id);
      loaded.index.remove(at);
    }
  }

  if (optionalEnv('SEARCH_ENGINE') === 'opensearch' && ids.size) {
    const [{ openSearchClient }, { deletePeopleDocuments }] = await Promise.all([import('../adapters/opensearch-client.js'), import('../search-engine/opensearch-documents.js')]);
    await deletePeopleDocuments(openSearchClient(), [...ids]);
  }
  logger.info('directory erasure done', { people: ids.size, versions: pointer ? [pointer.version, pointer.previous].filter(Boolean).length : 0, in_memory: loaded !== null });
}
