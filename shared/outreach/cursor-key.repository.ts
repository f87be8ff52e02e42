import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../adapters/aws.js';
import { tableName } from '../catalog/resource-names.js';
import { AppError } from '../core/errors.js';
import { outreachKeys as K } from './outreach.keys.js';

/**
 * The key that signs list cursors (`next_cursor` of GET /emails/, GET /sequences/ and a sequence's
 * enrollments, public and web app alike; HMAC-SHA256, core/list-cursor.ts and sequences/enrollment-cursor.ts).
 * 32 random bytes kept in one item of the outreach table (`LISTCURSOR` / `KEY`, kept for good): every function
 * that issues or reads a cursor is bound to read that table already, so the key needs no grant of its own, and
 * whoever can read it can read every list outright, so it can forge nothing they could not read. The
 * secret-box key was not granted to the list functions instead, as that would let them open webhook signing
 * secrets and mailbox tokens.
 *
 * Made once, if missing (cursor-key-maker.repository.ts, apart so that a reading function's bundle holds no
 * write), by the sweeper (every 5 minutes in AWS) and by the twin at start; read once per
 * process and table (the item never changes; replacing it refuses every earlier cursor). A list that needs a
 * cursor before the first sweep has made the key answers 503 `unavailable`.
 */
const loaded = new Map<string, Promise<Buffer>>();

export function listCursorKey(): Promise<Buffer> {
  const table = tableName('outreach');
  let key = loaded.get(table);
  if (!key) {
    key = readKey(table);
    loaded.set(table, key);
    key.catch(() => loaded.delete(table));
  }
  return key;
}

async function readKey(table: string): Promise<Buffer> {
  const out = await documentClient().send(new GetCommand({ TableName: table, Key: K.listCursorKey, ConsistentRead: true }));
  const key = out.Item?.key;
  if (typeof key !== 'string') throw new AppError(503, 'unavailable', 'Paging is not available yet: try again in a few minutes.', undefined, true);
  return Buffer.from(key, 'base64');
}

/** Forgets the keys read (tests that replace the item). */
export function resetListCursorKeys(): void {
  loaded.clear();
}
