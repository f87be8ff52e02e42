/**
 * The OpenSearch translation (shared/search-engine/opensearch-query.ts): explicit request bodies for constraints,
 * keywords, exclusions and continuation; then the whole labelled evaluation set run through an evaluator of
 * the query-DSL subset the translation emits (term, terms, range, prefix, match on keyword fields, bool,
 * constant_score, sort, search_after) over the documents the adapter would index, which must answer exactly
 * what the in-memory engine answers: the same people, the same order, the same scores.
 */
import { generateDirectory } from '../../../shared/directory/generate.js';
import type { Company, DirectoryRecord, Person } from '../../../shared/directory/types.js';
import { normalizeCompanyName } from '../../../shared/directory/urls.js';
import { parseQuery, type ParsedQuery } from '../../../shared/search-engine/query.js';
import { PeopleIndex } from '../../../shared/search-engine/search-engine.js';
import { cursorAfter } from '../../../shared/search-engine/search-port.js';
import {
  MAX_PAGE,
  companyNamesBody,
  peopleDocument,
  scoreOf,
  searchAfterOf,
  searchBody,
  versionIndexName,
  type PeopleDocument,
} from '../../../shared/search-engine/opensearch-query.js';
import { evaluationSet, retitle } from './evaluation-set.js';
import { expected } from './expected.js';

type Json = Record<string, any>;

const records: DirectoryRecord[] = [...generateDirectory({ seed: 42, people: 4_000 })];
const index = PeopleIndex.build(records);
const companies = new Map(records.filter((r): r is Company => r.type === 'company').map((c) => [c.id, c]));
const docs: PeopleDocument[] = records.filter((r): r is Person => r.type === 'person').map((p) => peopleDocument({ person: p, company: companies.get(p.company_id)! }));
const q = (p: Parameters<typeof expected>[0]): ParsedQuery => ({ ...expected(p), terms: [] });

/** A match of one clause against one document, and the score it adds (null: no match). */
function evaluate(clause: Json, doc: Json): number | null {
  const [kind, arg] = Object.entries(clause)[0]! as [string, Json];
  const values = (field: string): unknown[] => [doc[field]].flat();
  switch (kind) {
    case 'term': {
      const [field, value] = Object.entries(arg)[0]!;
      return values(field).includes(value) ? 0 : null;
    }
    case 'match': {
      const [field, value] = Object.entries(arg)[0]!;
      return values(field).includes(value) ? 0 : null;
    }
    case 'terms': {
      const [field, wanted] = Object.entries(arg)[0]! as [string, unknown[]];
      return values(field).some((v) => wanted.includes(v)) ? 0 : null;
    }
    case 'prefix': {
      const [field, value] = Object.entries(arg)[0]! as [string, string];
      return values(field).some((v) => String(v).startsWith(value)) ? 0 : null;
    }
    case 'range': {
      const [field, r] = Object.entries(arg)[0]! as [string, { gte?: number; lte?: number }];
      const v = doc[field] as number;
      return (r.gte === undefined || v >= r.gte) && (r.lte === undefined || v <= r.lte) ? 0 : null;
    }
    case 'constant_score':
      return evaluate(arg.filter, doc) === null ? null : arg.boost;
    case 'bool': {
      if ((arg.filter ?? []).some((c: Json) => evaluate(c, doc) === null)) return null;
      if ((arg.must_not ?? []).some((c: Json) => evaluate(c, doc) !== null)) return null;
      let score = 0;
      for (const c of arg.must ?? []) {
        const s = evaluate(c, doc);
        if (s === null) return null;
        score += s;
      }
      let matched = 0;
      for (const c of arg.should ?? []) {
        const s = evaluate(c, doc);
        if (s !== null) {
          matched++;
          score += s;
        }
      }
      const min = arg.minimum_should_match ?? (arg.must || arg.filter ? 0 : arg.should ? 1 : 0);
      return matched >= min ? score : null;
    }
    default:
      throw new Error(`the evaluator does not know ${kind}`);
  }
}

/** Company names held exactly, as the aggregation of companyNamesBody answers. */
function exactNames(body: Json): Set<string> {
  const wanted = body.query.terms.company_name as string[];
  return new Set(docs.map((d) => d.company_name).filter((n) => wanted.includes(n)));
}

