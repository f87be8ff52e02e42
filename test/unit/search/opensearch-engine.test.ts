/**
 * The OpenSearch adapter driven through the real `@opensearch-project/opensearch` client against a loopback
 * HTTP server that answers with recorded fixtures (test/fixtures/opensearch/, written from the documented
 * response formats) and records every request: what the adapter sends, and what it makes of the answers.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Client } from '@opensearch-project/opensearch';
import { OpenSearchEngine, publishDirectoryVersion } from '../../../shared/search-engine/opensearch-engine.js';
import type { Company, Person } from '../../../shared/directory/types.js';
import { parseQuery } from '../../../shared/search-engine/query.js';
import { PEOPLE_MAPPINGS, peopleDocument } from '../../../shared/search-engine/opensearch-query.js';

const FIXTURES = join(process.cwd(), 'test/fixtures/opensearch');
const fixture = (name: string) => readFileSync(join(FIXTURES, name), 'utf8');

interface Recorded {
  method: string;
  url: string;
  body: string;
}

/** Answers each request with the next reply its route lists, and records it. */
class FixtureServer {
  readonly requests: Recorded[] = [];
  private server!: Server;
  private readonly replies = new Map<string, { status: number; body?: string }[]>();

  reply(route: string, status: number, file?: string): this {
    this.replies.set(route, [...(this.replies.get(route) ?? []), { status, body: file && fixture(file) }]);
    return this;
  }

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        this.requests.push({ method: req.method!, url: req.url!, body });
        const route = `${req.method} ${req.url!.split('?')[0]}`;
        const next = this.replies.get(route)?.shift();
        if (!next) {
          res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: `no fixture for ${route}` }));
          return;
        }
        res.writeHead(next.status, { 'content-type': 'application/json' }).end(next.body ?? '');
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

const ndjson = (body: string) => body.trim().split('\n').map((l) => JSON.parse(l));

