import { sendMessage } from '../adapters/queue.js';
import { messages } from '../catalog/messages.js';
import { logger } from '../core/logger.js';
import { companiesById, companyItem, personItem, writeAll, type BatchWriter, type WriteRequest } from '../directory/directory-dynamodb.repository.js';
import { getImport, markChunkDone, updateImport, type ImportStatus } from './import-status.repository.js';
import type { DirectoryEntry } from '../search-engine/search-port.js';
import { DirectoryRecordSchema, type Company, type Person } from '../directory/types.js';
import { emitImportMetrics } from './import-metrics.js';
import { sourceReader } from './import-source.js';
import { searchPublisher } from './search-publisher.js';
import { queueChunks } from './plan-import.js';
import { addressHash, erasureSuppressionList } from '../privacy/opt-outs.repository.js';

/**
 * Write one chunk of a directory import.
 *
 * Input: the import's version and the chunk's number (its byte range is on the status item).
 * 1. Nothing to do for an import that is complete or superseded, or for a chunk already counted (a
 *    redelivery): go to 4, which is idempotent.
 * 2. Read the range and parse its lines. A company chunk stages its companies; a people chunk reads its
 *    people's companies (consistent BatchGetItem) and writes each person under the version, but for the people
 *    whose work email is on the erasure list (docs/privacy.md; counted as `people_suppressed`).
 *    BatchWriteItem of 25, 8 in flight, unprocessed items retried with backoff. Writing the same chunk
 *    again writes the same keys with the same values, so a chunk interrupted midway is simply redone.
 *    With OpenSearch as the search engine, a people chunk also bulk-indexes its people into the version's
 *    index (by person id: redone the same way). Loading there per chunk rather than in the finalize step
 *    keeps the load within the chunks' parallelism and checkpoints: 1M people through one finalize
 *    invocation would be about 1,000 bulk requests in series, too close to Lambda's 15 minutes, and 100M far
 *    beyond them (docs/directory.md "The directory import").
 * 3. Mark the chunk done: counted once (a number set on the status item), with the people and companies
 *    it wrote.
 * 4. The chunk that completes the companies queues the people chunks; the one that completes every chunk
 *    queues the finalize step. A crash between 3 and 4 is healed by the redelivery, which finds the chunk
 *    counted and repeats 4 (a duplicate message finds its chunk done too).
 */
export async function importChunk(version: string, chunk: number, opts: { now: () => Date; writer?: BatchWriter }): Promise<void> {
  const status = await getImport(version);
  if (!status) throw new Error(`directory import ${version}: no status item for chunk ${chunk}`);
  if (status.state === 'complete' || status.state === 'superseded') return;
  if (chunk >= status.chunks_total) throw new Error(`directory import ${version}: chunk ${chunk} is not in the plan (${status.chunks_total} chunks)`);
  if (status.done_chunks?.has(chunk)) return advance(status, opts.now());

  const started = performance.now();
  const lines = (await sourceReader(status.source).range(status.cuts[chunk]!, status.cuts[chunk + 1]!)).toString('utf8').split('\n');
  const records = lines.filter((l) => l.trim()).map((l) => DirectoryRecordSchema.parse(JSON.parse(l)));
  const written = { people: 0, companies: 0, suppressed: 0 };
  let requests: WriteRequest[];
  let entries: DirectoryEntry[] = [];
  if (chunk < status.company_chunks) {
    const companies = records.filter((r): r is Company => r.type === 'company');
    if (companies.length !== records.length) throw new Error(`directory import ${version}: a person line in company chunk ${chunk}`);
    requests = companies.map((c) => ({ PutRequest: { Item: companyItem(version, c) } }));
    written.companies = companies.length;
  } else {
    const listed = records.filter((r): r is Person => r.type === 'person');
    if (listed.length !== records.length) throw new Error(`directory import ${version}: a company line in people chunk ${chunk}; companies must come first`);
    // The erasure list (docs/privacy.md): a person whose work email was erased is not imported again.
    const erased = await erasureSuppressionList();
    const people = erased.size ? listed.filter((p) => !(p.work_email && erased.has(addressHash(p.work_email)))) : listed;
    written.suppressed = listed.length - people.length;
    const companies = await companiesById(version, people.map((p) => p.company_id));
    entries = people.map((person) => {
      const company = companies.get(person.company_id);
      if (!company) throw new Error(`directory import ${version}: person ${person.id} names unknown company ${person.company_id}`);
      return { person, company };
    });
    requests = entries.map(({ person, company }) => ({ PutRequest: { Item: personItem(version, person, company) } }));
    written.people = people.length;
  }
  await writeAll(requests, { concurrency: 8, writer: opts.writer });
  if (entries.length) await (await searchPublisher())?.load(version, entries);
  const after = await markChunkDone(version, chunk, written, opts.now());
  emitImportMetrics(version, { ChunksDone: after ? 1 : 0, PeopleWritten: written.people, CompaniesWritten: written.companies });
  logger.info('directory chunk written', { version, chunk, ...written, ms: Math.round(performance.now() - started), counted: after !== null });
  await advance(after ?? (await getImport(version))!, opts.now());
}

async function advance(status: ImportStatus, now: Date): Promise<void> {
  if (!status.people_queued && status.chunks_done >= status.company_chunks) {
    const done = status.done_chunks ?? new Set<number>();
    const people = Array.from({ length: status.chunks_total - status.company_chunks }, (_, i) => status.company_chunks + i).filter((c) => !done.has(c));
    await queueChunks(status.version, people);
    await updateImport(status.version, { people_queued: true }, now);
  }
  if (!status.finalize_queued && status.chunks_done === status.chunks_total) {
    await sendMessage('directory-finalize', messages.directoryFinalize(status.version));
    await updateImport(status.version, { finalize_queued: true }, now, ['running', 'failed']);
  }
}
