/**
 * One contract on two engines, against a real OpenSearch 2.19 node (shared/local/opensearch-node.ts) started
 * once for this file — the only file that starts one, so its cost is counted once. `OPENSEARCH_URL` naming a
 * node on this machine's loopback is used instead (the restart test then skips: it needs a node it owns).
 *
 * Every request goes through a recording proxy, and the last test holds all of them to what OpenSearch
 * Serverless supports (test/support/opensearch-serverless.ts).
 *
 * 1. The labelled evaluation set, deep search's shortlist and agentic search's candidates give the same
 *    people in the same order (and the same scores) on the in-memory engine and on the live node.
 * 2. The directory import with SEARCH_ENGINE=opensearch, its real handlers on DynamoDB Local and local SQS:
 *    chunks bulk-load the version's index, a chunk whose bulk was applied but whose answer was lost is redone
 *    on redelivery, finalize swaps the alias in one `_aliases` call while a loop of searches sees the old
 *    version or the new one and nothing else, the old index is deleted, and a node restarted mid-import
 *    resumes.
 * 3. Opt-outs and erasure (docs/privacy.md): a page filled past an opted-out person gives the same people as on
 *    the in-memory engine; an erasure deletes the person's document; a re-import of the same file leaves them out.
 */
import { ChangeMessageVisibilityCommand, DeleteMessageCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { Client } from '@opensearch-project/opensearch';
import type { SQSRecord } from 'aws-lambda';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OpenSearchEngine, publishDirectoryVersion } from '../../shared/search-engine/opensearch-engine.js';
import { parseCriteria } from '../../shared/understanding/criteria.js';
import { AGENTIC_LIMITS } from '../../shared/agentic/research-step.js';
import type { QueueKey } from '../../shared/catalog/queues.js';
import { readDirectoryVersion } from '../../shared/directory/directory-version.repository.js';
import { readDirectoryFile, writeDirectoryFile } from '../../shared/directory/file.js';
import { generateDirectory } from '../../shared/directory/generate.js';
import { getImport } from '../../shared/directory-import/import-status.repository.js';
import { planImport } from '../../shared/directory-import/plan-import.js';
import type { DirectoryRecord, Person } from '../../shared/directory/types.js';
import { startOpenSearchNode, type OpenSearchNode } from '../../shared/local/opensearch-node.js';
import type { LocalStack } from '../../shared/local/stack.js';
import { deepShortlist } from '../../shared/search-engine/deep-search-shortlist.js';
import { parseQuery } from '../../shared/search-engine/query.js';
import { PeopleIndex } from '../../shared/search-engine/search-engine.js';
import { cursorAfter, type SearchHit } from '../../shared/search-engine/search-port.js';
import { handleRecord, type MessageHandlers } from '../../shared/workers/dispatch.js';
import { directoryFinalizeHandlers, directoryImportHandlers } from '../../shared/workers/directory-import.handlers.js';
import { startTestStack } from '../support/local.js';
import { normalizeProfessionalUrl } from '../../shared/directory/urls.js';
import { eraseFromDirectory } from '../../shared/privacy/directory-erasure.js';
import { recordOptOut } from '../../shared/privacy/opt-outs.repository.js';
import { visiblePage } from '../../shared/search/visible-page.js';
import { startOpenSearchRecorder, type OpenSearchRecorder } from '../support/opensearch-recorder.js';
import { serverlessProblem } from '../support/opensearch-serverless.js';
import { evaluationSet, scoreEvaluation } from '../unit/search/evaluation-set.js';

const external = process.env.OPENSEARCH_URL;
const externalOnLoopback = !!external && ['127.0.0.1', 'localhost', '[::1]'].includes(new URL(external).hostname);

let dir: string;
let node: OpenSearchNode | undefined;
let recorder: OpenSearchRecorder;
let client: Client;
let engine: OpenSearchEngine;
const timings: Record<string, number> = {};
/** The evaluation directory: big enough for 100+ queries with relevant people, small enough for the time budget. */
const EVAL_PEOPLE = 6_000;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'opensearch-live-'));
  const t0 = Date.now();
  const target = externalOnLoopback ? external! : (node = await startOpenSearchNode({ dataDir: join(dir, 'node'), heap: '512m' })).url;
  timings.nodeStartMs = Date.now() - t0;
  recorder = await startOpenSearchRecorder(target);
  client = new Client({ node: recorder.url });
  engine = new OpenSearchEngine(client);
}, 300_000);

