/**
 * The in-memory engine in AWS: the import's finalize step writes each directory version's prebuilt index to
 * the directory bucket as `index/people-v<SNAPSHOT_FORMAT>-<version>.v8` (the same bytes as a local snapshot,
 * index-source.ts). A container loads the artifact of the current version once, asks for the current version
 * again at most every `recheckMs`, and loads the new artifact when the version changed. It never rebuilds
 * from the JSONL: no artifact for the current version, or a directory larger than the engine can hold, is a
 * `SearchIndexRefused` with a named reason.
 */
import { INDEX_ARTIFACT_PREFIX } from '../catalog/bindings.js';
import { logger } from '../core/logger.js';
import { indexFromSnapshotFile } from './index-source.js';
import { SNAPSHOT_FORMAT, type PeopleIndex } from './search-engine.js';

export const artifactKey = (version: string): string => `${INDEX_ARTIFACT_PREFIX}people-v${SNAPSHOT_FORMAT}-${version}.v8`;

/**
 * Measured with bin/bench-engine.ts (seed 42, 100,000, 300,000 and 1,000,000 people): the artifact takes
 * 1,749–1,750 bytes per person; loading it in a fresh process peaked at 3,334, 4,247 and 4,571 bytes per person
 * of resident memory above the process's baseline (the artifact's buffer, the index buffer copied out of it
 * and the loaded index are alive together for a moment). The largest figure, rounded up, is the budget.
 */
export const ARTIFACT_BYTES_PER_PERSON = 1_750;
export const LOAD_PEAK_BYTES_PER_PERSON = 4_600;
/** The search worker's memory (shared/catalog/queues.ts). */
const WORKER_MEMORY_MB = 2_048;
/** Node, the query parser's gazetteer (≈155 MB resident, measured) and a job's own work, with room to spare. */
const RESERVED_MB = 448;
/** The most people one search-worker container loads: (2,048 − 448) MB / 4,600 B ≈ 364,722, rounded down to 364,000. */
export const MAX_IN_MEMORY_PEOPLE = Math.floor(((WORKER_MEMORY_MB - RESERVED_MB) * 2 ** 20) / LOAD_PEAK_BYTES_PER_PERSON / 1_000) * 1_000;

export type RefusalReason = 'no_directory_version' | 'index_artifact_missing' | 'directory_too_large';

export class SearchIndexRefused extends Error {
  constructor(
    readonly reason: RefusalReason,
    message: string,
  ) {
    super(message);
    this.name = 'SearchIndexRefused';
  }
}

/** Where the versions and their artifacts are: the directory pointer and the directory bucket. */
export interface ArtifactSource {
  /** The directory version lookups read now, or null before the first import. */
  currentVersion(): Promise<string | null>;
  /** An object's size in bytes, or null when there is none. */
  size(key: string): Promise<number | null>;
  read(key: string): Promise<Buffer>;
}

export interface VersionedIndexOptions {
  /** How long a container trusts the version it loaded before asking again. */
  recheckMs: number;
  maxPeople: number;
  now?: () => number;
}

export class VersionedIndex {
  private loaded: { version: string; index: PeopleIndex } | undefined;
  private checkedAt = -Infinity;
  private refreshing: Promise<PeopleIndex> | undefined;
  private readonly now: () => number;

  constructor(
    private readonly source: ArtifactSource,
    private readonly opts: VersionedIndexOptions,
  ) {
    this.now = opts.now ?? Date.now;
  }

  /** The index of the current version; concurrent callers share one check and one load. */
  current(): Promise<PeopleIndex> {
    if (this.loaded && this.now() - this.checkedAt < this.opts.recheckMs) return Promise.resolve(this.loaded.index);
    this.refreshing ??= this.refresh().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  private async refresh(): Promise<PeopleIndex> {
    const version = await this.source.currentVersion();
    if (!version) throw refuse('no_directory_version', 'no directory version is current: no import has finished');
    if (this.loaded?.version === version) {
      this.checkedAt = this.now();
      return this.loaded.index;
    }
    // The old index goes before the new one loads: a container never holds two.
    this.loaded = undefined;
    const started = performance.now();
    const key = artifactKey(version);
    const bytes = await this.source.size(key);
    if (bytes === null) throw refuse('index_artifact_missing', `no search index artifact ${key} for directory version ${version}`, { version });
    const maxBytes = this.opts.maxPeople * ARTIFACT_BYTES_PER_PERSON;
    if (bytes > maxBytes) {
      throw refuse('directory_too_large', `the search index artifact of version ${version} (${bytes} bytes, about ${Math.round(bytes / ARTIFACT_BYTES_PER_PERSON)} people) is over the in-memory engine's ${this.opts.maxPeople} people`, { version, bytes, maxPeople: this.opts.maxPeople });
    }
    const index = indexFromSnapshotFile(await this.source.read(key));
    if (index.size > this.opts.maxPeople) {
      throw refuse('directory_too_large', `directory version ${version} holds ${index.size} people, over the in-memory engine's ${this.opts.maxPeople}`, { version, people: index.size, maxPeople: this.opts.maxPeople });
    }
    this.loaded = { version, index };
    this.checkedAt = this.now();
    logger.info('search index loaded', { version, people: index.size, bytes, ms: Math.round(performance.now() - started) });
    return index;
  }
}

function refuse(reason: RefusalReason, message: string, detail: Record<string, unknown> = {}): SearchIndexRefused {
  logger.error('search index refused', { reason, why: message, ...detail });
  return new SearchIndexRefused(reason, message);
}
