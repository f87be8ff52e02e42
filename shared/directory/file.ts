/** JSONL directory files: write a generated sample, read (and validate) any directory file. */
import { createReadStream, createWriteStream, existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import cliProgress from 'cli-progress';
import { GENERATOR_VERSION, generateDirectory, type GenerateOptions } from './generate.js';
import { DirectoryRecordSchema, type DirectoryRecord } from './types.js';

export interface WriteResult {
  companies: number;
  people: number;
  ms: number;
}

/** Beside a generated sample file: the generator version and options that made it. */
export const generatorMarkerPath = (path: string): string => `${path}.generator.json`;

/**
 * A sample file that an older generator (or other options) made: its marker names another version,
 * seed or size. A file without a marker is left alone (it may be a real directory, or predate markers).
 */
export function isStaleSample(path: string, opts: GenerateOptions): boolean {
  const marker = generatorMarkerPath(path);
  if (!existsSync(path) || !existsSync(marker)) return false;
  try {
    const m = JSON.parse(readFileSync(marker, 'utf8')) as { generator?: unknown; seed?: unknown; people?: unknown };
    return m.generator !== GENERATOR_VERSION || m.seed !== opts.seed || m.people !== opts.people;
  } catch {
    return true;
  }
}

/**
 * Generates a directory into `path` (parent folders created). Progress bar on stderr if asked; `into`
 * receives the records too, so a caller that indexes them next need not read the file back.
 */
export async function writeDirectoryFile(path: string, opts: GenerateOptions, { progress = false, into }: { progress?: boolean; into?: DirectoryRecord[] } = {}): Promise<WriteResult> {
  const started = performance.now();
  await mkdir(dirname(path), { recursive: true });
  const out = createWriteStream(path, { encoding: 'utf8' });
  const bar = progress
    ? new cliProgress.SingleBar({ format: 'directory [{bar}] {percentage}% | {value}/{total} people | {eta}s left', stream: process.stderr }, cliProgress.Presets.shades_classic)
    : null;
  bar?.start(opts.people, 0);

  let companies = 0;
  let people = 0;
  let chunk: string[] = [];
  // Batched writes with backpressure: one write per 1,000 lines keeps the stream overhead low.
  const flush = async () => {
    if (!chunk.length) return;
    const ok = out.write(chunk.join(''));
    chunk = [];
    if (!ok) await once(out, 'drain');
  };
  try {
    for (const rec of generateDirectory(opts)) {
      if (rec.type === 'company') companies++;
      else people++;
      into?.push(rec);
      chunk.push(JSON.stringify(rec) + '\n');
      if (chunk.length >= 1000) {
        await flush();
        bar?.update(people);
      }
    }
    await flush();
    bar?.update(people);
  } finally {
    bar?.stop();
    out.end();
    await once(out, 'close');
  }
  await writeFile(generatorMarkerPath(path), JSON.stringify({ generator: GENERATOR_VERSION, seed: opts.seed, people: opts.people, ...(opts.asOf ? { asOf: opts.asOf } : {}) }) + '\n');
  return { companies, people, ms: Math.round(performance.now() - started) };
}

/** Streams records from a JSONL file, validating each line; throws with the line number on bad input. */
export async function* readDirectoryFile(path: string): AsyncIterable<DirectoryRecord> {
  const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  let n = 0;
  for await (const line of lines) {
    n++;
    if (!line.trim()) continue;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      throw new Error(`${path}:${n}: not valid JSON`);
    }
    const parsed = DirectoryRecordSchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new Error(`${path}:${n}: invalid record at ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`);
    }
    yield parsed.data;
  }
}
