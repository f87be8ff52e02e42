/**
 * What Amazon OpenSearch Serverless accepts, as a check on the requests the adapter sends: the API operations
 * listed in AWS's "Supported operations and plugins in Amazon OpenSearch Serverless"
 * (https://docs.aws.amazon.com/opensearch-service/latest/developerguide/serverless-genref.html), restricted to
 * the ones this service has reason to send, and the query DSL the adapter builds. Anything else — `_refresh`,
 * `_cluster/*`, `_nodes/*`, scroll and point-in-time, a script, a `refresh=` parameter — fails the check:
 * adding it to the adapter means first checking the AWS page and then this list.
 */

export interface SentRequest {
  method: string;
  /** Path without the query string, e.g. `/people/_search`. */
  path: string;
  /** Query-string parameter names. */
  params: string[];
  body: string;
}

const INDEX = '[a-z0-9][a-z0-9._-]*';

/** [method, path pattern, the page's data-access permission] — each an operation on AWS's list. */
export const SERVERLESS_OPERATIONS: [string, RegExp, string][] = [
  ['PUT', new RegExp(`^/${INDEX}$`), 'aoss:CreateIndex (PUT <index>)'],
  ['HEAD', new RegExp(`^/${INDEX}$`), 'aoss:DescribeIndex (HEAD <index>)'],
  ['GET', /^\/_cat\/indices(\/[^/]+)?$/, 'aoss:DescribeIndex (GET _cat/indices)'],
  ['DELETE', new RegExp(`^/${INDEX}$`), 'aoss:DeleteIndex (DELETE <target>)'],
  ['POST', /^\/_bulk$/, 'aoss:WriteDocument (POST _bulk)'],
  ['PUT', /^\/_bulk$/, 'aoss:WriteDocument (PUT _bulk)'],
  ['POST', new RegExp(`^/${INDEX}/_bulk$`), 'aoss:WriteDocument (POST <index>/_bulk)'],
  ['POST', new RegExp(`^/${INDEX}/_search$`), 'aoss:ReadDocument (POST <index>/_search)'],
  ['GET', new RegExp(`^/${INDEX}/_search$`), 'aoss:ReadDocument (GET <index>/_search)'],
  ['POST', new RegExp(`^/${INDEX}/_mget$`), 'aoss:ReadDocument (POST <index>/_mget)'],
  ['GET', new RegExp(`^/${INDEX}/_mget$`), 'aoss:ReadDocument (GET <index>/_mget)'],
  ['POST', new RegExp(`^/${INDEX}/_count$`), 'aoss:ReadDocument (POST <index>/_count)'],
  ['GET', new RegExp(`^/${INDEX}/_count$`), 'aoss:ReadDocument (GET <index>/_count)'],
  ['POST', /^\/_aliases$/, 'aoss:UpdateAlias (POST _aliases)'],
  ['GET', /^\/_alias\/[^/]+$/, 'aoss:DescribeAlias (GET _alias/<alias>)'],
];

/** Query parameters the adapter may send (none that Serverless ignores or refuses, such as `refresh`). */
export const SERVERLESS_PARAMS = new Set(['format', '_source', 'index']);

/**
 * Every key the adapter's request bodies may hold: search body keys, the query clauses, their options, and
 * the `_bulk` / `_mget` / `_aliases` shapes. Field names (under `term`, `terms`, `range`, `prefix`, `match`
 * and `sort`) are not keys of the DSL and are not checked. Deliberately absent: `script`, `script_score`,
 * `function_score`, `scroll`, `pit`, `runtime_mappings`, `knn`, `collapse`, `rescore`.
 */
export const SERVERLESS_DSL = new Set([
  // search body
  'size', 'query', 'sort', 'track_scores', 'track_total_hits', '_source', 'search_after', 'aggs',
  // compound and leaf queries
  'bool', 'filter', 'must', 'should', 'must_not', 'minimum_should_match', 'constant_score', 'boost',
  'term', 'terms', 'range', 'prefix', 'match', 'gte', 'lte', 'order',
  // aggregation: terms
  'field',
  // _mget, _aliases, _bulk action lines (`delete`: an erasure, shared/privacy/directory-erasure.ts), index creation
  'ids', 'actions', 'add', 'remove', 'index', 'delete', 'alias', '_index', '_id', 'mappings',
]);

/** Keys whose value is keyed by field names (the field is not DSL). */
const FIELD_KEYED = new Set(['term', 'terms', 'range', 'prefix', 'match']);

function dslKeys(value: unknown, into: Set<string>, fieldKeyed = false): void {
  if (Array.isArray(value)) {
    for (const v of value) dslKeys(v, into);
    return;
  }
  if (!value || typeof value !== 'object') return;
  for (const [k, v] of Object.entries(value)) {
    if (fieldKeyed) {
      // `{ field: value }` or `{ field: { gte, lte } }`: only the options inside count.
      if (v && typeof v === 'object' && !Array.isArray(v)) dslKeys(v, into);
      continue;
    }
    into.add(k);
    if (k === 'sort') {
      for (const s of Array.isArray(v) ? v : [v]) if (s && typeof s === 'object') for (const opt of Object.values(s)) dslKeys(opt, into);
      continue;
    }
    if (k === 'aggs') {
      // `{ <name>: { terms: { field, size } } }`: the aggregation's name is not DSL.
      for (const agg of Object.values(v as object)) for (const [type, opts] of Object.entries(agg as object)) (into.add(`agg:${type}`), dslKeys(opts, into));
      continue;
    }
    if (k === 'mappings' || k === '_source') continue; // a mapping is data (PEOPLE_MAPPINGS, checked in its own test); _source lists field names
    if (k === 'search_after' || k === 'ids') continue;
    dslKeys(v, into, FIELD_KEYED.has(k));
  }
}

/** The DSL keys of one request body (`_bulk`'s NDJSON action lines included, its documents excluded). */
export function bodyKeys(r: SentRequest): Set<string> {
  const keys = new Set<string>();
  if (!r.body.trim()) return keys;
  if (r.path.endsWith('/_bulk')) {
    const lines = r.body.trim().split('\n');
    for (let i = 0; i < lines.length; i += 2) dslKeys(JSON.parse(lines[i]!), keys);
    return keys;
  }
  dslKeys(JSON.parse(r.body), keys);
  return keys;
}

/** Why a request would not run on OpenSearch Serverless, or null when it would. */
export function serverlessProblem(r: SentRequest): string | null {
  if (!SERVERLESS_OPERATIONS.some(([m, p]) => m === r.method && p.test(r.path))) return `${r.method} ${r.path} is not an operation OpenSearch Serverless supports`;
  const params = r.params.filter((p) => !SERVERLESS_PARAMS.has(p));
  if (params.length) return `${r.method} ${r.path} sends query parameters outside the list: ${params.join(', ')}`;
  const unknown = [...bodyKeys(r)].filter((k) => !SERVERLESS_DSL.has(k) && k !== 'agg:terms');
  if (unknown.length) return `${r.method} ${r.path} uses query DSL outside the list: ${unknown.join(', ')}`;
  return null;
}
