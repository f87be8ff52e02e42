import type { S3Event } from 'aws-lambda';
import { importDirectory, recordImport } from '../../shared/directory/directory.repository.js';
import { readDirectory } from '../../shared/search/index-source.js';
import { logger } from '../../shared/core/logger.js';

/**
 * S3 object-created → load the directory JSONL (`DIRECTORY_BUCKET`/`DIRECTORY_KEY`) into the directory
 * table, the same import the local stack runs on first start. Re-running it is harmless: items are keyed
 * by profile URL and simply overwritten.
 */
export const handler = async (event: S3Event): Promise<void> => {
  const t0 = Date.now();
  const r = await importDirectory(await readDirectory(), { concurrency: 16, onProgress: (n) => logger.info('directory import progress', { people: n }) });
  const version = event.Records.map((x) => `${x.s3.object.key}:${x.s3.object.eTag}`).join(',');
  await recordImport({ version, people: r.people, imported_at: new Date().toISOString() });
  logger.info('directory imported', { people: r.people, companies: r.companies, ms: Date.now() - t0 });
};
