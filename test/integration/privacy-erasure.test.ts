/**
 * Erasure (docs/privacy.md): `eraseFromDirectory` deletes a person's directory record from the DynamoDB store (the
 * current version and the one it replaced) and from this process's in-memory index and lookups, and every
 * directory import applies the erasure list, so importing the same file again does not bring the person back:
 * the chunked import (chunks, the finalize step's count check and index artifact, an erasure that lands while an
 * import runs) and the twin's start (its in-memory index and its DynamoDB import). DynamoDB Local and local SQS,
 * the import queues pumped by the test with the real handlers.
 */
import { ChangeMessageVisibilityCommand, DeleteMessageCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSRecord } from 'aws-lambda';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deserialize } from 'node:v8';
import { documentClient } from '../../shared/adapters/aws.js';
import { logger } from '../../shared/core/logger.js';
import type { QueueKey } from '../../shared/catalog/queues.js';
import { tableName } from '../../shared/catalog/resource-names.js';
import { dynamoDbDirectory } from '../../shared/directory/directory-dynamodb.repository.js';
import { forgetDirectoryVersion, readDirectoryVersion } from '../../shared/directory/directory-version.repository.js';
import { readDirectoryFile, writeDirectoryFile } from '../../shared/directory/file.js';
import type { Company, Person } from '../../shared/directory/types.js';
import { normalizeProfessionalUrl } from '../../shared/directory/urls.js';
import { getImport } from '../../shared/directory-import/import-status.repository.js';
import { planImport } from '../../shared/directory-import/plan-import.js';
import type { LocalStack } from '../../shared/local/stack.js';
import { loadDirectory, prepareDirectory } from '../../shared/local/services.js';
import { eraseFromDirectory } from '../../shared/privacy/directory-erasure.js';
import { recordOptOut } from '../../shared/privacy/opt-outs.repository.js';
import { memoryDirectory } from '../../shared/search-engine/directory-memory.js';
import { loadDirectoryFile, resetPeopleIndex, useLoadedDirectory, type LoadedDirectory } from '../../shared/search-engine/index-source.js';
import { parseQuery } from '../../shared/search-engine/query.js';
import { PeopleIndex } from '../../shared/search-engine/search-engine.js';
import { handleRecord, type MessageHandlers } from '../../shared/workers/dispatch.js';
import { directoryFinalizeHandlers, directoryImportHandlers } from '../../shared/workers/directory-import.handlers.js';
import { startTestStack } from '../support/local.js';

let stack: LocalStack;
let dir: string;
let file: string;
const people: Person[] = [];
const companies = new Map<string, Company>();
const saved: Record<string, string | undefined> = {};

const level = logger.getLevelName();
beforeAll(async () => {
  // The import and the workers log each step: quiet while passing.
  logger.setLogLevel('ERROR');
  for (const k of ['DIRECTORY_VERSION_CACHE_SECONDS', 'DIRECTORY_GRACE_SECONDS', 'DIRECTORY_STORE', 'DIRECTORY_FILE']) saved[k] = process.env[k];
  process.env.DIRECTORY_VERSION_CACHE_SECONDS = '1';
  process.env.DIRECTORY_GRACE_SECONDS = '1';
  dir = await mkdtemp(join(tmpdir(), 'privacy-erasure-'));
  stack = await startTestStack({ workers: false, gateway: false });
  file = join(dir, 'directory.jsonl');
  await writeDirectoryFile(file, { seed: 23, people: 400 });
  for await (const r of readDirectoryFile(file)) {
    if (r.type === 'person') people.push(r);
    else companies.set(r.id, r);
  }
}, 120_000);

afterAll(async () => {
  logger.setLogLevel(level);
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  resetPeopleIndex();
  await stack?.stop();
  await rm(dir, { recursive: true, force: true });
});

