/**
 * The two search engines side by side at one directory size, in one run: the in-memory engine and a live
 * OpenSearch node on loopback (shared/local/opensearch-node.ts). Reports index build (memory) and load
 * (OpenSearch, through the import's loader) times, p50/p95/p99 of the labelled evaluation set on both, the
 * node's heap from `_nodes/stats/jvm`, and the loader's documents per second beside raw `_bulk` of the same
 * documents (the physical reference), plus a `match_all` round trip as the search's floor.
 *
 *   node --import tsx bin/bench-opensearch.ts --people 100000 [--heap 1g]   → progress on stderr, one JSON line
 */
import { Client } from '@opensearch-project/opensearch';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { OpenSearchEngine, loadVersionDocuments, swapPeopleAlias } from '../shared/search-engine/opensearch-engine.js';
import { generateDirectory } from '../shared/directory/generate.js';
import { startOpenSearchNode } from '../shared/local/opensearch-node.js';
import { PEOPLE_MAPPINGS, peopleDocument } from '../shared/search-engine/opensearch-query.js';
import { parseQuery } from '../shared/search-engine/query.js';
import { PeopleIndex } from '../shared/search-engine/search-engine.js';
import { evaluationSet } from '../test/unit/search/evaluation-set.js';

const { values } = parseArgs({ options: { people: { type: 'string', default: '100000' }, heap: { type: 'string', default: '1g' } } });
const people = Number(values.people);
const log = (m: string) => process.stderr.write(`${m}\n`);
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return Number(s[Math.min(s.length - 1, Math.floor(p * s.length))]!.toFixed(2));
};
const percentiles = (xs: number[]) => ({ p50_ms: pct(xs, 0.5), p95_ms: pct(xs, 0.95), p99_ms: pct(xs, 0.99) });
const LIMIT = 25;

const records = [...generateDirectory({ seed: 42, people })];
const set = evaluationSet(records);
let t = performance.now();
const index = PeopleIndex.build(records);
const memoryBuildMs = Math.round(performance.now() - t);
const entries = Array.from({ length: index.size }, (_, i) => index.entryAt(i));
log(`memory index: ${index.size} people in ${memoryBuildMs} ms`);

const dir = mkdtempSync(join(tmpdir(), 'bench-opensearch-'));
t = performance.now();
const node = await startOpenSearchNode({ dataDir: dir, heap: values.heap });
const nodeStartMs = Math.round(performance.now() - t);
log(`node up in ${nodeStartMs} ms at ${node.url}`);
const client = new Client({ node: node.url });
try {
  // The import's loader (batches of 1,000 by person id), then the swap (waits for every document to be searchable).
  t = performance.now();
  await loadVersionDocuments(client, 'bench', entries);
  const loadMs = performance.now() - t;
  await swapPeopleAlias(client, 'bench', entries.length, { sleep: (ms) => new Promise((r) => setTimeout(r, Math.min(ms, 200))) });
  const loadAndVisibleMs = Math.round(performance.now() - t);
  log(`loader: ${Math.round(loadMs)} ms (${Math.round(entries.length / (loadMs / 1000))} docs/s), searchable after ${loadAndVisibleMs} ms`);

  // The physical reference: the same documents as raw `_bulk` bodies, serialised beforehand, same batch size.
  await client.indices.create({ index: 'raw-bulk', body: { mappings: PEOPLE_MAPPINGS } as never });
  const bodies: string[] = [];
  for (let i = 0; i < entries.length; i += 1_000)
    bodies.push(entries.slice(i, i + 1_000).map((e) => `${JSON.stringify({ index: { _index: 'raw-bulk', _id: e.person.id } })}\n${JSON.stringify(peopleDocument(e))}\n`).join(''));
  t = performance.now();
  for (const body of bodies) {
    const r = await fetch(`${node.url}/_bulk`, { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body });
    if (!r.ok || ((await r.json()) as { errors: boolean }).errors) throw new Error('raw _bulk failed');
  }
  const rawMs = performance.now() - t;
  log(`raw _bulk: ${Math.round(rawMs)} ms (${Math.round(entries.length / (rawMs / 1000))} docs/s)`);
  await client.indices.delete({ index: 'raw-bulk' });

  // The evaluation set on both engines, each query once to warm up, then timed.
  const engine = new OpenSearchEngine(client);
  const queries = set.map((e) => parseQuery(e.query));
  const time = async (run: (i: number) => Promise<unknown>) => {
    for (let i = 0; i < queries.length; i++) await run(i);
    const ms: number[] = [];
    for (let i = 0; i < queries.length; i++) {
      const s = performance.now();
      await run(i);
      ms.push(performance.now() - s);
    }
    return ms;
  };
  const memoryMs = await time((i) => index.search(queries[i]!, { limit: LIMIT }));
  const liveMs = await time((i) => engine.search(queries[i]!, { limit: LIMIT }));
  const floorMs = await time(() => client.search({ index: 'people', body: { size: LIMIT, query: { match_all: {} } } }));
  let same = 0;
  for (const q of queries) if (JSON.stringify((await index.search(q, { limit: LIMIT })).map((h) => h.person.id)) === JSON.stringify((await engine.search(q, { limit: LIMIT })).map((h) => h.person.id))) same++;

  const stats = (await client.nodes.stats({ metric: ['jvm'] })).body as { nodes: Record<string, { jvm: { mem: { heap_used_in_bytes: number; heap_max_in_bytes: number } } }> };
  const heap = Object.values(stats.nodes)[0]!.jvm.mem;
  const store = (await client.indices.stats({ index: 'people', metric: ['store'] } as never)).body as { _all: { primaries: { store: { size_in_bytes: number } } } };
  const mb = (b: number) => Math.round(b / 2 ** 20);
  console.log(
    JSON.stringify({
      people: entries.length,
      queries: queries.length,
      limit: LIMIT,
      memory: { build_ms: memoryBuildMs, ...percentiles(memoryMs) },
      opensearch: {
        node_start_ms: nodeStartMs,
        load_ms: Math.round(loadMs),
        load_and_searchable_ms: loadAndVisibleMs,
        loader_docs_per_s: Math.round(entries.length / (loadMs / 1000)),
        raw_bulk_docs_per_s: Math.round(entries.length / (rawMs / 1000)),
        ...percentiles(liveMs),
        match_all_floor: percentiles(floorMs),
        heap_used_mb: mb(heap.heap_used_in_bytes),
        heap_max_mb: mb(heap.heap_max_in_bytes),
        store_mb: mb(store._all.primaries.store.size_in_bytes),
      },
      same_first_page: same,
    }),
  );
} finally {
  await client.close();
  await node.stop();
  rmSync(dir, { recursive: true, force: true });
}
