import { artifactKey } from '../search-engine/index-artifact.js';
import { sendMessage } from '../adapters/queue.js';
import { messages } from '../catalog/messages.js';
import { optionalEnv } from '../core/env.js';
import { logger } from '../core/logger.js';
import { buildFrom, jsonl, serializeIndex } from '../search-engine/index-source.js';
import { readDirectoryVersion, switchDirectoryVersion } from '../directory/directory-version.repository.js';
import { getImport, recordImportFailure, updateImport, type ImportStatus } from './import-status.repository.js';
import { emitImportMetrics } from './import-metrics.js';
import { sourceReader } from './import-source.js';
import { deletePeopleOfVersion } from '../directory/directory-dynamodb.repository.js';
import type { Person } from '../directory/types.js';
import { addressHash, erasureSuppressionEntries } from '../privacy/opt-outs.repository.js';
import { searchPublisher, type SearchPublisher } from './search-publisher.js';

/**
 * Beyond this many people the in-memory search index does not fit one Lambda (about 3.2 GB of heap per
 * million people; 10 GB is Lambda's most), so no artifact is built: search at that size is OpenSearch's.
 */
export const ARTIFACT_MAX_PEOPLE = 2_000_000;

/** Building the index: about 3.2 GB of heap per million people, beside the process's own baseline. */
const BUILD_BYTES_PER_PERSON = 3_200;
const BUILD_RESERVED_MB = 512;

/**
 * The most people this process builds an artifact for: ARTIFACT_MAX_PEOPLE, fewer when Lambda gives the function
 * less memory (the stack caps it at `-c maxLambdaMemoryMb`, 3,008 MB by default: about 817,000 people), so a
 * large directory is switched without an artifact instead of running the finalize step out of memory. Off
 * Lambda (no AWS_LAMBDA_FUNCTION_MEMORY_SIZE) the limit is ARTIFACT_MAX_PEOPLE.
 */
export function artifactMaxPeople(memoryMb = Number(optionalEnv('AWS_LAMBDA_FUNCTION_MEMORY_SIZE') ?? 0)): number {
  if (!memoryMb) return ARTIFACT_MAX_PEOPLE;
  const fits = Math.floor(((memoryMb - BUILD_RESERVED_MB) * 2 ** 20) / BUILD_BYTES_PER_PERSON / 1_000) * 1_000;
  return Math.max(0, Math.min(ARTIFACT_MAX_PEOPLE, fits));
}

/** Parallel-scan segments of a version's deletion: each message deletes one segment, resumed by the next. */
export const CLEANUP_SEGMENTS = 16;

/** The import bucket's key (or, on the twin, the path under the data directory) of a version's search index. */
/** Where the search worker looks for a version's index. */
export const indexArtifactName = artifactKey;

/**
 * How long a replaced version stays readable after the switch: containers cache the pointer for 30 s, and
 * a lookup that read the pointer just before the switch must still find its version. SQS delays a message
 * by at most 900 s, which is where the default comes from.
 */
const graceSeconds = () => Number(optionalEnv('DIRECTORY_GRACE_SECONDS') ?? 900);

/**
 * Finish a directory import whose every chunk is written.
 *
 * 1. Nothing to do when it is complete or superseded already (a redelivery); refuse when a chunk is missing.
 * 2. In-memory search engine: read the whole source once more and build the search index from it (up to
 *    artifactMaxPeople()), without the people on the erasure list (docs/privacy.md): the people it holds and left
 *    out must be the people the chunks wrote and left out, else the import fails without switching. People erased
 *    after the import was planned, whom a chunk may have written, are deleted from the version's items. Store it as `index/people-v<format>-<version>.v8` beside the source.
 *    OpenSearch: the chunks loaded the version's index already; when the pointer names no later import,
 *    swap the `people` alias to it (which waits for its count to equal the people the chunks counted).
 *    The swap comes before the pointer, so lookups never name a version search cannot find; a crash between
 *    the two is healed by the redelivery, whose swap finds the alias in place.
 * 3. Switch the pointer (conditional: never over an import planned later; then this one is superseded and
 *    its own items, artifact and index are deleted instead).
 * 4. Mark it complete and queue the deletion of the version it replaced, after the grace period. The replaced
 *    version's OpenSearch index goes at once (searches read the alias, which left it in step 2); its artifact
 *    stays for the containers that loaded it, and goes at the next switch.
 */
