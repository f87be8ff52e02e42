/**
 * The OpenSearch form of the search port, as plain data: the people index's mapping, one document per
 * person, and the request body of a parsed query. Pure (no client), so the translation is unit-tested and
 * the adapter (shared/search-engine/opensearch-engine.ts) only sends what this module builds.
 *
 * Matching is the in-memory engine's, field for field: every value is indexed already normalised the way
 * search-engine.ts normalises it (title keys, words, normalised places and company names), so `term`,
 * `terms` and `range` filters decide membership exactly. Keywords are `match` clauses scored with fixed
 * weights (`constant_score`), not BM25: a hit's `_score` is then the in-memory engine's score parts, so both
 * engines rank alike, and a continuation cursor means the same thing in every version of the index (BM25
 * statistics change with each import).
 */
import type { Company, Person } from '../directory/types.js';
import { normalizeCompanyName, normalizeName } from '../directory/urls.js';
import { keywordKey, textKeys, titleKeys, type ParsedQuery, type Place } from './query.js';
import { PEOPLE_ALIAS } from './opensearch-documents.js';
import { rankScore, type DirectoryEntry, type SearchCursor, type SearchHit, type SearchOptions } from './search-port.js';

/** The alias searches read (declared beside the erasure's document deletes); an import swaps it from the old version's index to the new one. */
export { PEOPLE_ALIAS };

/** The index holding one directory version (index names are lower case). */
export const versionIndexName = (version: string): string => `${PEOPLE_ALIAS}-${version.toLowerCase()}`;

/** OpenSearch's default `index.max_result_window`: the most hits one request returns. */
export const MAX_PAGE = 10_000;

const keyword = { type: 'keyword' } as const;

export const PEOPLE_MAPPINGS = {
  dynamic: 'strict',
  properties: {
    person_id: keyword,
    company_id: keyword,
    function: keyword,
    seniority: keyword,
    /** The canonical titles the person's title counts as (query.ts titleKeys). */
    title_keys: keyword,
    /** The normalised title, for the exact-title part of the score. */
    title_exact: keyword,
    title_words: keyword,
    /** Searchable words of title, headline and skills (query.ts textKeys). */
    words: keyword,
    country: keyword,
    region: keyword,
    city: keyword,
    industry: keyword,
    company_size: { type: 'integer' },
    company_name: keyword,
    // Returned, never searched.
    person: { type: 'object', enabled: false },
    company: { type: 'object', enabled: false },
  },
} as const;

export interface PeopleDocument {
  person_id: string;
  company_id: string;
  function: string;
  seniority: string;
  title_keys: string[];
  title_exact: string;
  title_words: string[];
  words: string[];
  country: string;
  region: string;
  city: string;
  industry: string;
  company_size: number;
  company_name: string;
  person: Person;
  company: Company;
}

export function peopleDocument({ person, company }: DirectoryEntry): PeopleDocument {
  const titleWords = textKeys(person.current_job_title);
  const words = new Set([...titleWords, ...textKeys(person.headline), ...person.skills.flatMap((s) => textKeys(s))]);
  return {
    person_id: person.id,
    company_id: company.id,
    function: person.function,
    seniority: person.seniority,
    title_keys: titleKeys(person.current_job_title),
    title_exact: normalizeName(person.current_job_title),
    title_words: [...new Set(titleWords)],
    words: [...words],
    country: person.location.country_code,
    region: normalizeName(person.location.region),
    city: normalizeName(person.location.city),
    industry: company.industry,
    company_size: company.employee_count,
    company_name: normalizeCompanyName(company.name),
    person,
    company,
  };
}

type Clause = Record<string, unknown>;

/** Whether a query gives a search anything to search on (the in-memory engine returns nothing otherwise). */
export function hasSearchTerms(q: ParsedQuery): boolean {
  const x = q.exclusions;
  return !!q.companySize || [q.titles, q.functions, q.seniorities, q.locations, q.industries, q.companies, q.keywords, x.companies, x.industries, x.titles, x.seniorities, x.functions, x.keywords].some((l) => l.length > 0);
}

/** Every company name the query names, constraints and exclusions alike. */
export function namedCompanies(q: ParsedQuery): string[] {
  return [...new Set([...q.companies, ...q.exclusions.companies])];
}

/**
 * Which of `names` some company holds exactly: a name with an exact holder means that company, any other
 * the companies it is a word-prefix of (as the in-memory engine resolves them). One aggregation request.
 */
export function companyNamesBody(names: string[]): Clause {
  return { size: 0, query: { terms: { company_name: names } }, aggs: { names: { terms: { field: 'company_name', size: names.length } } } };
}

export function exactNamesFrom(response: { aggregations?: { names?: { buckets?: { key: string }[] } } }): Set<string> {
  return new Set((response.aggregations?.names?.buckets ?? []).map((b) => b.key));
}

const companyClause = (name: string, exact: Set<string>): Clause => (exact.has(name) ? { term: { company_name: name } } : { prefix: { company_name: `${name} ` } });

const anyOf = (clauses: Clause[]): Clause => (clauses.length === 1 ? clauses[0]! : { bool: { should: clauses, minimum_should_match: 1 } });

function placeClause(p: Place): Clause {
  const parts: Clause[] = [{ term: { country: p.country.toUpperCase() } }];
  if (p.region) parts.push({ term: { region: normalizeName(p.region) } });
  if (p.city) parts.push({ term: { city: normalizeName(p.city) } });
  return { bool: { filter: parts } };
}

