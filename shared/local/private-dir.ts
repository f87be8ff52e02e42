import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Files only the twin makes: a directory holding one is a twin data directory (or DynamoDB Local's part of one). */
const TWIN_MARKERS = ['secret-box.key', 'demo-account.json', 'access-key-id', join('dynamodb', 'access-key-id')];

/**
 * The twin's data directory holds the demo account's API key and webhook secret, the secret-box key, the
 * admin token and DynamoDB Local's database: only its owner may read it. `privateDir` makes a directory
 * 0700 (its missing parents too) and makes an existing one 0700. When the directory is the twin's (it holds
 * one of TWIN_MARKERS), every group and other permission below it is taken away too (directories 0700, files
 * 0600, or 0700 for an executable one), so a `.data/` made world-readable by an older version or another
 * umask is tightened at start. A `DATA_DIR` pointed at some other directory has only the directory itself
 * tightened. Symbolic links are not followed.
 */
export function privateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (TWIN_MARKERS.some((m) => existsSync(join(dir, m)))) tighten(dir);
  else tightenOne(dir);
}

function tightenOne(path: string): ReturnType<typeof lstatSync> {
  const st = lstatSync(path, { throwIfNoEntry: false });
  if (st && !st.isSymbolicLink() && st.mode & 0o077) chmodSync(path, st.mode & 0o700);
  return st;
}

function tighten(path: string): void {
  const st = tightenOne(path);
  if (st?.isDirectory() && !st.isSymbolicLink()) for (const name of readdirSync(path)) tighten(join(path, name));
}
