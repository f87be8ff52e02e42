/**
 * The Serverless check of test/support/opensearch-serverless.ts (which the live test applies to every request
 * the adapter sent): it refuses what OpenSearch Serverless does not support, and every body the translation
 * builds for the evaluation set — constraints, exclusions, cursors, company-name lookups — passes it. AWS's
 * list: https://docs.aws.amazon.com/opensearch-service/latest/developerguide/serverless-genref.html
 */
import { generateDirectory } from '../../../shared/directory/generate.js';
import { PEOPLE_ALIAS, companyNamesBody, namedCompanies, searchBody } from '../../../shared/search-engine/opensearch-query.js';
import { parseQuery } from '../../../shared/search-engine/query.js';
import { serverlessProblem, type SentRequest } from '../../support/opensearch-serverless.js';
import { evaluationSet } from './evaluation-set.js';

const search = (body: unknown, path = `/${PEOPLE_ALIAS}/_search`): SentRequest => ({ method: 'POST', path, params: [], body: JSON.stringify(body) });

describe('the OpenSearch Serverless check', () => {
  it.each([
    ['POST', '/people/_refresh', [], ''],
    ['GET', '/_cluster/health', [], ''],
    ['GET', '/_nodes/stats/jvm', [], ''],
    ['POST', '/_search/scroll', [], '{}'],
    ['POST', '/people/_search/point_in_time', [], ''],
  ] as const)('refuses %s %s, an operation outside the list', (method, path, params, body) => {
    expect(serverlessProblem({ method, path, params: [...params], body })).toMatch(/not an operation OpenSearch Serverless supports/);
  });

  it('refuses a refresh or scroll parameter', () => {
    expect(serverlessProblem({ method: 'POST', path: '/_bulk', params: ['refresh'], body: '' })).toMatch(/query parameters outside the list: refresh/);
    expect(serverlessProblem({ method: 'POST', path: '/people/_search', params: ['scroll'], body: '{}' })).toMatch(/scroll/);
  });

  it('refuses scripts, function scores and other DSL outside the list, wherever they are nested', () => {
    expect(serverlessProblem(search({ query: { bool: { filter: [{ script: { script: 'doc.x' } }] } } }))).toMatch(/DSL outside the list: script/);
    expect(serverlessProblem(search({ query: { function_score: { query: { match_all: {} } } } }))).toMatch(/function_score/);
    expect(serverlessProblem(search({ size: 1, pit: { id: 'x' } }))).toMatch(/pit/);
    expect(serverlessProblem(search({ size: 0, aggs: { n: { scripted_metric: {} } } }))).toMatch(/agg:scripted_metric/);
  });

  it('passes field names as data, not DSL', () => {
    expect(serverlessProblem(search({ query: { term: { script: 'x' } }, sort: [{ script: { order: 'asc' } }] }))).toBeNull();
  });
});

describe('every body the translation builds for the evaluation set', () => {
  const records = [...generateDirectory({ seed: 42, people: 4_000 })];
  const set = evaluationSet(records);
  it('stays within what OpenSearch Serverless supports', () => {
    const problems: string[] = [];
    for (const e of set) {
      const q = parseQuery(e.query);
      const names = namedCompanies(q);
      const bodies = [
        searchBody(q, { limit: 25, exactCompanies: new Set(names.slice(0, 1)), exclude: new Set(['p_1']) }),
        searchBody(q, { limit: 25, exactCompanies: new Set(), after: { score: 50, id: 'p_1' } }),
        ...(names.length ? [companyNamesBody(names)] : []),
      ];
      for (const body of bodies) {
        const problem = serverlessProblem(search(body));
        if (problem) problems.push(`${e.query}: ${problem}`);
      }
    }
    expect(problems).toEqual([]);
  });
});
