/**
 * The search port on OpenSearch (Amazon OpenSearch Serverless or a managed domain): searches read the
 * `people` alias; an import loads a new directory version into its own index and swaps the alias to it in
 * one `_aliases` call. The request bodies come from shared/search-engine/opensearch-query.ts.
 */
import type { Client } from '@opensearch-project/opensearch';
import { logger } from '../core/logger.js';
import type { ParsedQuery } from './query.js';
import {
  MAX_PAGE,
  PEOPLE_ALIAS,
  PEOPLE_MAPPINGS,
  companyNamesBody,
  entriesFrom,
  exactNamesFrom,
  hasSearchTerms,
  hitsFrom,
  lastSortOf,
  namedCompanies,
  peopleDocument,
  searchBody,
  versionIndexName,
  type MgetResponse,
  type SearchResponse,
} from './opensearch-query.js';
import type { DirectoryEntry, SearchEngine, SearchHit, SearchOptions, SearchPublisher } from './search-port.js';
import { openSearchClient } from '../adapters/opensearch-client.js';
import { aliasedIndices as aliasedIndicesOf } from './opensearch-documents.js';

export class OpenSearchEngine implements SearchEngine {
  constructor(
    private readonly client: Client,
    private readonly alias = PEOPLE_ALIAS,
  ) {}

  async search(q: ParsedQuery, opts: SearchOptions): Promise<SearchHit[]> {
    const limit = Math.max(0, Math.floor(opts.limit));
    if (!limit || !hasSearchTerms(q)) return [];
    const names = namedCompanies(q);
    const exactCompanies = names.length ? exactNamesFrom((await this.client.search({ index: this.alias, body: companyNamesBody(names) as never })).body as never) : new Set<string>();
    // One request returns at most MAX_PAGE hits; a longer list continues with `search_after`.
    const hits: SearchHit[] = [];
    let searchAfter: [number, string] | undefined;
    while (hits.length < limit) {
      const body = searchBody(q, { ...opts, limit: limit - hits.length, exactCompanies });
      if (searchAfter) body.search_after = searchAfter;
      const response = (await this.client.search({ index: this.alias, body: body as never })).body as unknown as SearchResponse;
      hits.push(...hitsFrom(response, q));
      searchAfter = lastSortOf(response);
      if (response.hits.hits.length < (body.size as number) || !searchAfter) break;
    }
    return hits;
  }

  async entries(ids: string[]): Promise<(DirectoryEntry | undefined)[]> {
    if (!ids.length) return [];
    const response = (await this.client.mget({ index: this.alias, body: { ids }, _source: ['person', 'company'] } as never)).body as unknown as MgetResponse;
    return entriesFrom(response);
  }
}

let engine: OpenSearchEngine | undefined;

export function openSearchEngine(): OpenSearchEngine {
  engine ??= new OpenSearchEngine(openSearchClient());
  return engine;
}

