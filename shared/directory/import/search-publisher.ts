import { optionalEnv } from '../../core/env.js';
import type { DirectoryEntry } from '../../search/search-port.js';

/**
 * What an import does to a search engine that holds its own copy of the directory (OpenSearch): each people
 * chunk loads its people into the version's index, the finalize step points searches at that index and drops
 * the indices no one reads any more. The in-memory engine needs none of it (its index is the artifact built
 * by the finalize step), so there is no publisher then.
 */
export interface SearchPublisher {
  /** Index these people under `version` (idempotent by person id); returns how many were sent. */
  load(version: string, entries: DirectoryEntry[]): Promise<number>;
  /** Point searches at `version` once its index shows exactly `people` documents; returns the versions it replaced. */
  swap(version: string, people: number): Promise<string[]>;
  /** Delete a version's index; one already gone is fine. */
  drop(version: string): Promise<void>;
}

export async function searchPublisher(): Promise<SearchPublisher | null> {
  if (optionalEnv('SEARCH_ENGINE') !== 'opensearch') return null;
  return (await import('../../adapters/opensearch-engine.js')).openSearchPublisher();
}