const bare = (p: Person) => normalizeProfessionalUrl(p.professional_url)!;
const withEmail = () => people.filter((p) => p.work_email);
/** What the privacy request's confirm does for an erasure: the opt-out and erasure list, then the directory. */
async function erase(p: Person, directory = true): Promise<void> {
  await recordOptOut({ email: p.work_email!, profiles: [bare(p)], request: 'erase', at: new Date().toISOString() });
  if (directory) await eraseFromDirectory([bare(p)], p.work_email!);
}
const lookups = async (p: Person) => {
  forgetDirectoryVersion();
  return [await dynamoDbDirectory.findByProfessionalUrl(bare(p)), await dynamoDbDirectory.findByEmail(`email#${p.work_email!.toLowerCase()}`)];
};

async function pump<Q extends QueueKey>(queue: Q, handlers: MessageHandlers<Q>): Promise<number> {
  const url = stack.queueUrls[queue]!;
  const r = await stack.sqs.send(new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }));
  for (const m of r.Messages ?? []) {
    try {
      await handleRecord(queue, handlers, { messageId: m.MessageId!, body: m.Body!, attributes: { ApproximateReceiveCount: '1' } } as unknown as SQSRecord);
      await stack.sqs.send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: m.ReceiptHandle! }));
    } catch {
      await stack.sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl: url, ReceiptHandle: m.ReceiptHandle!, VisibilityTimeout: 0 }));
    }
  }
  return r.Messages?.length ?? 0;
}

