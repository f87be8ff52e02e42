import type { S3Event } from 'aws-lambda';
import { serviceClock } from '../../shared/core/clock.js';
import { logger } from '../../shared/core/logger.js';
import { planImport, s3ImportVersion } from '../../shared/directory-import/plan-import.js';

/**
 * S3 object-created on the directory object → plan a versioned, chunked import of that object version
 * (shared/directory-import/plan-import.ts); the directory-import queue's worker writes the chunks and the
 * finalize worker switches lookups to it. A redelivered event finds its import planned and resumes it.
 */
export const handler = async (event: S3Event): Promise<void> => {
  for (const r of event.Records) {
    const bucket = r.s3.bucket.name;
    const key = decodeURIComponent(r.s3.object.key.replace(/\+/g, ' '));
    const versionId = r.s3.object.versionId ?? null;
    const version = s3ImportVersion(bucket, key, versionId, r.s3.object.eTag);
    const status = await planImport({ kind: 's3', bucket, key, version_id: versionId }, version, { now: serviceClock.now() });
    logger.info('directory import under way', { version, state: status.state, chunks: status.chunks_total, done: status.chunks_done });
  }
};
