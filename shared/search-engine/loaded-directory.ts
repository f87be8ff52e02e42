import type { LookupTable } from '../directory/lookup-table.js';
import type { PeopleIndex } from './search-engine.js';

/**
 * The directory index this process loaded (index-source.ts registers it), readable without loading anything: an
 * erasure (shared/privacy/directory-erasure.ts) takes a person out of it when there is one, and a function that
 * never loaded an index does not bundle the loader.
 */
export interface LoadedIndex {
  index: PeopleIndex;
  lookups: LookupTable;
}

let current: Promise<LoadedIndex> | undefined;

export function registerLoadedDirectory(loading: Promise<LoadedIndex> | undefined): void {
  current = loading;
}

/** The process's directory index if it loaded (or is loading) one, without starting a load. */
export function loadedDirectoryIfAny(): Promise<LoadedIndex> | undefined {
  return current;
}
