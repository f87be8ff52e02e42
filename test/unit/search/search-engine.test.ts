/**
 * Engine behaviour over a generated 12,000-person directory: exclusions that do work, required
 * words, ranking, tie-breaking and paging, company-name resolution. Query understanding and
 * per-query precision and recall are covered by the evaluation set (evaluation.test.ts).
 */
import { generateDirectory } from '../../../shared/directory/generate.js';
import type { Company, DirectoryRecord, Person } from '../../../shared/directory/types.js';
import { normalizeCompanyName } from '../../../shared/directory/urls.js';
import { PeopleIndex, type SearchHit } from '../../../shared/search-engine/search-engine.js';
import { parseQuery, type ParsedQuery } from '../../../shared/search-engine/query.js';
import { cursorAfter, ranksAfter, type SearchCursor } from '../../../shared/search-engine/search-port.js';
import { expected } from './expected.js';

type Pred = (p: Person, c: Company) => boolean;

const records: DirectoryRecord[] = [...generateDirectory({ seed: 20240611, people: 12_000 })];
const companies = new Map(records.filter((r): r is Company => r.type === 'company').map((c) => [c.id, c]));
const people = records.filter((r): r is Person => r.type === 'person');
const index = PeopleIndex.build(records);

const fn = (...f: string[]): Pred => (p) => f.includes(p.function);
const all = (...fs: Pred[]): Pred => (p, c) => fs.every((f) => f(p, c));
const RECRUITER = /Recruiter|Talent Acquisition Specialist/;

function matching(pred: Pred): Person[] {
  return people.filter((p) => pred(p, companies.get(p.company_id)!));
}

function search(text: string, limit = 100, exclude?: Set<string>, after?: SearchCursor): Promise<SearchHit[]> {
  return index.search(parseQuery(text), { limit, exclude, after });
}

const byCompany = new Map<string, Person[]>();
for (const p of people) byCompany.set(p.company_id, [...(byCompany.get(p.company_id) ?? []), p]);
const ranked = [...byCompany.entries()].sort((a, b) => b[1].length - a[1].length || a[0].localeCompare(b[0]));
const bigCo = companies.get(ranked[0]![0])!;
const engineersIn = (cc: string, id: string) => byCompany.get(id)!.filter((p) => p.function === 'engineering' && p.location.country_code === cc).length;
const usEngCo = companies.get([...byCompany.keys()].sort((a, b) => engineersIn('US', b) - engineersIn('US', a) || a.localeCompare(b))[0]!)!;
const nameOf = (c: Company) => c.name.replace(/\s+(GmbH|Ltd|Inc\.|AG|B\.V\.|SAS|Pty Ltd)$/, '');
const withEmpty = (p: Parameters<typeof expected>[0]): ParsedQuery => ({ ...expected(p), terms: [] });

