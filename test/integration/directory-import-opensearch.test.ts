/**
 * The directory import with OpenSearch as the search engine, against DynamoDB Local and local SQS with the
 * real handlers, and a loopback stub of the OpenSearch endpoints the import calls, driven by the official
 * client: every people chunk bulk-indexes its people by id into the version's index, the finalize step swaps
 * the alias in one `_aliases` call before the pointer names the version, and drops the replaced index.
 * No live OpenSearch runs here; the stub keeps the documents it is sent and answers counts from them.
 */
import { DeleteMessageCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { QueueKey } from '../../shared/catalog/queues.js';
import { readDirectoryVersion } from '../../shared/directory/directory-version.repository.js';
import { planImport } from '../../shared/directory-import/plan-import.js';
import { getImport } from '../../shared/directory-import/import-status.repository.js';
import { readDirectoryFile, writeDirectoryFile } from '../../shared/directory/file.js';
import type { LocalStack } from '../../shared/local/stack.js';
import { handleRecord, type MessageHandlers } from '../../shared/workers/dispatch.js';
import { directoryFinalizeHandlers, directoryImportHandlers } from '../../shared/workers/directory-import.handlers.js';
import { startTestStack } from '../support/local.js';

interface Request {
  method: string;
  path: string;
  body: string;
  pointer?: string | null;
}

/** Just enough of OpenSearch's index, bulk, count, alias and delete endpoints, keeping what it is sent. */
class OpenSearchStub {
  readonly requests: Request[] = [];
  readonly indices = new Map<string, Map<string, unknown>>();
  alias: string[] = [];
  private server!: Server;

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', async () => {
        const path = req.url!.split('?')[0]!;
        const request: Request = { method: req.method!, path, body };
        if (path === '/_aliases') request.pointer = (await readDirectoryVersion())?.version ?? null;
        this.requests.push(request);
        const send = (status: number, json?: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(json === undefined ? '' : JSON.stringify(json));
        const index = path.split('/')[1]!;
        if (req.method === 'HEAD') return send(this.indices.has(index) ? 200 : 404);
        if (req.method === 'PUT') {
          if (this.indices.has(index)) return send(400, { error: { type: 'resource_already_exists_exception' }, status: 400 });
          this.indices.set(index, new Map());
          return send(200, { acknowledged: true, index });
        }
        if (req.method === 'DELETE') return this.indices.delete(index) ? send(200, { acknowledged: true }) : send(404, { error: { type: 'index_not_found_exception' } });
        if (path === '/_bulk') {
          const lines = body.trim().split('\n').map((l) => JSON.parse(l));
          const items = [];
          for (let i = 0; i < lines.length; i += 2) {
            const { _index, _id } = lines[i].index;
            this.indices.get(_index)!.set(_id, lines[i + 1]);
            items.push({ index: { _index, _id, status: 201 } });
          }
          return send(200, { took: 1, errors: false, items });
        }
        if (path.endsWith('/_count')) return send(200, { count: this.indices.get(index)?.size ?? 0 });
        if (path === '/_alias/people') return this.alias.length ? send(200, Object.fromEntries(this.alias.map((i) => [i, { aliases: { people: {} } }]))) : send(404, {});
        if (path === '/_aliases') {
          for (const action of JSON.parse(body).actions) {
            if (action.remove) this.alias = this.alias.filter((i) => i !== action.remove.index);
            if (action.add && !this.alias.includes(action.add.index)) this.alias.push(action.add.index);
          }
          return send(200, { acknowledged: true });
        }
        send(500, { error: `no stub for ${req.method} ${path}` });
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

let stack: LocalStack;
let stub: OpenSearchStub;
let dir: string;

beforeAll(async () => {
  stub = new OpenSearchStub();
  process.env.SEARCH_ENGINE = 'opensearch';
  process.env.OPENSEARCH_URL = await stub.start();
  process.env.DIRECTORY_VERSION_CACHE_SECONDS = '1';
  process.env.DIRECTORY_GRACE_SECONDS = '1';
  dir = await mkdtemp(join(tmpdir(), 'directory-import-os-'));
  stack = await startTestStack({ workers: false });
}, 120_000);

afterAll(async () => {
  for (const name of ['SEARCH_ENGINE', 'OPENSEARCH_URL', 'DIRECTORY_VERSION_CACHE_SECONDS', 'DIRECTORY_GRACE_SECONDS']) delete process.env[name];
  await stack?.stop();
  await stub?.stop();
  await rm(dir, { recursive: true, force: true });
});

async function pump<Q extends QueueKey>(queue: Q, handlers: MessageHandlers<Q>): Promise<number> {
  const url = stack.queueUrls[queue]!;
  const r = await stack.sqs.send(new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }));
  for (const m of r.Messages ?? []) {
    await handleRecord(queue, handlers, { messageId: m.MessageId!, body: m.Body!, attributes: { ApproximateReceiveCount: '1' } } as unknown as SQSRecord);
    await stack.sqs.send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: m.ReceiptHandle! }));
  }
  return r.Messages?.length ?? 0;
}

