/**
 * Labelled-query precision over a generated 12,000-person directory. Each query states the
 * parse we expect and, separately, a predicate over the raw person/company records (written
 * against record fields, not the parser's output). Every hit must satisfy the predicate, and
 * since the predicate is exactly the hard constraints, the hit count must equal
 * min(limit, people satisfying it): a filter that is too loose or too strict fails.
 */
import { generateDirectory } from '../../../shared/directory/generate.js';
import type { Company, DirectoryRecord, Person } from '../../../shared/directory/types.js';
import { normalizeCompanyName } from '../../../shared/directory/urls.js';
import { PeopleIndex, type SearchHit } from '../../../shared/search/search-engine.js';
import { parseQuery, type ParsedQuery } from '../../../shared/search/query.js';
import { expected } from './expected.js';

type Pred = (p: Person, c: Company) => boolean;

const records: DirectoryRecord[] = [...generateDirectory({ seed: 20240611, people: 12_000 })];
const companies = new Map(records.filter((r): r is Company => r.type === 'company').map((c) => [c.id, c]));
const people = records.filter((r): r is Person => r.type === 'person');
const index = PeopleIndex.build(records);

// Record-level checks, spelled out from the data's own fields.
const title = (re: RegExp): Pred => (p) => re.test(p.current_job_title);
const seniority = (...s: string[]): Pred => (p) => s.includes(p.seniority);
const fn = (...f: string[]): Pred => (p) => f.includes(p.function);
const country = (...cc: string[]): Pred => (p) => cc.includes(p.location.country_code);
const city = (...names: string[]): Pred => (p) => names.includes(p.location.city);
const region = (r: string): Pred => (p) => p.location.region === r;
const industry = (...i: string[]): Pred => (_p, c) => i.includes(c.industry);
const size = (min: number, max: number): Pred => (_p, c) => c.employee_count >= min && c.employee_count <= max;
const atCompany = (id: string): Pred => (p) => p.company_id === id;
const not = (f: Pred): Pred => (p, c) => !f(p, c);
const all = (...fs: Pred[]): Pred => (p, c) => fs.every((f) => f(p, c));

const SWE = /\b(Software Engineer|Frontend Engineer|Backend Engineer|Full Stack Developer|Mobile Developer|Principal Engineer)\b/;
const RECRUITER = /Recruiter|Talent Acquisition Specialist/;

function matching(pred: Pred): Person[] {
  return people.filter((p) => pred(p, companies.get(p.company_id)!));
}

function search(text: string, limit = 100, exclude?: Set<string>): SearchHit[] {
  return index.search(parseQuery(text), { limit, exclude });
}

// Companies picked from the data so that company queries have real answers.
const byCompany = new Map<string, Person[]>();
for (const p of people) byCompany.set(p.company_id, [...(byCompany.get(p.company_id) ?? []), p]);
const ranked = [...byCompany.entries()].sort((a, b) => b[1].length - a[1].length || a[0].localeCompare(b[0]));
const bigCo = companies.get(ranked[0]![0])!;
const engineersIn = (cc: string, id: string) => byCompany.get(id)!.filter((p) => p.function === 'engineering' && p.location.country_code === cc).length;
const usEngCo = companies.get([...byCompany.keys()].sort((a, b) => engineersIn('US', b) - engineersIn('US', a) || a.localeCompare(b))[0]!)!;
const nameOf = (c: Company) => c.name.replace(/\s+(GmbH|Ltd|Inc\.|AG|B\.V\.|SAS|Pty Ltd)$/, '');

interface Labelled {
  text: string;
  parse: Parameters<typeof expected>[0];
  pred: Pred;
  /** at least this many people in the directory satisfy the predicate (guards against vacuous tests) */
  minMatches: number;
}

