import { artifactKey } from '../../search/index-artifact.js';
import { sendMessage } from '../../adapters/queue.js';
import { messages } from '../../catalog/messages.js';
import { optionalEnv } from '../../core/env.js';
import { logger } from '../../core/logger.js';
import { buildFrom, jsonl, serializeIndex } from '../../search/index-source.js';
import { switchDirectoryVersion } from '../directory-version.repository.js';
import { getImport, recordImportFailure, updateImport } from '../import-status.repository.js';
import { emitImportMetrics } from './import-metrics.js';
import { sourceReader } from './import-source.js';

/**
 * Beyond this many people the in-memory search index does not fit one Lambda (about 3.2 GB of heap per
 * million people; 10 GB is Lambda's most), so no artifact is built: search at that size is OpenSearch's.
 */
export const ARTIFACT_MAX_PEOPLE = 2_000_000;

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
 * 2. Read the whole source once more and build the search index from it (up to ARTIFACT_MAX_PEOPLE): the
 *    people it holds must be the people the chunks counted, else the import fails without switching.
 * 3. Store the serialized index as `index/people-v<format>-<version>.v8` beside the source.
 * 4. Switch the pointer (conditional: never over an import planned later; then this one is superseded and
 *    its own items are deleted instead).
 * 5. Mark it complete and queue the deletion of the version it replaced, after the grace period.
 */
export async function finalizeImport(version: string, opts: { now: () => Date }): Promise<void> {
  const status = await getImport(version);
  if (!status) throw new Error(`directory import ${version}: no status item`);
  if (status.state === 'complete' || status.state === 'superseded') return;
  if (status.chunks_done !== status.chunks_total) throw new Error(`directory import ${version}: ${status.chunks_done} of ${status.chunks_total} chunks written`);
  await updateImport(version, { state: 'finalizing' }, opts.now(), ['running', 'failed', 'finalizing']);

  const started = performance.now();
  let artifact: string | null = null;
  if (status.people_written <= ARTIFACT_MAX_PEOPLE) {
    const reader = sourceReader(status.source);
    const built = await buildFrom(jsonl(await reader.stream()));
    if (built.index.size !== status.people_written) {
      const error = `the file holds ${built.index.size} people but the chunks wrote ${status.people_written}`;
      await recordImportFailure(version, error, opts.now());
      emitImportMetrics(version, { ImportsFailed: 1 });
      logger.error('directory import failed its count check; the pointer stays', { version, error });
      return;
    }
    artifact = await reader.putArtifact(indexArtifactName(version), serializeIndex(built).bytes);
  } else {
    logger.warn('directory too large for the in-memory search index; no artifact built', { version, people: status.people_written, limit: ARTIFACT_MAX_PEOPLE });
  }

  const switched = await switchDirectoryVersion({ version, people: status.people_written, planned_at: status.planned_at, index_artifact: artifact }, opts.now());
  if (switched === 'superseded') {
    await updateImport(version, { state: 'superseded', finished_at: opts.now().toISOString(), index_artifact: artifact }, opts.now());
    await queueCleanup(version, 0);
    logger.warn('directory import superseded by a newer one; its items will be deleted', { version });
    return;
  }
  await updateImport(version, { state: 'complete', finished_at: opts.now().toISOString(), previous: switched.previous, index_artifact: artifact }, opts.now());
  emitImportMetrics(version, { ImportsCompleted: 1 });
  logger.info('directory version switched', { version, previous: switched.previous, people: status.people_written, artifact, ms: Math.round(performance.now() - started) });
  if (switched.previous && switched.previous !== version) await queueCleanup(switched.previous, graceSeconds());
}

async function queueCleanup(version: string, delaySeconds: number): Promise<void> {
  await Promise.all(Array.from({ length: CLEANUP_SEGMENTS }, (_, s) => sendMessage('directory-import', messages.directoryCleanup(version, s, CLEANUP_SEGMENTS), delaySeconds)));
}
