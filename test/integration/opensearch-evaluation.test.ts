/**
 * The labelled evaluation set against a live OpenSearch, skipped unless `OPENSEARCH_URL` names one on this
 * machine's loopback (a local engine, or a tunnel to a domain or collection): nothing here reaches beyond
 * loopback. It publishes a 20,000-person directory as a new version behind the `people` alias (so use a
 * scratch engine), then holds every query to exact answers, as test/unit/search/evaluation.test.ts holds
 * the in-memory engine, and to the in-memory engine's order and scores.
 */
import { Client } from '@opensearch-project/opensearch';
import { OpenSearchEngine, publishDirectoryVersion } from '../../shared/adapters/opensearch-engine.js';
import { generateDirectory } from '../../shared/directory/generate.js';
import type { DirectoryRecord } from '../../shared/directory/types.js';
import { parseQuery } from '../../shared/search/query.js';
import { PeopleIndex } from '../../shared/search/search-engine.js';
import { cursorAfter } from '../../shared/search/search-port.js';
import { evaluationSet, scoreEvaluation } from '../unit/search/evaluation-set.js';

const url = process.env.OPENSEARCH_URL;
const onLoopback = !!url && ['127.0.0.1', 'localhost', '[::1]'].includes(new URL(url).hostname);
const liveDescribe = onLoopback ? describe : describe.skip;

liveDescribe('the evaluation set on a live OpenSearch (OPENSEARCH_URL)', () => {
  let records: DirectoryRecord[];
  let index: PeopleIndex;
  let set: ReturnType<typeof evaluationSet>;
  let client: Client;
  let engine: OpenSearchEngine;

  beforeAll(async () => {
    records = [...generateDirectory({ seed: 42, people: 20_000 })];
    index = PeopleIndex.build(records);
    set = evaluationSet(records);
    client = new Client({ node: url! });
    engine = new OpenSearchEngine(client);
    const entries = Array.from({ length: index.size }, (_, i) => index.entryAt(i));
    await publishDirectoryVersion(client, `eval-${Date.now()}`, entries);
  }, 600_000);
  afterAll(() => client?.close());

  it('returns exactly the people each query describes', async () => {
    const scores = await scoreEvaluation(set, records, (q) => engine.search(parseQuery(q), { limit: Number.MAX_SAFE_INTEGER }));
    expect(scores.filter((s) => s.precision < 1 || s.recall < 1)).toEqual([]);
    expect(scores.filter((s) => s.category !== 'absent' && s.relevant > 0).length).toBeGreaterThan(100);
  }, 600_000);

  it('ranks, scores and continues as the in-memory engine does', async () => {
    for (const e of set) {
      const q = parseQuery(e.query);
      const memory = await index.search(q, { limit: 50 });
      const live = await engine.search(q, { limit: 50 });
      expect([e.query, live.map((h) => [h.person.id, h.score])]).toEqual([e.query, memory.map((h) => [h.person.id, h.score])]);
      const after = cursorAfter(memory);
      if (after) {
        const next = await engine.search(q, { limit: 50, after });
        expect([e.query, next.map((h) => h.person.id)]).toEqual([e.query, (await index.search(q, { limit: 50, after })).map((h) => h.person.id)]);
      }
    }
    const some = [index.entryAt(0).person.id, 'p_missing', index.entryAt(7).person.id];
    expect((await engine.entries(some)).map((e) => e?.person.id)).toEqual([some[0], undefined, some[2]]);
  }, 600_000);
});