/** Pump the chunk queue (and the finalize queue unless `chunksOnly`) until `done` holds. */
async function drain(done: () => Promise<boolean>, chunksOnly = false): Promise<void> {
  for (const deadline = Date.now() + 90_000; Date.now() < deadline; ) {
    const n = (await pump('directory-import', directoryImportHandlers)) + (chunksOnly ? 0 : await pump('directory-finalize', directoryFinalizeHandlers));
    if (await done()) return;
    if (n === 0) await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the import did not get there');
}

async function imported(version: string): Promise<void> {
  await planImport({ kind: 'file', path: file }, version, { chunkBytes: 16 * 1024, now: new Date() });
  await drain(async () => (await readDirectoryVersion())?.version === version);
}

async function personIds(version: string): Promise<Set<string>> {
  const ids = new Set<string>();
  let start: Record<string, unknown> | undefined;
  do {
    const page = await documentClient().send(
      new ScanCommand({ TableName: tableName('directory'), ExclusiveStartKey: start, FilterExpression: 'begins_with(pk, :p) AND sk = :s', ExpressionAttributeValues: { ':p': `V#${version}#`, ':s': 'P' }, ProjectionExpression: 'person' }),
    );
    for (const i of page.Items ?? []) ids.add((i.person as Person).id);
    start = page.LastEvaluatedKey;
  } while (start);
  return ids;
}

const artifactIds = async (version: string) => {
  const index = PeopleIndex.fromSnapshot((deserialize(await readFile((await getImport(version))!.index_artifact!)) as { index: Buffer }).index);
  return new Set(Array.from({ length: index.size }, (_, i) => index.entryAt(i).person.id));
};

const [x, y, z] = [0, 1, 2].map((i) => () => withEmail()[i * 37]!);

test('the chunked import: an erased person is deleted from the store, and a re-import of the same file (chunks, finalize, artifact) leaves them out', async () => {
  await imported('eeeeaaaa00000001');
  const other = withEmail()[5]!;
  expect((await lookups(x()))[0]).not.toBeNull();
  await erase(x());
  expect(await lookups(x())).toEqual([null, null]);
  expect((await lookups(other))[0]).not.toBeNull();
  // Idempotent: a confirm retried after a crash erases again without error.
  await eraseFromDirectory([bare(x())], x().work_email!.toUpperCase());

  await imported('eeeeaaaa00000002');
  const status = (await getImport('eeeeaaaa00000002'))!;
  expect(status).toMatchObject({ state: 'complete', people_written: people.length - 1, people_suppressed: 1 });
  expect(await lookups(x())).toEqual([null, null]);
  const ids = await personIds('eeeeaaaa00000002');
  expect(ids.size).toBe(people.length - 1);
  expect(ids.has(x().id)).toBe(false);
  const artifact = await artifactIds('eeeeaaaa00000002');
  expect(artifact.size).toBe(people.length - 1);
  expect(artifact.has(x().id)).toBe(false);
}, 180_000);

test('an erasure that lands while an import runs: the finalize step deletes the items its chunks wrote and leaves the person out of the artifact', async () => {
  await planImport({ kind: 'file', path: file }, 'eeeeaaaa00000003', { chunkBytes: 16 * 1024, now: new Date() });
  // Every chunk written, the finalize step not run yet.
  await drain(async () => (await getImport('eeeeaaaa00000003'))!.chunks_done === (await getImport('eeeeaaaa00000003'))!.chunks_total, true);
  expect((await personIds('eeeeaaaa00000003')).has(y().id)).toBe(true);
  await erase(y());
  await drain(async () => (await readDirectoryVersion())?.version === 'eeeeaaaa00000003');
  expect((await getImport('eeeeaaaa00000003'))!).toMatchObject({ state: 'complete', people_written: people.length - 1, people_suppressed: 1 });
  const ids = await personIds('eeeeaaaa00000003');
  expect([ids.has(x().id), ids.has(y().id), ids.size]).toEqual([false, false, people.length - 2]);
  const artifact = await artifactIds('eeeeaaaa00000003');
  expect([artifact.has(x().id), artifact.has(y().id), artifact.size]).toEqual([false, false, people.length - 2]);
  expect(await lookups(y())).toEqual([null, null]);
}, 180_000);

test("this process's in-memory index: an erasure takes the person out of search and lookups at once", async () => {
  const loaded = await loadDirectoryFile(file);
  useLoadedDirectory(loaded);
  const q = parseQuery(z().current_job_title);
  expect((await loaded.index.search(q, { limit: 1000 })).map((h) => h.person.id)).toContain(z().id);
  expect(await memoryDirectory.findByProfessionalUrl(bare(z()))).not.toBeNull();
  await erase(z());
  expect((await loaded.index.search(q, { limit: 1000 })).map((h) => h.person.id)).not.toContain(z().id);
  expect(await loaded.index.entries([z().id])).toEqual([undefined]);
  expect([await memoryDirectory.findByProfessionalUrl(bare(z())), await memoryDirectory.findByEmail(`email#${z().work_email!.toLowerCase()}`)]).toEqual([null, null]);
  resetPeopleIndex();
}, 60_000);

test("the twin's start from the same file applies the erasure list: its index, its lookups and its DynamoDB import leave the erased out", async () => {
  process.env.DIRECTORY_STORE = 'dynamodb';
  const plan = { file, people: 400, seed: 23 };
  const loading: Promise<LoadedDirectory> = loadDirectory(plan);
  await prepareDirectory({ ...plan, loading });
  const loaded = await loading;
  // The DynamoDB store was imported again (another version: the file's sha256), without the erased.
  const current = (await readDirectoryVersion())!;
  expect(current.version).toBe(loaded.version);
  const ids = await personIds(current.version);
  expect([ids.has(x().id), ids.has(y().id), ids.has(z().id), ids.size]).toEqual([false, false, false, people.length - 3]);
  for (const p of [x(), y(), z()]) expect(await lookups(p)).toEqual([null, null]);
  // And the loaded index: no search, no lookup answers them.
  expect(loaded.index.removedCount).toBe(3);
  const all = await loaded.index.search(parseQuery(x().current_job_title), { limit: 1000 });
  expect(all.map((h) => h.person.id)).not.toContain(x().id);
  expect(await memoryDirectory.findByProfessionalUrl(bare(y()))).toBeNull();
  expect(await memoryDirectory.findByProfessionalUrl(bare(withEmail()[5]!))).not.toBeNull();
}, 120_000);