afterAll(async () => {
  console.log(`opensearch-live timings: ${JSON.stringify(timings)}`);
  await client?.close();
  await recorder?.stop();
  await node?.stop();
  await rm(dir, { recursive: true, force: true });
}, 60_000);

describe('one contract, two engines: the in-memory engine and a live OpenSearch node', () => {
  let records: DirectoryRecord[];
  let index: PeopleIndex;
  let set: ReturnType<typeof evaluationSet>;

  beforeAll(async () => {
    records = [...generateDirectory({ seed: 42, people: EVAL_PEOPLE })];
    index = PeopleIndex.build(records);
    set = evaluationSet(records);
    const entries = Array.from({ length: index.size }, (_, i) => index.entryAt(i));
    const t0 = Date.now();
    await publishDirectoryVersion(client, 'eval', entries, { sleep: (ms) => new Promise((r) => setTimeout(r, Math.min(ms, 100))) });
    timings.publishMs = Date.now() - t0;
  }, 300_000);

  it('gives every evaluation query the same people, order and scores as the in-memory engine, so exactly the labelled people; continuations too', async () => {
    const live = new Map<string, SearchHit[]>();
    let compared = 0;
    for (const e of set) {
      const q = parseQuery(e.query);
      const all = await engine.search(q, { limit: Number.MAX_SAFE_INTEGER });
      const memory = await index.search(q, { limit: Number.MAX_SAFE_INTEGER });
      expect([e.query, all.map((h) => [h.person.id, h.score])]).toEqual([e.query, memory.map((h) => [h.person.id, h.score])]);
      live.set(e.query, all);
      if (memory.length) compared++;
      // A page and the page after its cursor, as a client pages through.
      const first = memory.slice(0, 50);
      const after = memory.length > 50 ? cursorAfter(first) : undefined;
      if (after) {
        const next = await engine.search(q, { limit: 50, after });
        expect([e.query, next.map((h) => h.person.id)]).toEqual([e.query, (await index.search(q, { limit: 50, after })).map((h) => h.person.id)]);
      }
    }
    expect(compared).toBeGreaterThan(100);
    const scores = await scoreEvaluation(set, records, async (query) => live.get(query)!);
    expect(scores.filter((s) => s.precision < 1 || s.recall < 1)).toEqual([]);
    expect(scores.filter((s) => s.category !== 'absent' && s.relevant > 0).length).toBeGreaterThan(100);
    const some = [index.entryAt(0).person.id, 'p_missing', index.entryAt(7).person.id];
    expect((await engine.entries(some)).map((e) => e?.person.id)).toEqual([some[0], undefined, some[2]]);
  }, 300_000);

  it("gives deep search's shortlist the same people, order and fit scores", async () => {
    const asOf = new Date('2026-11-23T00:00:00Z');
    const queries = set.filter((_, i) => i % 20 === 0).map((e) => e.query);
    let nonEmpty = 0;
    for (const query of queries) {
      const q = parseQuery(query);
      const memory = await deepShortlist(index, q, { size: 100, asOf });
      const live = await deepShortlist(engine, q, { size: 100, asOf });
      expect([query, live.map((e) => [e.person.id, e.score])]).toEqual([query, memory.map((e) => [e.person.id, e.score])]);
      if (memory.length) nonEmpty++;
    }
    expect(nonEmpty).toBeGreaterThan(8);
  }, 300_000);

  it("gives agentic search's candidates the same people in the same order", async () => {
    const queries = [
      'VP of Engineering at fintech companies who have written about platform migrations',
      'Heads of Sales in Germany at companies with 200-1000 employees that are hiring',
      'CTOs of healthcare startups in San Francisco',
      ...set.filter((_, i) => i % 10 === 3).map((e) => e.query),
    ];
    let nonEmpty = 0;
    for (const query of queries) {
      const persona = parseCriteria(query).persona;
      const memory = (await index.search(persona, { limit: AGENTIC_LIMITS.SHORTLIST_MAX })).map((h) => h.person.id);
      const live = (await engine.search(persona, { limit: AGENTIC_LIMITS.SHORTLIST_MAX })).map((h) => h.person.id);
      expect([query, live]).toEqual([query, memory]);
      const step = memory.slice(0, AGENTIC_LIMITS.CANDIDATES_PER_STEP);
      expect([query, (await engine.entries(step)).map((e) => e && [e.person.id, e.company.id])]).toEqual([query, (await index.entries(step)).map((e) => e && [e.person.id, e.company.id])]);
      if (memory.length) nonEmpty++;
    }
    expect(nonEmpty).toBeGreaterThan(10);
  }, 300_000);
});