const LABELLED: Labelled[] = [
  { text: 'CTOs in the United States', parse: { titles: ['Chief Technology Officer'], locations: { countries: ['US'] } }, pred: all(title(/Chief Technology Officer|CTO/), country('US')), minMatches: 5 },
  { text: 'VP of Sales', parse: { titles: ['VP of Sales'] }, pred: title(/^VP of Sales$/), minMatches: 20 },
  { text: 'heads of marketing', parse: { titles: ['Head of Marketing'] }, pred: title(/^Head of Marketing$/), minMatches: 10 },
  { text: 'senior software engineers in California', parse: { titles: ['Software Engineer'], seniorities: ['senior'], locations: { regions: ['California'] } }, pred: all(title(SWE), seniority('senior'), region('California')), minMatches: 5 },
  { text: 'data scientists in India', parse: { titles: ['Data Scientist'], locations: { countries: ['IN'] } }, pred: all(title(/Data Scientist/), country('IN')), minMatches: 5 },
  { text: 'founders of startups', parse: { seniorities: ['founder'], companySize: { max: 200 } }, pred: all(seniority('founder'), size(0, 200)), minMatches: 20 },
  { text: 'director-level people in fintech', parse: { seniorities: ['director'], industries: ['Financial Services'] }, pred: all(seniority('director'), industry('Financial Services')), minMatches: 20 },
  { text: 'executives at enterprise companies', parse: { seniorities: ['c_level', 'vp'], companySize: { min: 1000 } }, pred: all(seniority('c_level', 'vp'), size(1000, Infinity)), minMatches: 100 },
  { text: 'marketing people in NYC', parse: { functions: ['marketing'], locations: { cities: ['New York'] } }, pred: all(fn('marketing'), city('New York')), minMatches: 5 },
  { text: 'engineers based in Berlin', parse: { functions: ['engineering'], locations: { cities: ['Berlin'] } }, pred: all(fn('engineering'), city('Berlin')), minMatches: 3 },
  { text: 'sales leaders in Germany', parse: { functions: ['sales'], seniorities: ['director', 'vp', 'c_level'], locations: { countries: ['DE'] } }, pred: all(fn('sales'), seniority('director', 'vp', 'c_level'), country('DE')), minMatches: 3 },
  { text: 'product managers at SaaS companies with 50-200 employees', parse: { titles: ['Product Manager'], industries: ['Computer Software'], companySize: { min: 50, max: 200 } }, pred: all(title(/Product Manager/), not(title(/Product Marketing/)), industry('Computer Software'), size(50, 200)), minMatches: 1 },
  { text: 'recruiters at companies with fewer than 50 employees', parse: { titles: ['Recruiter'], companySize: { max: 49 } }, pred: all(title(RECRUITER), size(0, 49)), minMatches: 1 },
  { text: 'CFOs at companies with over 1000 employees', parse: { titles: ['Chief Financial Officer'], companySize: { min: 1001 } }, pred: all(title(/Chief Financial Officer/), size(1001, Infinity)), minMatches: 5 },
  { text: 'people in healthtech in Canada', parse: { industries: ['Hospital & Health Care'], locations: { countries: ['CA'] } }, pred: all(industry('Hospital & Health Care'), country('CA')), minMatches: 5 },
  { text: 'adtech account executives', parse: { titles: ['Account Executive'], industries: ['Marketing & Advertising'] }, pred: all(title(/Account Executive/), industry('Marketing & Advertising')), minMatches: 3 },
  { text: 'ecommerce managers in the US', parse: { seniorities: ['manager'], industries: ['Retail'], locations: { countries: ['US'] } }, pred: all(seniority('manager'), industry('Retail'), country('US')), minMatches: 5 },
  { text: 'IT managers at large companies', parse: { titles: ['IT Manager'], companySize: { min: 1000 } }, pred: all(title(/^IT Manager$/), size(1000, Infinity)), minMatches: 5 },
  { text: 'lawyers in Texas', parse: { titles: ['Legal Counsel'], locations: { regions: ['Texas'] } }, pred: all(title(/Legal Counsel|Corporate Counsel/), region('Texas')), minMatches: 1 },
  { text: 'data engineers at mid-market companies', parse: { titles: ['Data Engineer'], companySize: { min: 201, max: 999 } }, pred: all(title(/Data Engineer/), size(201, 999)), minMatches: 3 },
  { text: 'designers in the Bay Area', parse: { titles: ['Designer'], locations: { cities: ['San Francisco', 'San Jose', 'Oakland'] } }, pred: all(title(/Designer/), city('San Francisco', 'San Jose', 'Oakland')), minMatches: 1 },
  { text: 'python developers in Toronto', parse: { titles: ['Software Engineer'], locations: { cities: ['Toronto'] }, keywords: ['python'] }, pred: all(title(SWE), city('Toronto')), minMatches: 1 },
  { text: 'sales people in Australia excluding agencies, no recruiters', parse: { functions: ['sales'], locations: { countries: ['AU'] }, exclusions: { industries: ['Marketing & Advertising'], titles: ['Recruiter'] } }, pred: all(fn('sales'), country('AU'), not(industry('Marketing & Advertising'))), minMatches: 10 },
  { text: 'finance people in London, United Kingdom', parse: { functions: ['finance'], locations: { cities: ['London'], countries: ['GB'] } }, pred: all(fn('finance'), city('London'), country('GB')), minMatches: 3 },
  { text: `engineers working at ${nameOf(bigCo)}`, parse: { functions: ['engineering'], companies: [normalizeCompanyName(bigCo.name)] }, pred: all(fn('engineering'), atCompany(bigCo.id)), minMatches: 5 },
  { text: `people at ${nameOf(bigCo)} except interns`, parse: { companies: [normalizeCompanyName(bigCo.name)], exclusions: { seniorities: ['intern'] } }, pred: all(atCompany(bigCo.id), not(seniority('intern'))), minMatches: 20 },
  { text: `engineers in the US, not at ${nameOf(usEngCo)}`, parse: { functions: ['engineering'], locations: { countries: ['US'] }, exclusions: { companies: [normalizeCompanyName(usEngCo.name)] } }, pred: all(fn('engineering'), country('US'), not(atCompany(usEngCo.id))), minMatches: 100 },
];

