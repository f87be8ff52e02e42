/**
 * Keeps the evaluation set's labels honest on a smaller directory than the bench's: every query
 * parses to its expected constraints, and returns exactly the people its raw-record predicate
 * selects (precision and recall of 1, the bench's targets being 0.97 and 0.9 at 100,000).
 */
import { generateDirectory } from '../../../shared/directory/generate.js';
import type { DirectoryRecord } from '../../../shared/directory/types.js';
import { PeopleIndex } from '../../../shared/search-engine/search-engine.js';
import { parseQuery } from '../../../shared/search-engine/query.js';
import { CATEGORIES, evaluationSet, retitle, scoreEvaluation, summarize } from './evaluation-set.js';
import { rolesNamed } from './title-oracle.js';
import { constraints } from './expected.js';

const records: DirectoryRecord[] = [...generateDirectory({ seed: 42, people: 20_000 })];
const index = PeopleIndex.build(records);
const set = evaluationSet(records);

describe('search evaluation set', () => {
  it('has at least 300 queries over every category, absent things included', () => {
    expect(set.length).toBeGreaterThanOrEqual(300);
    for (const c of CATEGORIES) expect([c, set.filter((e) => e.category === c).length >= 8]).toEqual([c, true]);
    expect(new Set(set.map((e) => e.query)).size).toBe(set.length);
  });

  it.each(set.map((e) => [e.category, e.query, e] as const))('%s: %s parses to its labelled constraints', (_c, query, e) => {
    expect(constraints(parseQuery(query))).toEqual(e.expect);
  });

  it('returns exactly the people each query describes', async () => {
    const scores = await scoreEvaluation(set, records, (q) => index.search(parseQuery(q), { limit: Number.MAX_SAFE_INTEGER }));
    const misses = scores.filter((s) => s.precision < 1 || s.recall < 1);
    expect(misses).toEqual([]);
    // Not vacuous: most queries that are not about absent things do match people here.
    const matched = scores.filter((s) => s.category !== 'absent' && s.relevant > 0).length;
    expect(matched / scores.filter((s) => s.category !== 'absent').length).toBeGreaterThan(0.9);
    expect(scores.filter((s) => s.category === 'absent').every((s) => s.returned === 0)).toBe(true);
    expect(summarize(scores).at(-1)).toMatchObject({ category: 'overall', precision: 1, recall: 1 });
  });

  it('returns exactly the people each title query describes when titles carry qualifiers, inversions, "&" and traps', async () => {
    const retitled = retitle(records);
    const titled = set.filter((e) => e.category === 'title');
    const retitledIndex = PeopleIndex.build(retitled);
    const scores = await scoreEvaluation(titled, retitled, (q) => retitledIndex.search(parseQuery(q), { limit: Number.MAX_SAFE_INTEGER }));
    expect(scores.filter((s) => s.precision < 1 || s.recall < 1)).toEqual([]);
    // Not vacuous: the retitled directory holds every shape, and the oracle tells role from trap in it.
    const titles = retitled.flatMap((r) => (r.type === 'person' ? [r.current_job_title] : []));
    for (const shape of [/^Senior HR Manager$/, /, EMEA$/, /\(APAC\)$/, /^Director, Finance$/, /^Senior Vice President, Sales$/, /^VP of Sales & Marketing$/, /^Executive Assistant to the /, /^Assistant HR Manager$/, /^HR Assistant$/, /^Associate Director of /, /^Deputy Head of /, /^VP of Sales Operations$/]) {
      expect([String(shape), titles.some((t) => shape.test(t))]).toEqual([String(shape), true]);
    }
    expect([...rolesNamed('VP of Sales & Marketing')]).toEqual(['VP of Sales', 'VP of Marketing']);
    expect([...rolesNamed('Assistant HR Manager'), ...rolesNamed('Executive Assistant to the CEO'), ...rolesNamed('VP of Sales Operations')]).toEqual([]);
    expect(titled.length).toBeGreaterThanOrEqual(100);
  });
});
