import { optionalEnv } from '../core/env.js';
import type { SearchPublisher } from '../search-engine/search-port.js';

export type { SearchPublisher } from '../search-engine/search-port.js';

/** The import's search publisher (the port is in search-engine/search-port.ts): OpenSearch's, or none for the in-memory engine. */
export async function searchPublisher(): Promise<SearchPublisher | null> {
  if (optionalEnv('SEARCH_ENGINE') !== 'opensearch') return null;
  return (await import('../search-engine/opensearch-engine.js')).openSearchPublisher();
}
