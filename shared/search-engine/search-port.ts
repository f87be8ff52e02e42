/**
 * The search port: what people search, deep search and agentic search ask of a search engine. Two engines
 * implement it: the in-memory `PeopleIndex` (search-engine.ts, the embedded default) and the OpenSearch
 * adapter (shared/search-engine/opensearch-engine.ts). Both rank by score descending, then person id ascending.
 */
import type { Company, Person } from '../directory/types.js';
import type { ParsedQuery } from './query.js';

export interface DirectoryEntry {
  person: Person;
  company: Company;
}

export interface SearchHit extends DirectoryEntry {
  /** 0..100 fit signal */
  score: number;
}

/** Where a page ended: its last hit's score and person id. The next page starts strictly after it. */
export interface SearchCursor {
  score: number;
  id: string;
}

export interface SearchOptions {
  limit: number;
  /** Person ids already returned (continuation pages). */
  exclude?: Set<string>;
  /** Only hits ranked after this one (the previous page's `cursorAfter`). */
  after?: SearchCursor;
}

export interface SearchEngine {
  /** The best `limit` people the query describes, in rank order. */
  search(q: ParsedQuery, opts: SearchOptions): Promise<SearchHit[]>;
  /** People by id with their companies, in the order asked; an id nobody holds gives undefined. */
  entries(ids: string[]): Promise<(DirectoryEntry | undefined)[]>;
}

/** The cursor that continues after a page, or undefined for an empty page. */
export function cursorAfter(hits: SearchHit[]): SearchCursor | undefined {
  const last = hits.at(-1);
  return last && { score: last.score, id: last.person.id };
}

/** Whether a hit ranks strictly after the cursor (score descending, then id ascending). */
export function ranksAfter(score: number, id: string, after: SearchCursor): boolean {
  return score < after.score || (score === after.score && id > after.id);
}

/**
 * The 0..100 score both engines give a hit: each required keyword weighs 3 in the title and 2 elsewhere,
 * a canonical title 1 when it is the person's exact title and 0.5 when narrower; `parts` is what the hit
 * earned of the query's `weight`. A query with nothing to score gives every hit 100.
 */
export function rankScore(parts: number, weight: number): number {
  return weight ? Math.round(100 * (0.5 + (0.5 * parts) / weight)) : 100;
}

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
