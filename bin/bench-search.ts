/**
 * Search benchmark over the labelled evaluation set (test/unit/search/evaluation-set.ts):
 * generation and index build time, heap used, in-process latency (parse + search, 100 leads,
 * the first round only warms up), precision and recall per category against the raw records, and the
 * deep-search shortlist's latency (parse + widened recall + fit scores) for both modes over every fourth
 * query.
 * Prints one JSON object; `npm run bench` runs it in a child process per directory size.
 *   tsx bin/bench-search.ts [--people 100000] [--seed 42] [--rounds 5]
 */
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { generateDirectory } from '../shared/directory/generate.js';
import type { DirectoryRecord } from '../shared/directory/types.js';
import { PeopleIndex } from '../shared/search-engine/search-engine.js';
import { parseQuery } from '../shared/search-engine/query.js';
import { deepShortlist } from '../shared/search-engine/deep-search-shortlist.js';
import { DEEP_SEARCH_SIZE } from '../shared/search/deep-search.js';
import { evaluationSet, scoreEvaluation, summarize } from '../test/unit/search/evaluation-set.js';

const { values } = parseArgs({
  options: {
    people: { type: 'string', default: '100000' },
    seed: { type: 'string', default: '42' },
    rounds: { type: 'string', default: '5' },
  },
});

// Heap figures are taken after a full collection, so they count what is kept, not garbage.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heapMb = () => {
  gc();
  return Math.round(process.memoryUsage().heapUsed / 2 ** 20);
};
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return Number(s[Math.min(s.length - 1, Math.floor(p * s.length))]!.toFixed(2));
};

const heapStart = heapMb();
let t = performance.now();
const records: DirectoryRecord[] = [...generateDirectory({ seed: Number(values.seed), people: Number(values.people) })];
const generateMs = Math.round(performance.now() - t);
const heapRecords = heapMb();
const index = PeopleIndex.build(records);
const heapIndexed = heapMb();

const set = evaluationSet(records);
parseQuery('warm up the gazetteer');
const times: number[] = [];
// CPU time of the process per query as well: on a shared machine wall time is mostly waiting for a core.
const cpuTimes: number[] = [];
for (let round = 0; round < Number(values.rounds); round++) {
  for (const e of set) {
    t = performance.now();
    const cpu = process.cpuUsage();
    await index.search(parseQuery(e.query), { limit: 100 });
    const used = process.cpuUsage(cpu);
    if (round > 0) {
      times.push(performance.now() - t);
      cpuTimes.push((used.user + used.system) / 1000);
    }
  }
}

// Deep search dates recency in role from a fixed day, so every run ranks alike.
const asOf = new Date('2026-11-23T00:00:00Z');
const deepQueries = set.filter((_, i) => i % 4 === 0);
await deepShortlist(index, parseQuery(deepQueries[0]!.query), { size: 25, asOf });
const deep: Record<string, { p50_ms: number; p95_ms: number; max_ms: number }> = {};
for (const mode of ['standard', 'extended'] as const) {
  const ms: number[] = [];
  for (const e of deepQueries) {
    const started = performance.now();
    await deepShortlist(index, parseQuery(e.query), { size: DEEP_SEARCH_SIZE[mode], asOf });
    ms.push(performance.now() - started);
  }
  deep[mode] = { p50_ms: pct(ms, 0.5), p95_ms: pct(ms, 0.95), max_ms: pct(ms, 1) };
}

const scores = await scoreEvaluation(set, records, (q) => index.search(parseQuery(q), { limit: Number.MAX_SAFE_INTEGER }));
const round3 = (x: number) => Math.round(x * 1000) / 1000;
console.log(
  JSON.stringify({
    people: index.size,
    seed: Number(values.seed),
    generate_ms: generateMs,
    index_build_ms: index.buildMs,
    heap_used_mb: heapIndexed,
    heap_records_mb: heapRecords - heapStart,
    heap_index_mb: heapIndexed - heapRecords,
    vocabulary: index.vocabulary,
    queries: set.length,
    samples: times.length,
    p50_ms: pct(times, 0.5),
    p95_ms: pct(times, 0.95),
    p99_ms: pct(times, 0.99),
    max_ms: pct(times, 1),
    cpu_p50_ms: pct(cpuTimes, 0.5),
    cpu_p95_ms: pct(cpuTimes, 0.95),
    cpu_p99_ms: pct(cpuTimes, 0.99),
    load_average: Number(loadavg()[0]!.toFixed(1)),
    deep_search: { queries: deepQueries.length, ...deep },
    quality: summarize(scores).map((r) => ({ ...r, precision: round3(r.precision), recall: round3(r.recall) })),
    misses: scores.filter((s) => s.precision < 1 || s.recall < 1),
  }),
);
