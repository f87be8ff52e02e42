import { createHash } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { mkdir, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { deserialize, serialize } from 'node:v8';
import { createGunzip } from 'node:zlib';
import { readObjectStream } from '../adapters/object-store.js';
import { optionalEnv, requireEnv } from '../core/env.js';
import { LookupTable, type LookupTableSnapshot } from '../directory/lookup-table.js';
import { DirectoryRecordSchema, type DirectoryRecord, type Person } from '../directory/types.js';
import { PeopleIndex, SNAPSHOT_FORMAT } from './search-engine.js';
import { registerLoadedDirectory } from './loaded-directory.js';

/**
 * Where the in-memory index (search, and the in-memory directory store's lookups) comes from: the same
 * JSONL the import reads — a local file (`DIRECTORY_FILE`) on the one-machine twin, the import bucket's
 * object (`DIRECTORY_BUCKET`, `DIRECTORY_KEY`) in AWS. Built or loaded once per process and reused.
 *
 * Beside a local file the built index is persisted as `index/people-v<format>-<sha256 of the file>.v8`,
 * so a restart loads it instead of rebuilding, a moved or copied data directory still finds it (the key
 * is the content, not the path or mtime), and a changed file is rebuilt.
 */
export async function* jsonl(stream: NodeJS.ReadableStream): AsyncIterable<DirectoryRecord> {
  const rl = createInterface({ input: stream, crlfDelay: Infinity });
  for await (const line of rl) {
    if (line.trim()) yield DirectoryRecordSchema.parse(JSON.parse(line));
  }
}

function fileStream(file: string): NodeJS.ReadableStream {
  const s = createReadStream(file);
  return file.endsWith('.gz') ? s.pipe(createGunzip()) : s;
}

export async function directoryStream(): Promise<NodeJS.ReadableStream> {
  const file = optionalEnv('DIRECTORY_FILE');
  if (file) {
    if (!existsSync(file)) throw new Error(`DIRECTORY_FILE ${file} does not exist`);
    return fileStream(file);
  }
  const bucket = requireEnv('DIRECTORY_BUCKET');
  const key = requireEnv('DIRECTORY_KEY');
  const body = await readObjectStream(bucket, key);
  return key.endsWith('.gz') ? body.pipe(createGunzip()) : body;
}

export async function readDirectory(): Promise<AsyncIterable<DirectoryRecord>> {
  return jsonl(await directoryStream());
}

/** sha256 of a file's bytes, streamed: the directory's version. */
export async function fileVersion(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

export interface LoadedDirectory {
  index: PeopleIndex;
  lookups: LookupTable;
  /** sha256 of the directory file (null for the import bucket's object). */
  version: string | null;
  /** Whether the index came from a persisted snapshot. */
  fromSnapshot: boolean;
  ms: number;
}

export function snapshotPath(file: string, version: string): string {
  return join(dirname(file), 'index', `people-v${SNAPSHOT_FORMAT}-${version}.v8`);
}

/**
 * The index (and lookup table) of a directory's records. `drop` leaves people out of it (a directory import
 * applies the erasure list so: shared/privacy/directory-erasure.ts); they are returned as `dropped`.
 */
export async function buildFrom(
  records: AsyncIterable<DirectoryRecord> | Iterable<DirectoryRecord>,
  opts: { drop?: (person: Person) => boolean } = {},
): Promise<{ index: PeopleIndex; lookups: LookupTable; dropped: Person[] }> {
  const all: DirectoryRecord[] = [];
  const dropped: Person[] = [];
  for await (const r of records) {
    if (r.type === 'person' && opts.drop?.(r)) dropped.push(r);
    else all.push(r);
  }
  const index = PeopleIndex.build(all);
  return { index, lookups: LookupTable.build(index.size, (i) => index.entryAt(i)), dropped };
}

/**
 * Takes the people whose work email `erased` says is erased out of a loaded index and its lookups (PeopleIndex.remove):
 * the erasure list applied to a directory loaded from its file or snapshot (the twin's start). Reads the lookup
 * table's `email#` keys only, so a start with an empty list costs nothing. Returns the positions it took out.
 */
export function removeErased(directory: Pick<LoadedDirectory, 'index' | 'lookups'>, erased: (email: string) => boolean): number[] {
  const positions: number[] = [];
  for (const { key, position } of directory.lookups.withPrefix('email#')) {
    if (!directory.index.isRemoved(position) && erased(key.slice('email#'.length))) {
      directory.index.remove(position);
      positions.push(position);
    }
  }
  return positions;
}

/** A snapshot file's two parts: the index's own snapshot and the lookup table's. */
function readSnapshotFile(file: Buffer): { index: Buffer; lookups: LookupTableSnapshot } {
  return deserialize(file) as { index: Buffer; lookups: LookupTableSnapshot };
}

/** The search index of a snapshot file's bytes (a local snapshot, or a version's artifact in the directory bucket). */
export function indexFromSnapshotFile(file: Buffer): PeopleIndex {
  return PeopleIndex.fromSnapshot(readSnapshotFile(file).index);
}

/** The snapshot's bytes (what `loadDirectoryFile` reads back), and the index part of it. */
export function serializeIndex(built: { index: PeopleIndex; lookups: LookupTable }): { indexBuffer: Buffer; bytes: Buffer } {
  const indexBuffer = built.index.toSnapshot();
  return { indexBuffer, bytes: serialize({ index: indexBuffer, lookups: built.lookups.toSnapshot() }) };
}

/** Writes the snapshot under a temporary name first, so a crash never leaves a half-written one behind. */
async function persist(path: string, built: { index: PeopleIndex; lookups: LookupTable }): Promise<Buffer> {
  const { indexBuffer, bytes } = serializeIndex(built);
  await mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, bytes);
  await rename(tmp, path);
  for (const name of await readdir(dirname(path))) {
    if (name.startsWith('people-') && join(dirname(path), name) !== path) await rm(join(dirname(path), name), { force: true });
  }
  return indexBuffer;
}

/**
 * The index of a local directory file: loaded from its snapshot when one matches the file's content,
 * else built (from `records` when the caller already holds them, else from the file) and persisted.
 * Either way the index served is the snapshot's form (people kept as JSON, parsed per hit).
 */
export async function loadDirectoryFile(file: string, records?: Iterable<DirectoryRecord>): Promise<LoadedDirectory> {
  const started = performance.now();
  const version = await fileVersion(file);
  const path = snapshotPath(file, version);
  if (existsSync(path)) {
    try {
      const s = readSnapshotFile(await readFile(path));
      return { index: PeopleIndex.fromSnapshot(s.index), lookups: LookupTable.fromSnapshot(s.lookups), version, fromSnapshot: true, ms: Math.round(performance.now() - started) };
    } catch {
      // An unreadable or older-format snapshot is rebuilt below.
    }
  }
  const built = await buildFrom(records ?? jsonl(fileStream(file)));
  const indexBuffer = await persist(path, built);
  return { index: PeopleIndex.fromSnapshot(indexBuffer), lookups: built.lookups, version, fromSnapshot: false, ms: Math.round(performance.now() - started) };
}

let loaded: Promise<LoadedDirectory> | undefined;

/** The process's directory index: the local file's (snapshot-backed) or, in AWS, built from the bucket's object. */
export function loadedDirectory(): Promise<LoadedDirectory> {
  loaded ??= (async () => {
    const file = optionalEnv('DIRECTORY_FILE');
    if (file) {
      if (!existsSync(file)) throw new Error(`DIRECTORY_FILE ${file} does not exist`);
      return loadDirectoryFile(file);
    }
    const started = performance.now();
    const built = await buildFrom(await readDirectory());
    return { ...built, version: null, fromSnapshot: false, ms: Math.round(performance.now() - started) };
  })().catch((e) => {
    loaded = undefined;
    registerLoadedDirectory(undefined);
    throw e;
  });
  registerLoadedDirectory(loaded);
  return loaded;
}

/** Hands the process an index its caller loaded (the local stack's start-up), so nothing loads it twice. */
export function useLoadedDirectory(directory: LoadedDirectory): void {
  loaded = Promise.resolve(directory);
  registerLoadedDirectory(loaded);
}

export async function peopleIndex(): Promise<PeopleIndex> {
  return (await loadedDirectory()).index;
}

/** Local stack restarts and tests that switch directories. */
export function resetPeopleIndex(): void {
  loaded = undefined;
  registerLoadedDirectory(undefined);
}
