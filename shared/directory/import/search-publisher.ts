import { optionalEnv } from '../../core/env.js';
import type { SearchPublisher } from '../../search/search-port.js';

export type { SearchPublisher } from '../../search/search-port.js';

/** The import's search publisher (the port is in search/search-port.ts): OpenSearch's, or none for the in-memory engine. */
export async function searchPublisher(): Promise<SearchPublisher | null> {
  if (optionalEnv('SEARCH_ENGINE') !== 'opensearch') return null;
  return (await import('../../adapters/opensearch-engine.js')).openSearchPublisher();
}