describe('PeopleIndex labelled queries', () => {
  it('builds over every person', () => {
    expect(index.size).toBe(12_000);
    expect(index.skipped).toBe(0);
    expect(index.person(people[10]!.id)).toBe(people[10]);
    expect(index.company(bigCo.id)).toBe(bigCo);
    expect(index.person('p_missing')).toBeUndefined();
  });

  it.each(LABELLED.map((l) => [l.text, l] as const))('%s', (_text, l) => {
    expect(parseQuery(l.text)).toEqual(expected(l.parse));
    const truth = matching(l.pred);
    expect(truth.length).toBeGreaterThanOrEqual(l.minMatches);
    const hits = search(l.text);
    for (const h of hits) {
      if (!l.pred(h.person, h.company)) throw new Error(`${l.text}: ${h.person.current_job_title} @ ${h.company.name} (${h.company.industry}, ${h.company.employee_count}) in ${h.person.location.city} violates the constraints`);
      expect(h.company.id).toBe(h.person.company_id);
    }
    expect(hits.length).toBe(Math.min(100, truth.length));
    expect(new Set(hits.map((h) => h.person.id)).size).toBe(hits.length);
  });

  it('honours exclusions that would otherwise match', () => {
    // The excluded company really has US engineers, so the exclusion is doing work.
    expect(engineersIn('US', usEngCo.id)).toBeGreaterThan(0);
    const all = [...search('engineers in the US', 100_000)];
    expect(all.some((h) => h.company.id === usEngCo.id)).toBe(true);
    const excluded = search(`engineers in the US, not at ${nameOf(usEngCo)}`, 100_000);
    expect(excluded.some((h) => h.company.id === usEngCo.id)).toBe(false);
    expect(excluded.length).toBe(all.length - all.filter((h) => h.company.id === usEngCo.id).length);

    const withAgencies = search('sales people in Australia', 100_000);
    expect(withAgencies.some((h) => h.company.industry === 'Marketing & Advertising')).toBe(true);
    const noInterns = search('interns in the United States, no recruiters', 100_000);
    expect(noInterns.length).toBeGreaterThan(0);
    expect(noInterns.every((h) => h.person.seniority === 'intern' && !RECRUITER.test(h.person.current_job_title))).toBe(true);
  });

  it.each([
    ['CTOs in Tokyo', expected({ titles: ['Chief Technology Officer'], locations: { cities: ['Tokyo'] } })],
    ['VP of Sales at Zyxwvut Holdings', expected({ titles: ['VP of Sales'], companies: ['zyxwvut holdings'] })],
    ['interns who are CEOs', expected({ titles: ['Chief Executive Officer'], seniorities: ['intern'] })],
    ['founders at companies with over 150000 employees in Wales', expected({ seniorities: ['founder'], companySize: { min: 150001 }, locations: { regions: ['Wales'] } })],
  ])('returns nothing for %s', (text, parse) => {
    expect(parseQuery(text)).toEqual(parse);
    expect(search(text)).toEqual([]);
  });

  it('returns nothing for an empty query', () => {
    expect(search('')).toEqual([]);
    expect(search('   ...   ')).toEqual([]);
  });

  it('ranks keyword matches first, with integer scores in 0..100 in a deterministic order', () => {
    const hits = search('python engineers', 200);
    expect(hits.length).toBe(200);
    const hasPython = (h: SearchHit) => h.person.skills.includes('Python') || /python/i.test(h.person.headline);
    const firstMiss = hits.findIndex((h) => !hasPython(h));
    const pythonCount = matching(all(fn('engineering'), (p) => p.skills.includes('Python') || /python/i.test(p.headline))).length;
    expect(firstMiss).toBe(Math.min(pythonCount, 200) === 200 ? -1 : pythonCount);
    for (let i = 0; i < hits.length; i++) {
      expect(Number.isInteger(hits[i]!.score)).toBe(true);
      expect(hits[i]!.score).toBeGreaterThanOrEqual(0);
      expect(hits[i]!.score).toBeLessThanOrEqual(100);
      if (i) expect(hits[i - 1]!.score).toBeGreaterThanOrEqual(hits[i]!.score);
    }
    expect(search('python engineers', 200).map((h) => h.person.id)).toEqual(hits.map((h) => h.person.id));
  });

  it('breaks score ties by person id and pages without overlap via exclude', () => {
    const first = search('engineers', 50);
    const ids = first.map((h) => h.person.id);
    expect(ids).toEqual([...ids].sort());
    const second = search('engineers', 50, new Set(ids));
    expect(second).toHaveLength(50);
    expect(second.some((h) => ids.includes(h.person.id))).toBe(false);
    expect(second[0]!.person.id > ids.at(-1)!).toBe(true);
  });

  it('treats keyword-only queries as a text search', () => {
    const hits = search('kubernetes', 100_000);
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.every((h) => h.person.skills.includes('Kubernetes') || /kubernetes/i.test(h.person.headline))).toBe(true);
    expect(search('qwertyuiopasdf')).toEqual([]);
  });

  it('matches a company name exactly, else as a word prefix', () => {
    const prefix = normalizeCompanyName(bigCo.name).split(' ')[0]!;
    const names = [...companies.values()].map((c) => [c.id, normalizeCompanyName(c.name)] as const);
    const exact = names.filter(([, n]) => n === prefix).map(([id]) => id);
    const want = new Set(exact.length ? exact : names.filter(([, n]) => n.startsWith(prefix + ' ')).map(([id]) => id));
    expect(want.size).toBeGreaterThan(0);
    const q: ParsedQuery = { ...expected({}), companies: [prefix] };
    const hits = index.search(q, { limit: 100_000 });
    expect(new Set(hits.map((h) => h.company.id))).toEqual(new Set([...want].filter((id) => byCompany.has(id))));
    expect(hits.length).toBe([...want].reduce((n, id) => n + (byCompany.get(id)?.length ?? 0), 0));
  });
});