async function importFile(name: string, seed: number, people: number): Promise<{ version: string; ids: string[] }> {
  const file = join(dir, name, 'directory.jsonl');
  await writeDirectoryFile(file, { seed, people });
  const ids: string[] = [];
  for await (const r of readDirectoryFile(file)) if (r.type === 'person') ids.push(r.id);
  const version = `${name}${seed}`.padEnd(16, '0');
  await planImport({ kind: 'file', path: file }, version, { chunkBytes: 16 * 1024, now: new Date() });
  for (let deadline = Date.now() + 90_000; (await readDirectoryVersion())?.version !== version; ) {
    if (Date.now() > deadline) throw new Error(`import ${version} did not switch`);
    const n = (await pump('directory-import', directoryImportHandlers)) + (await pump('directory-finalize', directoryFinalizeHandlers));
    if (!n) await new Promise((r) => setTimeout(r, 100));
  }
  return { version, ids };
}

test('each chunk bulk-indexes its people into the version index; finalize swaps the alias before the pointer, then drops the replaced index', async () => {
  const a = await importFile('a', 5, 150);
  const indexA = `people-${a.version}`;
  expect([...stub.indices.get(indexA)!.keys()].sort()).toEqual([...a.ids].sort());
  const bulks = stub.requests.filter((r) => r.path === '/_bulk');
  expect(bulks.length).toBeGreaterThan(1);
  for (const bulk of bulks) {
    const lines = bulk.body.trim().split('\n').map((l) => JSON.parse(l));
    for (let i = 0; i < lines.length; i += 2) {
      expect(lines[i]).toEqual({ index: { _index: indexA, _id: lines[i + 1].person_id } });
      expect(lines[i + 1]).toMatchObject({ person: { id: lines[i + 1].person_id }, company: expect.objectContaining({ id: expect.any(String) }) });
    }
  }
  expect(stub.requests.filter((r) => r.method === 'PUT')).toHaveLength(1);
  const firstSwap = stub.requests.filter((r) => r.path === '/_aliases');
  expect(firstSwap.map((r) => JSON.parse(r.body))).toEqual([{ actions: [{ add: { index: indexA, alias: 'people' } }] }]);
  expect(firstSwap[0]!.pointer).toBeNull();
  expect((await getImport(a.version))!).toMatchObject({ state: 'complete', people_written: 150, index_artifact: null });

  const b = await importFile('b', 6, 120);
  const indexB = `people-${b.version}`;
  const swaps = stub.requests.filter((r) => r.path === '/_aliases');
  // One atomic call removes the old index and adds the new one, while the pointer still names the old version.
  expect(JSON.parse(swaps[1]!.body)).toEqual({ actions: [{ remove: { index: indexA, alias: 'people' } }, { add: { index: indexB, alias: 'people' } }] });
  expect(swaps[1]!.pointer).toBe(a.version);
  expect(stub.alias).toEqual([indexB]);
  expect(stub.indices.has(indexA)).toBe(false);
  expect(stub.indices.get(indexB)!.size).toBe(120);
  expect(stub.requests.findIndex((r) => r.method === 'DELETE' && r.path === `/${indexA}`)).toBeGreaterThan(stub.requests.indexOf(swaps[1]!));
}, 120_000);