/** Score weights of one hit: 2 per required keyword, 1 more when it is in the title, 0.5 for the exact canonical title. */
const WEIGHT = { keyword: 2, titleWord: 1, exactTitle: 0.5 } as const;

interface Scoring {
  keywords: string[];
  canonical: string[];
}

function scoring(q: ParsedQuery): Scoring {
  return { keywords: [...new Set(q.keywords.map(keywordKey))], canonical: q.titles.map(normalizeName) };
}

/**
 * The in-memory engine's 0..100 score from OpenSearch's `_score`: the constant-score clauses add up to the
 * score parts except the 0.5 every hit gets when the query names titles.
 */
export function scoreOf(raw: number, q: ParsedQuery): number {
  const s = scoring(q);
  const titled = s.canonical.length ? 1 : 0;
  return rankScore(raw + 0.5 * titled, 3 * s.keywords.length + titled);
}

/**
 * The `search_after` values that continue after a cursor: the raw `_score` its score came from. A score no
 * raw value gives (a cursor of another query) continues after every hit scored below it.
 */
export function searchAfterOf(cursor: SearchCursor, q: ParsedQuery): [number, string] {
  const s = scoring(q);
  const max = WEIGHT.keyword * s.keywords.length + WEIGHT.titleWord * s.keywords.length + (s.canonical.length ? WEIGHT.exactTitle : 0);
  let below: number | undefined;
  for (let raw = max; raw >= 0; raw -= 0.5) {
    const score = scoreOf(raw, q);
    if (score === cursor.score) return [raw, cursor.id];
    if (score < cursor.score && below === undefined) below = raw;
  }
  // Nothing scores below the cursor: continue after every hit.
  return below === undefined ? [-1, ''] : [below, ''];
}

/** The `_search` body of one page: filters, scored keywords, exclusions, rank order and continuation. */
export function searchBody(q: ParsedQuery, opts: SearchOptions & { exactCompanies: Set<string> }): Clause {
  const x = q.exclusions;
  const s = scoring(q);
  const filter: Clause[] = [];
  if (q.functions.length) filter.push({ terms: { function: q.functions } });
  if (q.seniorities.length) filter.push({ terms: { seniority: q.seniorities } });
  if (q.titles.length) filter.push({ terms: { title_keys: q.titles } });
  if (q.industries.length) filter.push({ terms: { industry: q.industries } });
  if (q.locations.length) filter.push(anyOf(q.locations.map(placeClause)));
  if (q.companies.length) filter.push(anyOf(q.companies.map((n) => companyClause(n, opts.exactCompanies))));
  if (q.companySize) {
    const range: Record<string, number> = {};
    if (q.companySize.min !== undefined) range.gte = q.companySize.min;
    if (q.companySize.max !== undefined) range.lte = q.companySize.max;
    filter.push({ range: { company_size: range } });
  }

  const must = s.keywords.map((k) => ({ constant_score: { filter: { match: { words: k } }, boost: WEIGHT.keyword } }));
  const should: Clause[] = s.keywords.map((k) => ({ constant_score: { filter: { match: { title_words: k } }, boost: WEIGHT.titleWord } }));
  if (s.canonical.length) should.push({ constant_score: { filter: { terms: { title_exact: s.canonical } }, boost: WEIGHT.exactTitle } });

  const mustNot: Clause[] = [];
  for (const n of x.companies) mustNot.push(companyClause(n, opts.exactCompanies));
  if (x.industries.length) mustNot.push({ terms: { industry: x.industries } });
  if (x.functions.length) mustNot.push({ terms: { function: x.functions } });
  if (x.seniorities.length) mustNot.push({ terms: { seniority: x.seniorities } });
  if (x.titles.length) mustNot.push({ terms: { title_keys: x.titles } });
  const forbidden = [...new Set(x.keywords.map(keywordKey))];
  if (forbidden.length) mustNot.push({ terms: { words: forbidden } });
  if (opts.exclude?.size) mustNot.push({ terms: { person_id: [...opts.exclude] } });

  const bool: Clause = {};
  if (filter.length) bool.filter = filter;
  if (must.length) bool.must = must;
  // Optional: they only add to the score of hits the filters and required keywords already admit.
  if (should.length) Object.assign(bool, { should, minimum_should_match: 0 });
  if (mustNot.length) bool.must_not = mustNot;

  const body: Clause = {
    size: Math.min(MAX_PAGE, Math.max(0, Math.floor(opts.limit))),
    query: { bool },
    sort: [{ _score: { order: 'desc' } }, { person_id: { order: 'asc' } }],
    track_scores: true,
    track_total_hits: false,
    _source: ['person', 'company'],
  };
  if (opts.after) body.search_after = searchAfterOf(opts.after, q);
  return body;
}

export interface SearchResponse {
  hits: { hits: { _id: string; _score: number | null; sort: [number, string]; _source: { person: Person; company: Company } }[] };
}

export function hitsFrom(response: SearchResponse, q: ParsedQuery): SearchHit[] {
  return response.hits.hits.map((h) => ({ person: h._source.person, company: h._source.company, score: scoreOf(h.sort[0], q) }));
}

/** The raw `search_after` values of a page's last hit, to ask for the page after it. */
export function lastSortOf(response: SearchResponse): [number, string] | undefined {
  return response.hits.hits.at(-1)?.sort;
}

export interface MgetResponse {
  docs: { _id: string; found: boolean; _source?: { person: Person; company: Company } }[];
}

export function entriesFrom(response: MgetResponse): (DirectoryEntry | undefined)[] {
  return response.docs.map((d) => (d.found && d._source ? { person: d._source.person, company: d._source.company } : undefined));
}
