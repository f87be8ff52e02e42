import { serviceClock } from '../core/clock.js';
import { QUEUES } from '../catalog/queues.js';
import { cleanupVersion } from '../directory-import/cleanup-version.js';
import { finalizeImport } from '../directory-import/finalize-import.js';
import { importChunk } from '../directory-import/import-chunk.js';
import { emitImportMetrics } from '../directory-import/import-metrics.js';
import { recordImportFailure } from '../directory-import/import-status.repository.js';
import type { MessageHandlers } from './dispatch.js';

const now = () => serviceClock.now();

// A cleanup segment stops well inside the worker's timeout and queues the rest of its scan.
const CLEANUP_BUDGET_MS = QUEUES['directory-import'].worker.timeoutSeconds * 600;

export const directoryImportHandlers: MessageHandlers<'directory-import'> = {
  directory_chunk: async (m) => {
    try {
      await importChunk(m.version, m.chunk, { now });
    } catch (e) {
      emitImportMetrics(m.version, { ChunkFailures: 1 });
      throw e;
    }
  },
  directory_cleanup: (m) => cleanupVersion(m, { budgetMs: CLEANUP_BUDGET_MS }),
};

export const directoryFinalizeHandlers: MessageHandlers<'directory-finalize'> = {
  directory_finalize: (m) => finalizeImport(m.version, { now }),
};

/**
 * What the dead-letter consumer does with a directory import's message that gave up: the import shows
 * `failed` with the reason (redriving the DLQ resumes it: chunks are idempotent and counted once). A cleanup
 * segment that gave up leaves the old version's remaining items; it is logged and alarmed on by the DLQ.
 */
export const deadDirectoryImportHandlers: MessageHandlers<'directory-import'> = {
  directory_chunk: async (m) => {
    await recordImportFailure(m.version, `chunk ${m.chunk} gave up after ${QUEUES['directory-import'].maxReceiveCount} attempts`, now());
    emitImportMetrics(m.version, { ImportsFailed: 1 });
  },
  directory_cleanup: async () => undefined,
};

export const deadDirectoryFinalizeHandlers: MessageHandlers<'directory-finalize'> = {
  directory_finalize: async (m) => {
    await recordImportFailure(m.version, `the finalize step gave up after ${QUEUES['directory-finalize'].maxReceiveCount} attempts`, now());
    emitImportMetrics(m.version, { ImportsFailed: 1 });
  },
};
