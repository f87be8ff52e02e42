import { createReadStream, existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import { readObjectStream } from '../adapters/object-store.js';
import { optionalEnv, requireEnv } from '../core/env.js';
import { DirectoryRecordSchema, type DirectoryRecord } from '../directory/types.js';
import { PeopleIndex } from './search-engine.js';

/**
 * Where the search worker's in-memory index comes from: the same JSONL the import reads — a local file
 * (`DIRECTORY_FILE`) on the one-machine twin, the import bucket's object (`DIRECTORY_BUCKET`,
 * `DIRECTORY_KEY`) in AWS. Built once per process (cold start) and reused.
 */
async function* jsonl(stream: NodeJS.ReadableStream): AsyncIterable<DirectoryRecord> {
  const rl = createInterface({ input: stream, crlfDelay: Infinity });
  for await (const line of rl) {
    if (line.trim()) yield DirectoryRecordSchema.parse(JSON.parse(line));
  }
}

export async function directoryStream(): Promise<NodeJS.ReadableStream> {
  const file = optionalEnv('DIRECTORY_FILE');
  if (file) {
    if (!existsSync(file)) throw new Error(`DIRECTORY_FILE ${file} does not exist`);
    const s = createReadStream(file);
    return file.endsWith('.gz') ? s.pipe(createGunzip()) : s;
  }
  const bucket = requireEnv('DIRECTORY_BUCKET');
  const key = requireEnv('DIRECTORY_KEY');
  const body = await readObjectStream(bucket, key);
  return key.endsWith('.gz') ? body.pipe(createGunzip()) : body;
}

export async function readDirectory(): Promise<AsyncIterable<DirectoryRecord>> {
  return jsonl(await directoryStream());
}

let index: Promise<PeopleIndex> | undefined;

export function peopleIndex(): Promise<PeopleIndex> {
  index ??= (async () => {
    const records: DirectoryRecord[] = [];
    for await (const r of await readDirectory()) records.push(r);
    return PeopleIndex.build(records);
  })().catch((e) => {
    index = undefined;
    throw e;
  });
  return index;
}

/** Local stack restarts and tests that switch directories. */
export function resetPeopleIndex(): void {
  index = undefined;
}