export async function finalizeImport(version: string, opts: { now: () => Date }): Promise<void> {
  const status = await getImport(version);
  if (!status) throw new Error(`directory import ${version}: no status item`);
  if (status.state === 'complete' || status.state === 'superseded') return;
  if (status.chunks_done !== status.chunks_total) throw new Error(`directory import ${version}: ${status.chunks_done} of ${status.chunks_total} chunks written`);
  await updateImport(version, { state: 'finalizing' }, opts.now(), ['running', 'failed', 'finalizing']);

  const started = performance.now();
  const reader = sourceReader(status.source);
  const publisher = await searchPublisher();
  // The erasure list (docs/privacy.md) as it stands now. The chunks applied it as it stood when each ran, so an
  // address erased after the import was planned may be in the version's items: those are deleted here (late).
  const erased = await erasureSuppressionEntries();
  const isErased = (p: Person) => p.work_email !== null && erased.has(addressHash(p.work_email));
  const late = new Set([...erased].filter(([, at]) => at >= status.planned_at).map(([hash]) => hash));
  const isLate = (p: Person) => p.work_email !== null && late.has(addressHash(p.work_email));
  let artifact: string | null = null;
  if (publisher) {
    const current = await readDirectoryVersion();
    if (current && current.version !== version && current.planned_at > status.planned_at) return supersede(status, null, publisher);
    if (late.size) {
      // The version's OpenSearch index keeps them until the next import (the swap counts what the chunks loaded);
      // every search leaves out the people who opted out, erased ones included.
      const lateErased: Person[] = [];
      for await (const r of jsonl(await reader.stream())) if (r.type === 'person' && isLate(r)) lateErased.push(r);
      await deletePeopleOfVersion(version, lateErased);
    }
    await publisher.swap(version, status.people_written);
  } else if (status.people_written <= artifactMaxPeople()) {
    const built = await buildFrom(jsonl(await reader.stream()), { drop: isErased });
    // The file's people, counted two ways: what the index holds and left out, what the chunks wrote and left out.
    const chunksCounted = status.people_written + (status.people_suppressed ?? 0);
    if (built.index.size + built.dropped.length !== chunksCounted) {
      const error = `the file holds ${built.index.size + built.dropped.length} people but the chunks counted ${chunksCounted}`;
      await recordImportFailure(version, error, opts.now());
      emitImportMetrics(version, { ImportsFailed: 1 });
      logger.error('directory import failed its count check; the pointer stays', { version, error });
      return;
    }
    await deletePeopleOfVersion(version, built.dropped.filter(isLate));
    artifact = await reader.putArtifact(indexArtifactName(version), serializeIndex(built).bytes);
  } else {
    logger.warn('directory too large for the in-memory search index; no artifact built', { version, people: status.people_written, limit: artifactMaxPeople() });
  }

  const switched = await switchDirectoryVersion({ version, people: status.people_written, planned_at: status.planned_at, index_artifact: artifact }, opts.now());
  if (switched === 'superseded') {
    // A later import switched between the check above and now: searches go back to the version lookups read.
    const winner = (await readDirectoryVersion())!;
    if (publisher) await publisher.swap(winner.version, winner.people);
    return supersede(status, artifact, publisher);
  }
  await updateImport(version, { state: 'complete', finished_at: opts.now().toISOString(), previous: switched.previous, index_artifact: artifact }, opts.now());
  emitImportMetrics(version, { ImportsCompleted: 1 });
  logger.info('directory version switched', { version, previous: switched.previous, people: status.people_written, artifact, ms: Math.round(performance.now() - started) });
  if (!switched.previous || switched.previous === version) return;
  if (publisher) await publisher.drop(switched.previous);
  await queueCleanup(switched.previous, graceSeconds());
  await dropArtifactBefore(switched.previous);
}

async function supersede(status: ImportStatus, artifact: string | null, publisher: SearchPublisher | null): Promise<void> {
  const now = new Date();
  await updateImport(status.version, { state: 'superseded', finished_at: now.toISOString(), index_artifact: artifact }, now);
  await publisher?.drop(status.version);
  if (artifact) await sourceReader(status.source).deleteArtifact(artifact);
  await queueCleanup(status.version, 0);
  logger.warn('directory import superseded by a newer one; its items will be deleted', { version: status.version });
}

/**
 * Deletes the artifact of the version `replaced` replaced: two switches ago, so every container has long moved
 * past it (they recheck the pointer every minute). The current version's artifact is never deleted here, and
 * the bucket's lifecycle rule only expires what this made noncurrent.
 */
async function dropArtifactBefore(replaced: string): Promise<void> {
  const older = (await getImport(replaced))?.previous;
  const stale = older ? await getImport(older) : null;
  if (stale?.index_artifact) await sourceReader(stale.source).deleteArtifact(stale.index_artifact);
}

async function queueCleanup(version: string, delaySeconds: number): Promise<void> {
  await Promise.all(Array.from({ length: CLEANUP_SEGMENTS }, (_, s) => sendMessage('directory-import', messages.directoryCleanup(version, s, CLEANUP_SEGMENTS), delaySeconds)));
}
