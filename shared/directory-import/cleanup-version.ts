import { sendMessage } from '../adapters/queue.js';
import { messages, type MessageOf } from '../catalog/messages.js';
import { logger } from '../core/logger.js';
import { versionKeysPage, writeAll } from '../directory/directory-dynamodb.repository.js';
import { readDirectoryVersion } from '../directory/directory-version.repository.js';
import { emitImportMetrics } from './import-metrics.js';

/**
 * Delete one segment of a version that lookups no longer read.
 *
 * Why a deletion by version rather than TTL or a table per version: giving 10⁸ items a TTL at switch time
 * is one more write each (the cost of the import again), while these deletes cost the same writes plus one
 * scan (reads at an eighth of a write's price, eventually consistent). A table per version would make deletion
 * free, but tables would be created at run time outside the stack (no point-in-time recovery, alarms or
 * least-privilege grants by name) and the twin would need the same; docs/directory.md "The directory import" weighs it.
 *
 * 1. Refuse to delete the version the pointer names (a stale or hand-sent message).
 * 2. Scan the segment from `start_key`, delete every key of the version (BatchWriteItem of 25), for up to
 *    `budgetMs`; then queue the rest of the segment as a new message (the checkpoint is the message).
 */
export async function cleanupVersion(message: Extract<MessageOf<'directory-import'>, { kind: 'directory_cleanup' }>, opts: { budgetMs: number }): Promise<void> {
  const current = await readDirectoryVersion();
  if (current?.version === message.version) {
    logger.warn('not deleting the current directory version', { version: message.version });
    return;
  }
  const until = Date.now() + opts.budgetMs;
  let startKey = message.start_key as Record<string, unknown> | undefined;
  let deleted = 0;
  do {
    const page = await versionKeysPage(message.version, message.segment, message.segments, startKey);
    await writeAll(page.keys.map((Key) => ({ DeleteRequest: { Key } })));
    deleted += page.keys.length;
    startKey = page.next;
  } while (startKey && Date.now() < until);
  emitImportMetrics(message.version, { ItemsDeleted: deleted });
  if (startKey) await sendMessage('directory-import', messages.directoryCleanup(message.version, message.segment, message.segments, startKey as { pk: string; sk: string }));
  else logger.info('directory version segment deleted', { version: message.version, segment: message.segment, deleted });
}