export interface PublishOptions {
  /** Documents per `_bulk` request. */
  batchSize?: number;
  /** How long to wait for every document to be searchable before the swap (OpenSearch Serverless has no `_refresh`). */
  visibleWithinMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

interface BulkResponse {
  errors: boolean;
  items: { index: { _id: string; status: number; error?: { type: string; reason: string } } }[];
}

/**
 * Loads one directory version into `people-<version>` and swaps the `people` alias to it (the evaluation
 * set's loader; the import does the same in steps: `loadVersionDocuments` per chunk, `swapPeopleAlias` in
 * its finalize step). Safe to run again after a failure at any point: the index is created only when
 * missing, documents are written by person id (the same id, the same document), and the swap names exactly
 * the indices the alias holds at that moment. The version before stays as the rollback (an alias swap
 * back); older versions' indices are deleted.
 */
export async function publishDirectoryVersion(client: Client, version: string, entries: Iterable<DirectoryEntry> | AsyncIterable<DirectoryEntry>, opts: PublishOptions = {}): Promise<{ index: string; people: number }> {
  const index = versionIndexName(version);
  const people = await loadVersionDocuments(client, version, entries, opts);
  const replaced = await swapPeopleAlias(client, version, people, opts);
  const keep = new Set([index, ...replaced]);
  const all = (await client.cat.indices({ index: `${PEOPLE_ALIAS}-*`, format: 'json' } as never)).body as unknown as { index: string }[];
  for (const old of all.map((i) => i.index).filter((i) => !keep.has(i))) await client.indices.delete({ index: old });
  return { index, people };
}

/**
 * Creates the version's index when missing and bulk-indexes `entries` into it by person id; returns how many
 * were indexed. Several writers may load one version at once (the import's chunks): a create that loses the
 * race to another finds the index there, and the same person written twice is the same document.
 */
export async function loadVersionDocuments(client: Client, version: string, entries: Iterable<DirectoryEntry> | AsyncIterable<DirectoryEntry>, opts: PublishOptions = {}): Promise<number> {
  const index = versionIndexName(version);
  const batchSize = opts.batchSize ?? 1_000;
  const sleep = opts.sleep ?? wait;
  if (!(await client.indices.exists({ index })).body) {
    const created = await client.indices.create({ index, body: { mappings: PEOPLE_MAPPINGS } as never }, { ignore: [400] });
    const error = (created.body as { error?: { type?: string } }).error;
    if (created.statusCode === 400 && error?.type !== 'resource_already_exists_exception') throw new Error(`creating ${index} failed: ${JSON.stringify(error)}`);
  }

  let people = 0;
  let batch: DirectoryEntry[] = [];
  const flush = async () => {
    let pending = batch;
    batch = [];
    for (let attempt = 0; pending.length; attempt++) {
      const body = pending.flatMap((e) => [{ index: { _index: index, _id: e.person.id } }, peopleDocument(e)]);
      const response = (await client.bulk({ body: body as never })).body as unknown as BulkResponse;
      if (!response.errors) break;
      // Throttled items are sent again with backoff; any other item error fails the load.
      const failed = response.items.map((item, i) => ({ item: item.index, entry: pending[i]! })).filter((f) => f.item.error);
      const fatal = failed.find((f) => f.item.status !== 429);
      if (fatal || attempt >= 5) throw new Error(`bulk load of ${index} failed for ${fatal?.item._id ?? failed[0]!.item._id}: ${(fatal ?? failed[0]!).item.error!.reason}`);
      pending = failed.map((f) => f.entry);
      await sleep(200 * 2 ** attempt);
    }
  };
  for await (const entry of entries) {
    batch.push(entry);
    people++;
    if (batch.length >= batchSize) await flush();
  }
  await flush();
  return people;
}

/**
 * Waits until the version's index shows exactly `people` documents, then points the `people` alias at it
 * alone in one `_aliases` call (remove every index it held, add the new one: readers see the old version or
 * the new, never both or neither). Returns the indices it replaced. Run again after a swap, it finds the
 * alias on the new index already and sends the same single add.
 */
export async function swapPeopleAlias(client: Client, version: string, people: number, opts: Pick<PublishOptions, 'visibleWithinMs' | 'sleep'> = {}): Promise<string[]> {
  const index = versionIndexName(version);
  const sleep = opts.sleep ?? wait;
  const deadline = Date.now() + (opts.visibleWithinMs ?? 120_000);
  for (;;) {
    const { count } = (await client.count({ index })).body as { count: number };
    if (count === people) break;
    if (count > people) throw new Error(`${index} holds ${count} documents, more than the ${people} of version ${version}`);
    if (Date.now() > deadline) throw new Error(`${index} shows ${count} of ${people} documents after waiting; the alias was not swapped`);
    await sleep(1_000);
  }

  const held = await aliasedIndices(client);
  const replaced = held.filter((i) => i !== index);
  const actions: Record<string, unknown>[] = replaced.map((i) => ({ remove: { index: i, alias: PEOPLE_ALIAS } }));
  actions.push({ add: { index, alias: PEOPLE_ALIAS } });
  await client.indices.updateAliases({ body: { actions } as never });
  logger.info('people alias swapped', { version, index, people, replaced });
  return replaced;
}

/** Deletes a version's index (a version no one reads any more); an index already gone is not an error. */
export async function dropVersionIndex(client: Client, version: string): Promise<void> {
  await client.indices.delete({ index: versionIndexName(version) }, { ignore: [404] });
}

/**
 * Deletes people's documents (by person id) from every index the `people` alias names (an erasure,
 * shared/privacy/directory-erasure.ts); a document already gone is fine. Returns how many were deleted. An index
 * an import is still loading is left alone: its swap waits for an exact count, and the import's own chunks apply
 * the erasure list.
 */
export { deletePeopleDocuments } from './opensearch-documents.js';

/** The import's side of the engine (the SearchPublisher port of search-engine/search-port.ts) on the process's client. */
export function openSearchPublisher(client: Client = openSearchClient()): SearchPublisher {
  return {
    load: (version, entries) => loadVersionDocuments(client, version, entries),
    swap: async (version, people) => (await swapPeopleAlias(client, version, people)).map(versionOfIndex),
    drop: (version) => dropVersionIndex(client, version),
  };
}

const versionOfIndex = (index: string) => index.slice(PEOPLE_ALIAS.length + 1);

const aliasedIndices = (client: Client) => aliasedIndicesOf(client);