/** One `_search` over the documents: filter, score, sort by (_score desc, person_id asc), search_after, size. */
function run(body: Json, over: PeopleDocument[] = docs): { person_id: string; raw: number }[] {
  const hits: { person_id: string; raw: number }[] = [];
  for (const d of over) {
    const raw = evaluate(body.query, d);
    if (raw !== null) hits.push({ person_id: d.person_id, raw });
  }
  hits.sort((a, b) => b.raw - a.raw || (a.person_id < b.person_id ? -1 : 1));
  const after = body.search_after as [number, string] | undefined;
  const rest = after ? hits.filter((h) => h.raw < after[0] || (h.raw === after[0] && h.person_id > after[1])) : hits;
  return rest.slice(0, body.size);
}

function searchAsOpenSearch(parsed: ParsedQuery, opts: Parameters<typeof searchBody>[1] extends infer O ? Omit<O & object, 'exactCompanies'> : never, over: PeopleDocument[] = docs) {
  const names = [...new Set([...parsed.companies, ...parsed.exclusions.companies])];
  const body: Json = searchBody(parsed, { ...opts, exactCompanies: names.length ? exactNames(companyNamesBody(names)) : new Set() });
  return run(body, over).map((h) => ({ id: h.person_id, score: scoreOf(h.raw, parsed) }));
}

describe('OpenSearch request bodies', () => {
  it('turns structured constraints into filter clauses: terms, an any-of places, a company name, a size range', () => {
    const body: Json = searchBody(
      q({ titles: ['software engineer'], functions: ['engineering'], seniorities: ['senior'], industries: ['Software'], locations: [{ city: 'San Francisco', region: 'California', country: 'us' }, { country: 'DE' }], companies: ['acme'], companySize: { min: 50, max: 500 } }),
      { limit: 25, exactCompanies: new Set(['acme']) },
    );
    expect(body.query.bool.filter).toEqual([
      { terms: { function: ['engineering'] } },
      { terms: { seniority: ['senior'] } },
      { terms: { title_keys: ['software engineer'] } },
      { terms: { industry: ['Software'] } },
      {
        bool: {
          should: [{ bool: { filter: [{ term: { country: 'US' } }, { term: { region: 'california' } }, { term: { city: 'san francisco' } }] } }, { bool: { filter: [{ term: { country: 'DE' } }] } }],
          minimum_should_match: 1,
        },
      },
      { term: { company_name: 'acme' } },
      { range: { company_size: { gte: 50, lte: 500 } } },
    ]);
    expect(body.query.bool.must).toBeUndefined();
    expect(body.query.bool.should).toEqual([{ constant_score: { filter: { terms: { title_exact: ['software engineer'] } }, boost: 0.5 } }]);
    expect(body.size).toBe(25);
    expect(body.sort).toEqual([{ _score: { order: 'desc' } }, { person_id: { order: 'asc' } }]);
    expect(body.search_after).toBeUndefined();
  });

  it('a company name nobody holds exactly means the companies it is a word-prefix of', () => {
    const body: Json = searchBody(q({ companies: ['acme'] }), { limit: 25, exactCompanies: new Set() });
    expect(body.query.bool.filter).toEqual([{ prefix: { company_name: 'acme ' } }]);
    expect(companyNamesBody(['acme', 'globex'])).toEqual({ size: 0, query: { terms: { company_name: ['acme', 'globex'] } }, aggs: { names: { terms: { field: 'company_name', size: 2 } } } });
  });

  it('turns keywords into required, fixed-weight match clauses and a title bonus', () => {
    const body: Json = searchBody(q({ keywords: ['Python', 'kubernetes'] }), { limit: 10, exactCompanies: new Set() });
    expect(body.query.bool.must).toEqual([
      { constant_score: { filter: { match: { words: 'python' } }, boost: 2 } },
      { constant_score: { filter: { match: { words: 'kubernete' } }, boost: 2 } },
    ]);
    expect(body.query.bool.should).toEqual([
      { constant_score: { filter: { match: { title_words: 'python' } }, boost: 1 } },
      { constant_score: { filter: { match: { title_words: 'kubernete' } }, boost: 1 } },
    ]);
    expect(body.query.bool.minimum_should_match).toBe(0);
  });

  it('turns exclusions and earlier pages into must_not', () => {
    const body: Json = searchBody(
      q({ functions: ['sales'], exclusions: { companies: ['globex'], industries: ['Staffing & Recruiting'], functions: ['hr'], seniorities: ['intern'], titles: ['recruiter'], keywords: ['Crypto'] } }),
      { limit: 25, exclude: new Set(['p_1', 'p_2']), exactCompanies: new Set(['globex']) },
    );
    expect(body.query.bool.must_not).toEqual([
      { term: { company_name: 'globex' } },
      { terms: { industry: ['Staffing & Recruiting'] } },
      { terms: { function: ['hr'] } },
      { terms: { seniority: ['intern'] } },
      { terms: { title_keys: ['recruiter'] } },
      { terms: { words: ['crypto'] } },
      { terms: { person_id: ['p_1', 'p_2'] } },
    ]);
  });

  it('continues with search_after on the raw score a cursor came from, and caps a page at the result window', () => {
    const parsed = q({ titles: ['data engineer'], keywords: ['python'] });
    // 1 keyword + titles: weight 4; parts = raw + 0.5.
    expect(scoreOf(3.5, parsed)).toBe(100);
    expect(scoreOf(2, parsed)).toBe(81);
    expect(searchAfterOf({ score: 81, id: 'p_9' }, parsed)).toEqual([2, 'p_9']);
    expect(searchBody(parsed, { limit: 50_000, after: { score: 81, id: 'p_9' }, exactCompanies: new Set() })).toMatchObject({ size: MAX_PAGE, search_after: [2, 'p_9'] });
    // A score no hit of this query can have continues after every hit scored below it.
    expect(searchAfterOf({ score: 90, id: 'p_9' }, parsed)).toEqual([2.5, '']);
    expect(searchAfterOf({ score: 0, id: 'p_9' }, parsed)).toEqual([-1, '']);
    expect(versionIndexName('AbC123')).toBe('people-abc123');
  });

  it('indexes each person with the normalised fields the filters read, and the records to return', () => {
    const d = docs[0]!;
    const person = records.find((r) => r.type === 'person' && r.id === d.person_id) as Person;
    expect(d).toMatchObject({ person_id: person.id, company_id: person.company_id, country: person.location.country_code, company_name: normalizeCompanyName(companies.get(person.company_id)!.name), person, company: companies.get(person.company_id) });
    expect(d.words).toEqual(expect.arrayContaining(d.title_words));
  });
});

