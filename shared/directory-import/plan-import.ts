import { createHash } from 'node:crypto';
import { sendMessage } from '../adapters/queue.js';
import { messages } from '../catalog/messages.js';
import { logger } from '../core/logger.js';
import { createImport, getImport, type ImportStatus } from './import-status.repository.js';
import { describeSource, sourceReader, type ImportSource, type SourceReader } from './import-source.js';
import { DirectoryRecordSchema } from '../directory/types.js';

/**
 * Plan a directory import: split the source into line-aligned byte ranges and queue one message per range.
 *
 * Input: the source (one S3 object version, or a local file) and the version its items are written under.
 * Output: the import's status item (new, or the existing one for a redelivered event).
 * 1. An import of this version exists already: resume it (queue what is not done) and return it.
 * 2. Find where the people start (a directory file lists every company first): a binary search of range reads.
 * 3. Cut the companies' part and the people's part into chunks of about `chunkBytes`, each boundary moved to
 *    the next line start.
 * 4. Record the plan (conditional create: a concurrent planner of the same version loses and resumes).
 * 5. Queue the company chunks (the last of them queues the people chunks; import-chunk.ts).
 */
export const DEFAULT_CHUNK_BYTES = 32 * 2 ** 20;

/** The version of an S3 upload: a short hash of which object version it is (16 hex characters per key). */
export function s3ImportVersion(bucket: string, key: string, versionId: string | null, etag: string): string {
  return createHash('sha256').update(`${bucket}\n${key}\n${versionId ?? ''}\n${etag}`).digest('hex').slice(0, 16);
}

export async function planImport(source: ImportSource, version: string, opts: { chunkBytes?: number; now: Date }): Promise<ImportStatus> {
  const existing = await getImport(version);
  if (existing) return resumeImport(existing);
  if (source.kind === 's3' && source.key.endsWith('.gz')) throw new Error(`directory import: ${source.key} is gzipped; upload plain JSONL (chunks are byte ranges)`);
  const reader = sourceReader(source);
  const size = await reader.size();
  const chunkBytes = opts.chunkBytes ?? DEFAULT_CHUNK_BYTES;
  const peopleStart = await firstPersonOffset(reader, size);
  const companyCuts = await cutsOf(reader, 0, peopleStart, chunkBytes);
  const peopleCuts = await cutsOf(reader, peopleStart, size, chunkBytes);
  const cuts = [...companyCuts, ...peopleCuts.slice(companyCuts.length ? 1 : 0)];
  const companyChunks = Math.max(0, companyCuts.length - 1);
  const now = opts.now.toISOString();
  const status: ImportStatus = {
    version,
    state: 'running',
    source,
    size,
    cuts,
    company_chunks: companyChunks,
    chunks_total: cuts.length - 1,
    chunks_done: 0,
    people_queued: companyChunks === 0,
    finalize_queued: false,
    companies_written: 0,
    people_written: 0,
    failures: 0,
    last_error: null,
    planned_at: now,
    updated_at: now,
    finished_at: null,
    previous: null,
    index_artifact: null,
  };
  if (!(await createImport(status))) return resumeImport((await getImport(version))!);
  logger.info('directory import planned', { version, source: describeSource(source), size, chunks: status.chunks_total, company_chunks: companyChunks });
  await queueChunks(version, companyChunks ? range(0, companyChunks) : range(0, status.chunks_total));
  return status;
}

/** Queue every chunk of the current phase that is not done, or the finalize step when all are. */
export async function resumeImport(status: ImportStatus): Promise<ImportStatus> {
  if (status.state === 'complete' || status.state === 'superseded') return status;
  if (status.chunks_done === status.chunks_total) {
    await sendMessage('directory-finalize', messages.directoryFinalize(status.version));
    return status;
  }
  const done = status.done_chunks ?? new Set<number>();
  const phase = status.chunks_done < status.company_chunks ? range(0, status.company_chunks) : range(0, status.chunks_total);
  await queueChunks(status.version, phase.filter((c) => !done.has(c)));
  return status;
}

export async function queueChunks(version: string, chunks: number[]): Promise<void> {
  for (let i = 0; i < chunks.length; i += 16) {
    await Promise.all(chunks.slice(i, i + 16).map((c) => sendMessage('directory-import', messages.directoryChunk(version, c))));
  }
}

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

const WINDOW = 64 * 1024;

/** The first line start at or after `at` (the source's size when none). */
async function lineStartAtOrAfter(reader: SourceReader, size: number, at: number): Promise<number> {
  if (at <= 0) return 0;
  for (let from = at - 1; from < size; from += WINDOW) {
    const bytes = await reader.range(from, Math.min(size, from + WINDOW));
    const nl = bytes.indexOf(0x0a);
    if (nl >= 0) return from + nl + 1;
  }
  return size;
}

async function lineAt(reader: SourceReader, size: number, start: number): Promise<string> {
  const parts: Buffer[] = [];
  for (let from = start; from < size; from += WINDOW) {
    const bytes = await reader.range(from, Math.min(size, from + WINDOW));
    const nl = bytes.indexOf(0x0a);
    parts.push(nl >= 0 ? bytes.subarray(0, nl) : bytes);
    if (nl >= 0) break;
  }
  return Buffer.concat(parts).toString('utf8');
}

/** Where the people's part starts: the lowest line start whose record is a person (binary search). */
async function firstPersonOffset(reader: SourceReader, size: number): Promise<number> {
  const isPersonOrEnd = async (start: number) => {
    if (start >= size) return true;
    const line = (await lineAt(reader, size, start)).trim();
    return line !== '' && DirectoryRecordSchema.parse(JSON.parse(line)).type === 'person';
  };
  let lo = 0;
  let hi = size;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    const start = await lineStartAtOrAfter(reader, size, mid);
    if (await isPersonOrEnd(start)) hi = mid;
    else lo = start + 1;
  }
  return lineStartAtOrAfter(reader, size, lo);
}

/** Boundaries of `[from, to)` cut every `chunkBytes` at line starts: `[from, …, to]`, or `[]` when empty. */
async function cutsOf(reader: SourceReader, from: number, to: number, chunkBytes: number): Promise<number[]> {
  if (from >= to) return [];
  const cuts = [from];
  for (let at = from + chunkBytes; at < to; at = cuts.at(-1)! + chunkBytes) {
    const start = await lineStartAtOrAfter(reader, to, at);
    if (start >= to) break;
    cuts.push(start);
  }
  cuts.push(to);
  return cuts;
}