describe('PeopleIndex', () => {
  it('builds over every person', async () => {
    expect(index.size).toBe(12_000);
    expect(index.skipped).toBe(0);
    expect(index.person(people[10]!.id)).toBe(people[10]);
    expect(index.company(bigCo.id)).toBe(bigCo);
    expect(index.person('p_missing')).toBeUndefined();
  });

  it('honours exclusions that would otherwise match', async () => {
    // The excluded company really has US engineers, so the exclusion is doing work.
    expect(engineersIn('US', usEngCo.id)).toBeGreaterThan(0);
    const all = await search('engineers in the US', 100_000);
    expect(all.some((h) => h.company.id === usEngCo.id)).toBe(true);
    const excluded = await search(`engineers in the US, not at ${nameOf(usEngCo)}`, 100_000);
    expect(excluded.some((h) => h.company.id === usEngCo.id)).toBe(false);
    expect(excluded.length).toBe(all.length - all.filter((h) => h.company.id === usEngCo.id).length);

    // Agency sellers are found when nothing excludes them (14 in the US at 12,000; the UK has none since the size reshape).
    const withAgencies = await search('sales people in the US', 100_000);
    expect(withAgencies.some((h) => h.company.industry === 'Marketing & Advertising')).toBe(true);
    const noInterns = await search('interns in the United States, no recruiters', 100_000);
    expect(noInterns.length).toBeGreaterThan(0);
    expect(noInterns.every((h) => h.person.seniority === 'intern' && !RECRUITER.test(h.person.current_job_title))).toBe(true);
  });

  it.each([
    'CTOs in Tokyo',
    'VP of Sales at Zyxwvut Holdings',
    'interns who are CEOs',
    'astronaut engineers in Texas',
    'software engineers who know qwertyuiopasdf',
  ])('returns nothing for %s', async (text) => {
    expect(parseQuery(text).titles.length + parseQuery(text).seniorities.length + parseQuery(text).functions.length).toBeGreaterThan(0);
    expect(await search(text)).toEqual([]);
  });

  it('requires every keyword, and a common one only narrows the filtered candidates', async () => {
    const hits = await search('engineers who know python in the United States', 100_000);
    const truth = matching(all(fn('engineering'), (p) => p.location.country_code === 'US' && (p.skills.includes('Python') || /python/i.test(p.headline))));
    expect(truth.length).toBeGreaterThan(10);
    expect(new Set(hits.map((h) => h.person.id))).toEqual(new Set(truth.map((p) => p.id)));
    const without = await search('engineers without python in the United States', 100_000);
    expect(without.length).toBe(matching(all(fn('engineering'), (p) => p.location.country_code === 'US')).length - truth.length);
  });

  it('returns nothing for an empty query', async () => {
    expect(await search('')).toEqual([]);
    expect(await search('   ...   ')).toEqual([]);
  });

  it('ranks exact titles first, with integer scores in 0..100 in a deterministic order', async () => {
    const hits = await search('senior engineers with kubernetes', 200);
    expect(hits.length).toBeGreaterThan(20);
    // A title that names the word outranks a skill that does; ties break by person id.
    const titled = await search('data engineers', 200);
    const exact = titled.findIndex((h) => h.person.current_job_title !== 'Data Engineer');
    expect(exact).toBeGreaterThan(0);
    expect(titled.slice(exact).every((h) => h.person.current_job_title !== 'Data Engineer')).toBe(true);
    for (let i = 0; i < hits.length; i++) {
      expect(Number.isInteger(hits[i]!.score)).toBe(true);
      expect(hits[i]!.score).toBeGreaterThanOrEqual(0);
      expect(hits[i]!.score).toBeLessThanOrEqual(100);
      if (i) expect(hits[i - 1]!.score).toBeGreaterThanOrEqual(hits[i]!.score);
    }
    expect((await search('senior engineers with kubernetes', 200)).map((h) => h.person.id)).toEqual(hits.map((h) => h.person.id));
  });

  it('breaks score ties by person id and pages without overlap via exclude', async () => {
    const first = await search('engineers', 50);
    const ids = first.map((h) => h.person.id);
    expect(ids).toEqual([...ids].sort());
    const second = await search('engineers', 50, new Set(ids));
    expect(second).toHaveLength(50);
    expect(second.some((h) => ids.includes(h.person.id))).toBe(false);
    expect(second[0]!.person.id > ids.at(-1)!).toBe(true);
  });

  it('continues after a cursor exactly as excluding the earlier pages does', async () => {
    for (const text of ['senior engineers with kubernetes', 'data engineers', 'engineers in the US']) {
      const first = await search(text, 40);
      const cursor = cursorAfter(first)!;
      const byExclude = await search(text, 40, new Set(first.map((h) => h.person.id)));
      expect(byExclude.length).toBeGreaterThan(0);
      expect(await search(text, 40, undefined, cursor)).toEqual(byExclude);
      expect(byExclude.every((h) => ranksAfter(h.score, h.person.id, cursor))).toBe(true);
    }
  });

  it('looks people up by id with their companies, in the order asked', async () => {
    const [a, b] = [people[3]!, people[7]!];
    const got = await index.entries([b.id, 'p_missing', a.id]);
    expect(got.map((e) => e && [e.person.id, e.company.id])).toEqual([[b.id, b.company_id], undefined, [a.id, a.company_id]]);
  });

  it('treats keyword-only queries as a text search', async () => {
    const hits = await search('kubernetes', 100_000);
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.every((h) => h.person.skills.includes('Kubernetes') || /kubernetes/i.test(h.person.headline))).toBe(true);
    expect(await search('qwertyuiopasdf')).toEqual([]);
  });

  it('matches a company name exactly, else as a word prefix', async () => {
    const prefix = normalizeCompanyName(bigCo.name).split(' ')[0]!;
    const names = [...companies.values()].map((c) => [c.id, normalizeCompanyName(c.name)] as const);
    const exact = names.filter(([, n]) => n === prefix).map(([id]) => id);
    const want = new Set(exact.length ? exact : names.filter(([, n]) => n.startsWith(prefix + ' ')).map(([id]) => id));
    expect(want.size).toBeGreaterThan(0);
    const q = withEmpty({ companies: [prefix] });
    const hits = await index.search(q, { limit: 100_000 });
    expect(new Set(hits.map((h) => h.company.id))).toEqual(new Set([...want].filter((id) => byCompany.has(id))));
    expect(hits.length).toBe([...want].reduce((n, id) => n + (byCompany.get(id)?.length ?? 0), 0));
  });
});