describe('the translation answers as the in-memory engine does', () => {
  const set = evaluationSet(records);

  it('every labelled query: the same people in the same order with the same scores, and the same next page', async () => {
    let compared = 0;
    for (const e of set) {
      const parsed = parseQuery(e.query);
      const memory = await index.search(parsed, { limit: 60 });
      const os = searchAsOpenSearch(parsed, { limit: 60 });
      expect([e.query, os]).toEqual([e.query, memory.map((h) => ({ id: h.person.id, score: h.score }))]);
      const after = cursorAfter(memory);
      if (after) {
        const next = (await index.search(parsed, { limit: 60, after })).map((h) => ({ id: h.person.id, score: h.score }));
        expect([e.query, searchAsOpenSearch(parsed, { limit: 60, after })]).toEqual([e.query, next]);
      }
      compared += memory.length;
    }
    expect(compared).toBeGreaterThan(3_000);
  });

  it('titles with qualifiers, inversions, "&" and traps: the same people as the in-memory engine, every variant a title query stands for in one terms filter', async () => {
    const retitled = retitle(records);
    const retitledIndex = PeopleIndex.build(retitled);
    const retitledDocs = retitled.filter((r): r is Person => r.type === 'person').map((p) => peopleDocument({ person: p, company: companies.get(p.company_id)! }));
    expect(peopleDocument({ person: { ...(records.find((r) => r.type === 'person') as Person), current_job_title: 'Senior HR Manager, EMEA' }, company: companies.values().next().value! }).title_keys).toEqual(['HR Manager']);
    expect((searchBody(parseQuery('HR managers'), { limit: 25, exactCompanies: new Set() }) as Json).query.bool.filter).toEqual([
      { terms: { title_keys: ['HR Manager', 'People Operations Manager', 'HR Business Partner', 'HR Director', 'Director of People', 'Head of People', 'VP of Human Resources', 'VP of People'] } },
    ]);
    let compared = 0;
    for (const e of set.filter((x) => x.category === 'title')) {
      const parsed = parseQuery(e.query);
      const memory = await retitledIndex.search(parsed, { limit: 60 });
      expect([e.query, searchAsOpenSearch(parsed, { limit: 60 }, retitledDocs)]).toEqual([e.query, memory.map((h) => ({ id: h.person.id, score: h.score }))]);
      compared += memory.length;
    }
    expect(compared).toBeGreaterThan(1_000);
  });
});
