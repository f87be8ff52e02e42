/**
 * The in-memory engine's versioned artifact at a directory size: build it (generation, index, lookup table,
 * serialisation: what the import's finalize step does), then load it in a fresh process as the search worker
 * does in AWS and report load time, heap, external buffers, resident memory and its peak during the load.
 *
 *   node --import tsx bin/bench-engine.ts --people 100000            → one JSON line
 *   node --import tsx bin/bench-engine.ts --load <artifact file>      → (the child) one JSON line
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { serialize } from 'node:v8';
import { generateDirectory } from '../shared/directory/generate.js';
import { LookupTable } from '../shared/directory/lookup-table.js';
import { ARTIFACT_BYTES_PER_PERSON, LOAD_PEAK_BYTES_PER_PERSON, MAX_IN_MEMORY_PEOPLE } from '../shared/search-engine/index-artifact.js';
import { indexFromSnapshotFile } from '../shared/search-engine/index-source.js';
import { parseQuery } from '../shared/search-engine/query.js';
import { PeopleIndex } from '../shared/search-engine/search-engine.js';

const { values } = parseArgs({ options: { people: { type: 'string', default: '100000' }, load: { type: 'string' } } });
const mb = (bytes: number) => Math.round(bytes / 2 ** 20);

if (values.load) {
  const before = process.memoryUsage();
  const started = performance.now();
  const index = indexFromSnapshotFile(readFileSync(values.load));
  const loadMs = Math.round(performance.now() - started);
  const searchStarted = performance.now();
  const hits = await index.search(parseQuery('VP of Sales in the United States'), { limit: 25 });
  const firstSearchMs = Math.round(performance.now() - searchStarted);
  globalThis.gc?.();
  const after = process.memoryUsage();
  console.log(
    JSON.stringify({
      people: index.size,
      load_ms: loadMs,
      first_search_ms: firstSearchMs,
      hits: hits.length,
      heap_mb: mb(after.heapUsed - before.heapUsed),
      external_mb: mb(after.external + after.arrayBuffers - before.external - before.arrayBuffers),
      rss_mb: mb(after.rss),
      // ru_maxrss is in kilobytes on Linux.
      peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
    }),
  );
} else {
  const people = Number(values.people);
  const dir = mkdtempSync(join(tmpdir(), 'bench-engine-'));
  try {
    let t = performance.now();
    const records = [...generateDirectory({ seed: 42, people })];
    const generateMs = Math.round(performance.now() - t);
    t = performance.now();
    const index = PeopleIndex.build(records);
    records.length = 0;
    const lookups = LookupTable.build(index.size, (i) => index.entryAt(i));
    const artifact = serialize({ index: index.toSnapshot(), lookups: lookups.toSnapshot() });
    const buildMs = Math.round(performance.now() - t);
    const file = join(dir, 'people.v8');
    writeFileSync(file, artifact);
    const bytes = statSync(file).size;
    const load = JSON.parse(
      execFileSync(process.execPath, ['--expose-gc', '--max-old-space-size=12288', '--import', 'tsx', new URL(import.meta.url).pathname, '--load', file], { encoding: 'utf8', maxBuffer: 16 * 2 ** 20 }).trim().split('\n').at(-1)!,
    );
    const baseline = JSON.parse(
      execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', '-e', 'import("./shared/search-engine/query.js").then(({ parseQuery }) => { parseQuery("warm"); console.log(JSON.stringify({ rss_mb: Math.round(process.memoryUsage().rss / 2 ** 20) })); })'], { encoding: 'utf8' }).trim().split('\n').at(-1)!,
    );
    console.log(
      JSON.stringify({
        people,
        generate_ms: generateMs,
        build_and_serialise_ms: buildMs,
        artifact_mb: mb(bytes),
        artifact_bytes_per_person: Math.round(bytes / people),
        ...load,
        baseline_rss_mb: baseline.rss_mb,
        peak_bytes_per_person: Math.round(((load.peak_rss_mb - baseline.rss_mb) * 2 ** 20) / people),
        assumed: { artifact_bytes_per_person: ARTIFACT_BYTES_PER_PERSON, peak_bytes_per_person: LOAD_PEAK_BYTES_PER_PERSON, max_in_memory_people: MAX_IN_MEMORY_PEOPLE },
      }),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