describe('the directory import against the live node', () => {
  let stack: LocalStack;
  const env = { SEARCH_ENGINE: 'opensearch', DIRECTORY_VERSION_CACHE_SECONDS: '1', DIRECTORY_GRACE_SECONDS: '1' };

  beforeAll(async () => {
    Object.assign(process.env, env, { OPENSEARCH_URL: recorder.url });
    stack = await startTestStack({ workers: false });
  }, 120_000);

  afterAll(async () => {
    for (const name of [...Object.keys(env), 'OPENSEARCH_URL']) delete process.env[name];
    await stack?.stop();
  });

  /** One receive of a queue: each message handled; a failed one is made visible again at once (a redelivery). */
  async function pump<Q extends QueueKey>(queue: Q, handlers: MessageHandlers<Q>, max = 10): Promise<{ handled: number; failed: number }> {
    const url = stack.queueUrls[queue]!;
    const r = await stack.sqs.send(new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: max, WaitTimeSeconds: 0 }));
    let failed = 0;
    for (const m of r.Messages ?? []) {
      try {
        await handleRecord(queue, handlers, { messageId: m.MessageId!, body: m.Body!, attributes: { ApproximateReceiveCount: '1' } } as unknown as SQSRecord);
        await stack.sqs.send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: m.ReceiptHandle! }));
      } catch {
        failed++;
        await stack.sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl: url, ReceiptHandle: m.ReceiptHandle!, VisibilityTimeout: 0 }));
      }
    }
    return { handled: r.Messages?.length ?? 0, failed };
  }

  interface Planned {
    version: string;
    ids: string[];
    index: PeopleIndex;
  }

  async function plan(name: string, seed: number, people: number): Promise<Planned> {
    const file = join(dir, name, 'directory.jsonl');
    await writeDirectoryFile(file, { seed, people });
    const ids: string[] = [];
    const records: DirectoryRecord[] = [];
    for await (const r of readDirectoryFile(file)) {
      records.push(r);
      if (r.type === 'person') ids.push(r.id);
    }
    const version = `${name}${seed}`.padEnd(16, '0');
    await planImport({ kind: 'file', path: file }, version, { chunkBytes: 32 * 1024, now: new Date() });
    return { version, ids, index: PeopleIndex.build(records) };
  }

  /** Pumps the import's queues until the pointer names `version`; `between` runs after each round. */
  async function finish(version: string, between?: (round: number) => Promise<void>, max = 10): Promise<{ failed: number }> {
    let failed = 0;
    // The deadline counts rounds' time only, not a restart's (`between`).
    for (let round = 0, deadline = Date.now() + 120_000; (await readDirectoryVersion())?.version !== version; round++) {
      if (Date.now() > deadline) throw new Error(`import ${version} did not switch`);
      const a = await pump('directory-import', directoryImportHandlers, max);
      const b = await pump('directory-finalize', directoryFinalizeHandlers);
      failed += a.failed + b.failed;
      const paused = Date.now();
      await between?.(round);
      deadline += Date.now() - paused;
      if (!a.handled && !b.handled) await new Promise((r) => setTimeout(r, 100));
    }
    return { failed };
  }

  const count = async (index: string) => ((await client.count({ index })).body as { count: number }).count;
  const exists = async (index: string) => (await client.indices.exists({ index })).body as boolean;
  const aliasTargets = async () => Object.keys((await client.indices.getAlias({ name: 'people' })).body as object);

  let a: Planned;

  it('chunks bulk-load the version index by person id; a chunk whose bulk was applied but whose answer was lost is redone', async () => {
    a = await plan('a', 5, 500);
    const before = recorder.requests.length;
    // The first people chunk's bulk reaches the node (its documents are written) but every answer to it is
    // lost, the client's own retries included: the handler fails and the message comes back.
    let lost = 0;
    recorder.failAfterForwarding = (r) => r.path === '/_bulk' && r.body.includes(`"people-${a.version}"`) && lost++ < 4;
    const { failed } = await finish(a.version);
    recorder.failAfterForwarding = undefined;
    expect(failed).toBeGreaterThanOrEqual(1);
    const index = `people-${a.version}`;
    expect(await count(index)).toBe(a.ids.length);
    const sent = recorder.requests.slice(before);
    const bulks = sent.filter((r) => r.path === '/_bulk');
    expect(bulks.length).toBeGreaterThan(2);
    const bulkIds = new Set<string>();
    for (const bulk of bulks) {
      const lines = bulk.body.trim().split('\n').map((l) => JSON.parse(l));
      for (let i = 0; i < lines.length; i += 2) {
        expect(lines[i]).toEqual({ index: { _index: index, _id: lines[i + 1].person_id } });
        bulkIds.add(lines[i + 1].person_id);
      }
    }
    expect([...bulkIds].sort()).toEqual([...a.ids].sort());
    const swaps = sent.filter((r) => r.path === '/_aliases');
    expect(swaps.map((r) => JSON.parse(r.body))).toEqual([{ actions: [{ remove: { index: 'people-eval', alias: 'people' } }, { add: { index, alias: 'people' } }] }]);
    expect(await aliasTargets()).toEqual([index]);
    expect((await getImport(a.version))!).toMatchObject({ state: 'complete', people_written: a.ids.length });
  }, 180_000);

  it('swaps the alias in one call while a loop of searches sees the old version or the new, never a miss or a mix; the old index is deleted', async () => {
    const b = await plan('b', 6, 400);
    const q = parseQuery('engineers');
    const expectA = (await a.index.search(q, { limit: 30 })).map((h) => h.person.id);
    const expectB = (await b.index.search(q, { limit: 30 })).map((h) => h.person.id);
    expect(expectA.length).toBeGreaterThan(5);
    expect(expectB.length).toBeGreaterThan(5);
    expect(expectA).not.toEqual(expectB);

    const seen = { a: 0, b: 0, other: [] as string[][] };
    let searching = true;
    const loop = (async () => {
      while (searching || seen.b < 5) {
        const ids = (await engine.search(q, { limit: 30 })).map((h) => h.person.id);
        if (JSON.stringify(ids) === JSON.stringify(expectA)) seen.a++;
        else if (JSON.stringify(ids) === JSON.stringify(expectB)) seen.b++;
        else seen.other.push(ids);
      }
    })();
    const before = recorder.requests.length;
    await finish(b.version);
    searching = false;
    await loop;

    expect(seen.other).toEqual([]);
    expect(seen.a).toBeGreaterThan(0);
    expect(seen.b).toBeGreaterThanOrEqual(5);
    const swaps = recorder.requests.slice(before).filter((r) => r.path === '/_aliases');
    expect(swaps.map((r) => JSON.parse(r.body))).toEqual([{ actions: [{ remove: { index: `people-${a.version}`, alias: 'people' } }, { add: { index: `people-${b.version}`, alias: 'people' } }] }]);
    expect(await aliasTargets()).toEqual([`people-${b.version}`]);
    expect(await exists(`people-${a.version}`)).toBe(false);
    expect(await count(`people-${b.version}`)).toBe(b.ids.length);
  }, 180_000);

  (node || !externalOnLoopback ? it : it.skip)('resumes an import whose node was restarted midway', async () => {
    const c = await plan('c', 7, 500);
    let restarted = false;
    // Two chunks a round, and the node restarted once some people are in the version's index, before the rest.
    await finish(c.version, async () => {
      if (restarted || !(await exists(`people-${c.version}`)) || !(await count(`people-${c.version}`))) return;
      restarted = true;
      expect((await getImport(c.version))!.state).not.toBe('complete');
      const t0 = Date.now();
      await node!.stop();
      node = await startOpenSearchNode({ dataDir: node!.dataDir, port: node!.port, heap: '512m' });
      timings.restartMs = Date.now() - t0;
    }, 2);
    expect(restarted).toBe(true);
    expect(await count(`people-${c.version}`)).toBe(c.ids.length);
    expect(await aliasTargets()).toEqual([`people-${c.version}`]);
    const q = parseQuery('engineers');
    expect((await engine.search(q, { limit: 20 })).map((h) => h.person.id)).toEqual((await c.index.search(q, { limit: 20 })).map((h) => h.person.id));
  }, 300_000);

  it('opt-outs and erasure (docs/privacy.md): a page fills past an opted-out person as on the in-memory engine; an erased person is deleted from the index and a re-import of the same file leaves them out', async () => {
    const d = await plan('d', 8, 400);
    await finish(d.version);
    const bare = (p: Person) => normalizeProfessionalUrl(p.professional_url)!;
    const q = parseQuery('managers');
    const ranked = await engine.search(q, { limit: 60 });
    expect(ranked.length).toBeGreaterThan(40);
    const [out, erased] = ranked.slice(1, 20).filter((h) => h.person.work_email).map((h) => h.person) as [Person, Person];
    const at = new Date().toISOString();

    await recordOptOut({ email: out.work_email!, profiles: [bare(out)], request: 'opt_out', at });
    const live = await visiblePage(engine, q, { limit: 25 });
    const memory = await visiblePage(d.index, q, { limit: 25 });
    expect(live.hits.map((h) => h.person.id)).toEqual(ranked.slice(0, 26).map((h) => h.person.id).filter((id) => id !== out.id));
    expect(live.hits.map((h) => [h.person.id, h.score])).toEqual(memory.hits.map((h) => [h.person.id, h.score]));
    expect(live.after).toEqual(memory.after);
    const next = await visiblePage(engine, q, { limit: 25, after: live.after });
    expect(next.hits.map((h) => h.person.id)).toEqual(ranked.slice(26, 51).map((h) => h.person.id).filter((id) => id !== out.id));

    await recordOptOut({ email: erased.work_email!, profiles: [bare(erased)], request: 'erase', at });
    const before = recorder.requests.length;
    await eraseFromDirectory([bare(erased)], erased.work_email!);
    const deletes = recorder.requests.slice(before).filter((r) => r.path === '/_bulk');
    expect(deletes.map((r) => r.body.trim().split('\n').map((l) => JSON.parse(l)))).toEqual([[{ delete: { _index: `people-${d.version}`, _id: erased.id } }]]);
    expect(await engine.entries([erased.id, out.id])).toEqual([undefined, expect.objectContaining({ person: expect.objectContaining({ id: out.id }) })]);

    // The same file imported again: its chunks leave the erased person out, the swap counts one fewer.
    const again = 'd8'.padEnd(16, '1');
    await planImport({ kind: 'file', path: join(dir, 'd', 'directory.jsonl') }, again, { chunkBytes: 32 * 1024, now: new Date() });
    await finish(again);
    expect((await getImport(again))!).toMatchObject({ state: 'complete', people_written: d.ids.length - 1, people_suppressed: 1 });
    expect(await count(`people-${again}`)).toBe(d.ids.length - 1);
    expect(await engine.entries([erased.id])).toEqual([undefined]);
  }, 300_000);
});

test('every request the adapter sent is an operation, parameter and query DSL that OpenSearch Serverless supports', () => {
  expect(recorder.requests.length).toBeGreaterThan(500);
  const kinds = new Set(recorder.requests.map((r) => `${r.method} ${r.path.replace(/^\/people[^/]*/, '/<index>')}`));
  for (const op of ['PUT /<index>', 'POST /_bulk', 'POST /<index>/_search', 'POST /<index>/_mget', 'POST /_aliases', 'GET /_alias/people', 'DELETE /<index>']) expect(kinds).toContain(op);
  expect(recorder.requests.map(serverlessProblem).filter((p) => p !== null)).toEqual([]);
});
