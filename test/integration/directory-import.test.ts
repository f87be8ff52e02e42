/**
 * The chunked, versioned directory import against DynamoDB Local and local SQS, its queues pumped by the
 * test with the real handlers (so a delivery can be interrupted and redelivered at a chosen point):
 * an import interrupted in the middle of a chunk resumes and ends with exactly the file's directory, and a
 * second import swaps versions under a running loop of lookups without a miss.
 */
import { ChangeMessageVisibilityCommand, DeleteMessageCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSRecord } from 'aws-lambda';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deserialize } from 'node:v8';
import { documentClient } from '../../shared/adapters/aws.js';
import type { QueueKey } from '../../shared/catalog/queues.js';
import { tableName } from '../../shared/catalog/resource-names.js';
import { dynamoDbDirectory, writeDirectoryBatch, type BatchWriter } from '../../shared/directory/directory-dynamodb.repository.js';
import { readDirectoryVersion } from '../../shared/directory/directory-version.repository.js';
import { indexArtifactName } from '../../shared/directory-import/finalize-import.js';
import { importChunk } from '../../shared/directory-import/import-chunk.js';
import { planImport } from '../../shared/directory-import/plan-import.js';
import { getImport } from '../../shared/directory-import/import-status.repository.js';
import { readDirectoryFile, writeDirectoryFile } from '../../shared/directory/file.js';
import type { Company, DirectoryRecord, Person } from '../../shared/directory/types.js';
import { lookupKeys } from '../../shared/directory/urls.js';
import type { LocalStack } from '../../shared/local/stack.js';
import { fileVersion } from '../../shared/search-engine/index-source.js';
import { PeopleIndex } from '../../shared/search-engine/search-engine.js';
import { handleRecord, type MessageHandlers } from '../../shared/workers/dispatch.js';
import { directoryFinalizeHandlers, directoryImportHandlers } from '../../shared/workers/directory-import.handlers.js';
import { startTestStack } from '../support/local.js';

const CHUNK_BYTES = 64 * 1024;
let stack: LocalStack;
let dir: string;
const records: DirectoryRecord[] = [];
const companies = new Map<string, Company>();
let fileA: string;
let versionA: string;

beforeAll(async () => {
  process.env.DIRECTORY_VERSION_CACHE_SECONDS = '1';
  process.env.DIRECTORY_GRACE_SECONDS = '3';
  dir = await mkdtemp(join(tmpdir(), 'directory-import-'));
  stack = await startTestStack({ workers: false });
  fileA = join(dir, 'a', 'directory.jsonl');
  await writeDirectoryFile(fileA, { seed: 21, people: 600 });
  for await (const r of readDirectoryFile(fileA)) {
    records.push(r);
    if (r.type === 'company') companies.set(r.id, r);
  }
  versionA = (await fileVersion(fileA)).slice(0, 16);
}, 120_000);

afterAll(async () => {
  delete process.env.DIRECTORY_VERSION_CACHE_SECONDS;
  delete process.env.DIRECTORY_GRACE_SECONDS;
  await stack?.stop();
  await rm(dir, { recursive: true, force: true });
});

const people = () => records.filter((r): r is Person => r.type === 'person');
const now = () => new Date();
const bare = (p: Person) => lookupKeys(p, companies.get(p.company_id)!)[0]!.slice('url#'.length);

/** Deliver what is on `queue` now (up to 10 at once, as a batch of Lambda invocations would run). */
async function pump<Q extends QueueKey>(queue: Q, handlers: MessageHandlers<Q>): Promise<number> {
  const url = stack.queueUrls[queue]!;
  const r = await stack.sqs.send(new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, WaitTimeSeconds: 0, AttributeNames: ['All'] }));
  await Promise.all(
    (r.Messages ?? []).map(async (m) => {
      const record = { messageId: m.MessageId!, body: m.Body!, attributes: { ApproximateReceiveCount: m.Attributes?.ApproximateReceiveCount ?? '1' } } as unknown as SQSRecord;
      try {
        await handleRecord(queue, handlers, record);
        await stack.sqs.send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: m.ReceiptHandle! }));
      } catch {
        // A failed invocation: the message comes back (at once here, after its visibility timeout in AWS).
        await stack.sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl: url, ReceiptHandle: m.ReceiptHandle!, VisibilityTimeout: 0 }));
      }
    }),
  );
  return r.Messages?.length ?? 0;
}

/** Pump both import queues until `done` holds (or both stay empty when no condition is given). */
async function drain(chunkHandlers: MessageHandlers<'directory-import'> = directoryImportHandlers, done?: () => Promise<boolean>): Promise<void> {
  for (let idle = 0, deadline = Date.now() + 90_000; Date.now() < deadline; ) {
    const n = (await pump('directory-import', chunkHandlers)) + (await pump('directory-finalize', directoryFinalizeHandlers));
    if (done ? await done() : n === 0 && ++idle >= 3) return;
    if (n === 0) await new Promise((r) => setTimeout(r, 200));
    else idle = 0;
  }
  throw new Error('the import queues did not drain');
}

async function itemsOfVersion(version: string): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await documentClient().send(
      new ScanCommand({ TableName: tableName('directory'), ExclusiveStartKey: start, FilterExpression: 'begins_with(pk, :p)', ExpressionAttributeValues: { ':p': `V#${version}#` }, ProjectionExpression: 'pk, sk, person' }),
    );
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
}