describe('OpenSearch adapter against recorded responses', () => {
  let server: FixtureServer;
  let client: Client;
  beforeEach(async () => {
    server = new FixtureServer();
    client = new Client({ node: await server.start() });
  });
  afterEach(async () => {
    await client.close();
    await server.stop();
  });

  it('resolves named companies, then searches the alias and reads hits, scores and order from the response', async () => {
    server.reply('POST /people/_search', 200, 'search-company-names.json').reply('POST /people/_search', 200, 'search-page.json');
    const parsed = parseQuery('engineers who know python, not at Globex');
    const hits = await new OpenSearchEngine(client).search(parsed, { limit: 25, exclude: new Set(['p_00000001']), after: { score: 100, id: 'p_00000100' } });

    expect(server.requests.map((r) => `${r.method} ${r.url.split('?')[0]}`)).toEqual(['POST /people/_search', 'POST /people/_search']);
    const probe = JSON.parse(server.requests[0]!.body);
    expect(probe).toEqual({ size: 0, query: { terms: { company_name: ['globex'] } }, aggs: { names: { terms: { field: 'company_name', size: 1 } } } });
    const body = JSON.parse(server.requests[1]!.body);
    expect(body.query.bool.filter).toEqual([{ terms: { function: ['engineering'] } }]);
    expect(body.query.bool.must).toEqual([{ constant_score: { filter: { match: { words: 'python' } }, boost: 2 } }]);
    // globex is held exactly (the aggregation's bucket), so it is excluded by term, not by prefix.
    expect(body.query.bool.must_not).toEqual([{ term: { company_name: 'globex' } }, { terms: { person_id: ['p_00000001'] } }]);
    expect(body.search_after).toEqual([3, 'p_00000100']);
    expect(body.size).toBe(25);

    expect(hits.map((h) => [h.person.id, h.company.name, h.score])).toEqual([
      ['p_00000412', 'Initech', 100],
      ['p_00000977', 'Hooli', 83],
    ]);
  });

  it('asks nothing for a query with nothing to search on', async () => {
    expect(await new OpenSearchEngine(client).search(parseQuery('   '), { limit: 25 })).toEqual([]);
    expect(server.requests).toEqual([]);
  });

  it('looks people up in one multi-get, in the order asked, a missing id as undefined', async () => {
    server.reply('POST /people/_mget', 200, 'mget.json');
    const entries = await new OpenSearchEngine(client).entries(['p_00000977', 'p_missing']);
    expect(server.requests).toHaveLength(1);
    expect(JSON.parse(server.requests[0]!.body)).toEqual({ ids: ['p_00000977', 'p_missing'] });
    expect(server.requests[0]!.url).toContain('_source=person%2Ccompany');
    expect(entries.map((e) => e && [e.person.id, e.company.id])).toEqual([['p_00000977', 'c_0107'], undefined]);
  });

  it('publishes a version: creates its index, bulk-loads with a retry of the throttled item, waits for every document, swaps the alias, drops the oldest', async () => {
    server
      .reply('HEAD /people-v8', 404)
      .reply('PUT /people-v8', 200, 'create-index.json')
      .reply('POST /_bulk', 200, 'bulk-throttled.json')
      .reply('POST /_bulk', 200, 'bulk-ok.json')
      .reply('GET /people-v8/_count', 200, 'count.json')
      .reply('GET /_alias/people', 200, 'get-alias.json')
      .reply('POST /_aliases', 200, 'acknowledged.json')
      .reply('GET /_cat/indices/people-*', 200, 'cat-indices.json')
      .reply('DELETE /people-v6', 200, 'acknowledged.json');
    const company = { id: 'c_1', type: 'company', name: 'Initech GmbH', domain: 'initech.example', industry: 'Software', employee_count: 240 } as unknown as Company;
    const person = (id: string) => ({ id, type: 'person', company_id: 'c_1', function: 'engineering', seniority: 'senior', current_job_title: 'Senior Data Engineer', headline: 'Data pipelines', skills: ['Python'], location: { city: 'Berlin', region: 'Berlin', country_code: 'DE' } }) as unknown as Person;
    const slept: number[] = [];
    const out = await publishDirectoryVersion(client, 'V8', [{ person: person('p_a'), company }, { person: person('p_b'), company }], { sleep: async (ms) => void slept.push(ms) });

    expect(out).toEqual({ index: 'people-v8', people: 2 });
    expect(server.requests.map((r) => `${r.method} ${r.url.split('?')[0]}`)).toEqual([
      'HEAD /people-v8',
      'PUT /people-v8',
      'POST /_bulk',
      'POST /_bulk',
      'GET /people-v8/_count',
      'GET /_alias/people',
      'POST /_aliases',
      'GET /_cat/indices/people-*',
      'DELETE /people-v6',
    ]);
    expect(JSON.parse(server.requests[1]!.body)).toEqual({ mappings: JSON.parse(JSON.stringify(PEOPLE_MAPPINGS)) });
    const first = ndjson(server.requests[2]!.body);
    expect(first).toEqual([{ index: { _index: 'people-v8', _id: 'p_a' } }, JSON.parse(JSON.stringify(peopleDocument({ person: person('p_a'), company }))), { index: { _index: 'people-v8', _id: 'p_b' } }, expect.objectContaining({ person_id: 'p_b' })]);
    // Only the rejected document is sent again, after a backoff.
    expect(ndjson(server.requests[3]!.body)).toEqual([{ index: { _index: 'people-v8', _id: 'p_b' } }, expect.objectContaining({ person_id: 'p_b', company_name: 'initech' })]);
    expect(slept).toEqual([200]);
    // One atomic swap: the old index leaves the alias in the same call that adds the new one.
    expect(JSON.parse(server.requests[6]!.body)).toEqual({ actions: [{ remove: { index: 'people-v7', alias: 'people' } }, { add: { index: 'people-v8', alias: 'people' } }] });
    expect(server.requests[7]!.url).toContain('format=json');
  });

  it('does not swap the alias while the new index shows fewer documents than were loaded', async () => {
    server.reply('HEAD /people-v9', 200).reply('POST /_bulk', 200, 'bulk-ok.json');
    for (let i = 0; i < 3; i++) server.reply('GET /people-v9/_count', 200, 'count.json');
    const company = { id: 'c_1', type: 'company', name: 'Initech', industry: 'Software', employee_count: 240 } as unknown as Company;
    const person = (id: string) => ({ id, company_id: 'c_1', function: 'engineering', seniority: 'senior', current_job_title: 'Engineer', headline: '', skills: [], location: { city: 'Berlin', region: 'Berlin', country_code: 'DE' } }) as unknown as Person;
    let clock = 0;
    const realNow = Date.now;
    Date.now = () => clock;
    try {
      const load = publishDirectoryVersion(client, 'v9', ['p_1', 'p_2', 'p_3'].map((id) => ({ person: person(id), company })), { visibleWithinMs: 1_500, sleep: async (ms) => void (clock += ms) });
      await expect(load).rejects.toThrow(/people-v9 shows 2 of 3 documents after waiting; the alias was not swapped/);
    } finally {
      Date.now = realNow;
    }
    expect(server.requests.some((r) => r.url.startsWith('/_aliases'))).toBe(false);
  });
});
