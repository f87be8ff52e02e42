/**
 * Which search engine answers this process (`SEARCH_ENGINE`):
 * - `memory` (the default): the in-memory `PeopleIndex` — locally the snapshot beside `DIRECTORY_FILE`
 *   (index-source.ts); in AWS the current directory version's artifact from `DIRECTORY_BUCKET`
 *   (index-artifact.ts), refreshed when the version changes;
 * - `opensearch`: the OpenSearch adapter on `OPENSEARCH_URL`, reading the `people` alias.
 */
import { objectSize, readObjectBytes } from '../adapters/object-store.js';
import { optionalEnv, requireEnv } from '../core/env.js';
import { MAX_IN_MEMORY_PEOPLE, SearchIndexRefused, VersionedIndex } from '../search-engine/index-artifact.js';
import { peopleIndex } from '../search-engine/index-source.js';
import type { JobOutcome } from '../jobs/run-job.js';
import type { SearchEngine } from '../search-engine/search-port.js';

/** Reads the directory pointer: the version lookups see now, or null before the first import. */
export type CurrentDirectoryVersion = () => Promise<string | null>;

let currentVersion: CurrentDirectoryVersion | undefined;

/** Names the pointer the in-memory engine follows in AWS (the search worker wires the directory's). */
export function useDirectoryVersion(source: CurrentDirectoryVersion): void {
  currentVersion = source;
}

/** How long a container serves the version it loaded before asking the pointer again. */
export const VERSION_RECHECK_MS = 60_000;

let versioned: VersionedIndex | undefined;

function versionedIndex(): VersionedIndex {
  const bucket = requireEnv('DIRECTORY_BUCKET');
  versioned ??= new VersionedIndex(
    {
      currentVersion: () => {
        if (!currentVersion) throw new SearchIndexRefused('no_directory_version', 'no directory version source is wired into this function');
        return currentVersion();
      },
      size: (key) => objectSize(bucket, key),
      read: (key) => readObjectBytes(bucket, key),
    },
    { recheckMs: VERSION_RECHECK_MS, maxPeople: MAX_IN_MEMORY_PEOPLE },
  );
  return versioned;
}

export async function searchEngine(): Promise<SearchEngine> {
  const engine = optionalEnv('SEARCH_ENGINE') ?? 'memory';
  if (engine === 'opensearch') return (await import('../search-engine/opensearch-engine.js')).openSearchEngine();
  if (engine !== 'memory') throw new Error(`SEARCH_ENGINE ${engine} is neither memory nor opensearch`);
  if (optionalEnv('DIRECTORY_FILE')) return peopleIndex();
  return versionedIndex().current();
}

/**
 * A job's work with the engine; an engine that refuses to load (index-artifact.ts) fails the job at once with
 * the contract's `error` and its reason kept on the job item as `failure_reason`: retrying cannot help.
 */
export async function withSearchEngine(failure: { event_type: string; message: string }, work: (engine: SearchEngine) => Promise<JobOutcome>): Promise<JobOutcome> {
  let engine: SearchEngine;
  try {
    engine = await searchEngine();
  } catch (e) {
    if (!(e instanceof SearchIndexRefused)) throw e;
    return { status: 'failed', event_type: failure.event_type, code: 'error', message: failure.message, extra: { failure_reason: e.reason } };
  }
  return work(engine);
}