test('an import interrupted in the middle of a chunk resumes and ends with exactly the directory of the file', async () => {
  const planned = await planImport({ kind: 'file', path: fileA }, versionA, { chunkBytes: CHUNK_BYTES, now: now() });
  expect(planned.company_chunks).toBeGreaterThan(0);
  expect(planned.chunks_total - planned.company_chunks).toBeGreaterThan(4);

  // The first people chunk dies after one of its batches is written, as a worker killed mid-chunk would.
  let interrupted: { chunk: number; batches: number; written: number; countedAfterCrash: boolean | undefined } | null = null;
  const crashing: MessageHandlers<'directory-import'> = {
    ...directoryImportHandlers,
    directory_chunk: async (m, r) => {
      if (interrupted || m.chunk < planned.company_chunks) return directoryImportHandlers.directory_chunk(m, r);
      interrupted = { chunk: m.chunk, batches: 0, written: 0, countedAfterCrash: undefined };
      const dying: BatchWriter = async (batch) => {
        if (++interrupted!.batches > 1) throw new Error('worker killed');
        await writeDirectoryBatch(batch);
        interrupted!.written += batch.length;
      };
      await importChunk(m.version, m.chunk, { now, writer: dying }).catch(async (e) => {
        interrupted!.countedAfterCrash = (await getImport(m.version))!.done_chunks?.has(m.chunk) ?? false;
        throw e;
      });
    },
  };
  await drain(crashing);

  expect(interrupted).toMatchObject({ written: 25, countedAfterCrash: false });
  const status = (await getImport(versionA))!;
  expect(status).toMatchObject({ state: 'complete', chunks_done: status.chunks_total, people_written: people().length, companies_written: companies.size, previous: null });
  expect(status.done_chunks!.size).toBe(status.chunks_total);
  expect((await readDirectoryVersion())!).toMatchObject({ version: versionA, people: people().length });

  const items = await itemsOfVersion(versionA);
  const personItems = items.filter((i) => i.sk === 'P');
  expect(personItems).toHaveLength(people().length);
  expect(new Set(personItems.map((i) => i.pk)).size).toBe(people().length);
  expect(new Set(personItems.map((i) => (i.person as Person).id))).toEqual(new Set(people().map((p) => p.id)));
  for (const p of people().filter((_, i) => i % 97 === 0)) {
    expect(await dynamoDbDirectory.findByProfessionalUrl(bare(p))).toEqual({ person: p, company: companies.get(p.company_id) });
  }

  // The search index artifact of the version, built by the finalize step, holds the same people.
  const artifact = join(dir, 'a', indexArtifactName(versionA));
  expect(status.index_artifact).toBe(artifact);
  expect(PeopleIndex.fromSnapshot((deserialize(await readFile(artifact)) as { index: Buffer }).index).size).toBe(people().length);
}, 120_000);

test('a second import swaps versions under a loop of lookups: no miss for people in both, removed people gone, the old version deleted', async () => {
  const all = people();
  const removed = all.filter((_, i) => i % 10 === 3);
  const changed = new Map(all.filter((_, i) => i % 7 === 1 && i % 10 !== 3).map((p) => [p.id, { ...p, headline: `${p.headline} (updated)` }]));
  const kept = all.filter((p) => !removed.includes(p));
  const fileB = join(dir, 'b', 'directory.jsonl');
  const linesB = records.filter((r) => !removed.includes(r as Person)).map((r) => JSON.stringify(changed.get(r.id) ?? r));
  await mkdir(join(dir, 'b'));
  await writeFile(fileB, linesB.join('\n') + '\n');
  const versionB = (await fileVersion(fileB)).slice(0, 16);

  let switched = false;
  let lookups = 0;
  const misses: string[] = [];
  const loop = (async () => {
    for (let i = 0, stopAt = Infinity; Date.now() < stopAt; i++) {
      const p = kept[i % kept.length]!;
      const found = await dynamoDbDirectory.findByProfessionalUrl(bare(p));
      lookups++;
      if (!found) misses.push(p.id);
      else expect([p.headline, changed.get(p.id)?.headline]).toContain(found.person.headline);
      if (switched && stopAt === Infinity) stopAt = Date.now() + 1500;
    }
  })();

  await planImport({ kind: 'file', path: fileB }, versionB, { chunkBytes: CHUNK_BYTES, now: now() });
  await drain(directoryImportHandlers, async () => (await readDirectoryVersion())?.version === versionB);
  switched = true;
  await loop;
  expect(lookups).toBeGreaterThan(50);
  expect(misses).toEqual([]);

  // After the switch (and the pointer cache's second): removed people are gone, changed people changed.
  for (const p of removed.slice(0, 20)) expect(await dynamoDbDirectory.findByProfessionalUrl(bare(p))).toBeNull();
  for (const p of [...changed.values()].slice(0, 20)) expect((await dynamoDbDirectory.findByProfessionalUrl(bare(p)))?.person.headline).toBe(p.headline);
  expect((await getImport(versionB))!).toMatchObject({ state: 'complete', previous: versionA, people_written: kept.length });

  // The old version is deleted after the grace period, and only it.
  await drain(directoryImportHandlers, async () => (await itemsOfVersion(versionA)).length === 0);
  expect((await itemsOfVersion(versionB)).filter((i) => i.sk === 'P')).toHaveLength(kept.length);
  expect(existsSync(join(dir, 'b', indexArtifactName(versionB)))).toBe(true);
}, 120_000);
