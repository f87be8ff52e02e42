/**
 * The in-memory engine's versioned artifact in AWS (shared/search-engine/index-artifact.ts), against an in-memory
 * artifact source: loaded once per version, the pointer asked again only after the re-check interval, a new
 * version loaded in place of the old, and every refusal named.
 */
import { serialize } from 'node:v8';
import { generateDirectory } from '../../../shared/directory/generate.js';
import { ARTIFACT_BYTES_PER_PERSON, MAX_IN_MEMORY_PEOPLE, SearchIndexRefused, VersionedIndex, artifactKey, type ArtifactSource } from '../../../shared/search-engine/index-artifact.js';
import { withSearchEngine } from '../../../shared/search/engine-source.js';
import { parseQuery } from '../../../shared/search-engine/query.js';
import { PeopleIndex, SNAPSHOT_FORMAT } from '../../../shared/search-engine/search-engine.js';

const artifactOf = (people: number, seed: number) => serialize({ index: PeopleIndex.build(generateDirectory({ seed, people })).toSnapshot(), lookups: null });
const small = artifactOf(300, 1);
const other = artifactOf(200, 2);

class Bucket implements ArtifactSource {
  version: string | null = 'v1';
  readonly objects = new Map<string, Buffer>([
    [artifactKey('v1'), small],
    [artifactKey('v2'), other],
  ]);
  pointerReads = 0;
  reads: string[] = [];
  sizeOverride: number | undefined;
  async currentVersion() {
    this.pointerReads++;
    return this.version;
  }
  async size(key: string) {
    return this.objects.has(key) ? (this.sizeOverride ?? this.objects.get(key)!.length) : null;
  }
  async read(key: string) {
    this.reads.push(key);
    return this.objects.get(key)!;
  }
}

describe('versioned index artifact', () => {
  it('is named by snapshot format and version under the index prefix', () => {
    expect(artifactKey('abc')).toBe(`index/people-v${SNAPSHOT_FORMAT}-abc.v8`);
    expect(MAX_IN_MEMORY_PEOPLE).toBeGreaterThan(100_000);
  });

  it('loads the current version once, asks again only after the re-check interval, and reloads when it changed', async () => {
    const bucket = new Bucket();
    let now = 0;
    const versioned = new VersionedIndex(bucket, { recheckMs: 60_000, maxPeople: 1_000, now: () => now });
    const [a, b] = await Promise.all([versioned.current(), versioned.current()]);
    expect(a).toBe(b);
    expect(a.size).toBe(300);
    expect(bucket.reads).toEqual([artifactKey('v1')]);
    now = 59_999;
    expect(await versioned.current()).toBe(a);
    expect(bucket.pointerReads).toBe(1);
    now = 60_000;
    expect(await versioned.current()).toBe(a);
    expect(bucket.pointerReads).toBe(2);
    expect(bucket.reads).toHaveLength(1);

    bucket.version = 'v2';
    now = 120_000;
    const next = await versioned.current();
    expect(next.size).toBe(200);
    expect(bucket.reads).toEqual([artifactKey('v1'), artifactKey('v2')]);
    const q = parseQuery('engineers');
    expect((await next.search(q, { limit: 5 })).length).toBeGreaterThan(0);
  });

  it('refuses, by name, no current version, a version without an artifact, and a directory over the limit', async () => {
    const refusal = async (bucket: Bucket, maxPeople = 1_000) => {
      const e = await new VersionedIndex(bucket, { recheckMs: 60_000, maxPeople }).current().catch((err: unknown) => err);
      expect(e).toBeInstanceOf(SearchIndexRefused);
      return (e as SearchIndexRefused).reason;
    };
    const none = new Bucket();
    none.version = null;
    expect(await refusal(none)).toBe('no_directory_version');
    const missing = new Bucket();
    missing.version = 'v3';
    expect(await refusal(missing)).toBe('index_artifact_missing');
    // Too large by its size: refused before a byte is read.
    const big = new Bucket();
    big.sizeOverride = 1_001 * ARTIFACT_BYTES_PER_PERSON;
    expect(await refusal(big)).toBe('directory_too_large');
    expect(big.reads).toEqual([]);
    // Too large by its count of people once loaded.
    const many = new Bucket();
    many.sizeOverride = 1;
    expect(await refusal(many, 299)).toBe('directory_too_large');
    expect(many.reads).toEqual([artifactKey('v1')]);
  });

  it('a job whose engine refuses to load fails at once with the contract error and its reason', async () => {
    const saved = { ...process.env };
    delete process.env.DIRECTORY_FILE;
    delete process.env.SEARCH_ENGINE;
    process.env.DIRECTORY_BUCKET = 'directory-bucket';
    try {
      let ran = false;
      const outcome = await withSearchEngine({ event_type: 'search.failed', message: 'people search failed, retry' }, async () => {
        ran = true;
        throw new Error('unreachable');
      });
      expect(ran).toBe(false);
      expect(outcome).toEqual({ status: 'failed', event_type: 'search.failed', code: 'error', message: 'people search failed, retry', extra: { failure_reason: 'no_directory_version' } });
    } finally {
      process.env = saved;
    }
  });
});
