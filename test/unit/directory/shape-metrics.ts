/**
 * Measures of how a generated directory is shaped (issue 32): the things no real directory has
 * (owners of 196,000-person companies, VPs at 5-person shops, one name shared by thousands, careers
 * from Intern to General Counsel to CEO) and where people are. Pure functions over the records;
 * the unit test asserts them and `bin/bench-directory-shape.ts` prints them.
 */
import { RELATED_FUNCTIONS } from '../../../shared/directory/generate.js';
import { TITLES_BY_FUNCTION, type JobFunction } from '../../../shared/directory/taxonomy.js';
import type { Company, DirectoryRecord, Person } from '../../../shared/directory/types.js';

/** Title -> function, from the generator's own title table. */
const TITLE_FUNCTION = (() => {
  const m = new Map<string, JobFunction>();
  for (const [fn, bySen] of Object.entries(TITLES_BY_FUNCTION)) for (const ts of Object.values(bySen)) for (const t of ts ?? []) if (!m.has(t)) m.set(t, fn as JobFunction);
  return m;
})();

export const titleFunction = (title: string): JobFunction | undefined => TITLE_FUNCTION.get(title);

const FOUNDER_TITLE = /^(Founder|Co-Founder|Owner)\b/;
const CHIEF_OR_VP = /\b(Chief|CEO|CFO|CTO|COO|VP|Vice President|President)\b/;

/** Functions held across a career (current and past roles), the executive function left out. */
export function careerFunctions(p: Person): JobFunction[] {
  const out = new Set<JobFunction>();
  for (const x of p.experience) {
    const f = titleFunction(x.title);
    if (f && f !== 'executive') out.add(f);
  }
  return [...out];
}

/** Two functions are related if equal or neighbours (RELATED_FUNCTIONS is symmetric). */
export const related = (a: JobFunction, b: JobFunction) => a === b || (RELATED_FUNCTIONS[a] ?? []).includes(b);

export interface ShapeReport {
  people: number;
  companies: number;
  owners_or_founders_at_10000_plus: number;
  owner_titles_above_50: number;
  chief_or_vp_non_founders_at_5_or_fewer: number;
  distinct_full_names: number;
  same_full_name_twice_at_one_company: number;
  careers_with_4_plus_functions: number;
  careers_with_an_unrelated_move: number;
  careers_jumping_3_plus_levels: number;
  chief_title_twice_at_one_company: number;
  people_above_company_headcount: number;
  city_shares: Record<string, number>;
  country_shares: Record<string, number>;
}

const LEVEL: Record<string, number> = { intern: 0, entry: 1, senior: 2, manager: 3, director: 4, vp: 5, c_level: 6, founder: 6 };
/** Title -> level, from the generator's title table (past roles carry no seniority field). */
const TITLE_LEVEL = (() => {
  const m = new Map<string, number>();
  for (const bySen of Object.values(TITLES_BY_FUNCTION)) for (const [sen, ts] of Object.entries(bySen)) for (const t of ts ?? []) if (!m.has(t)) m.set(t, LEVEL[sen]!);
  return m;
})();
export const titleLevel = (t: string): number => TITLE_LEVEL.get(t) ?? 1;

export function measureShape(records: Iterable<DirectoryRecord>): ShapeReport {
  const companies = new Map<string, Company>();
  const people: Person[] = [];
  for (const r of records) {
    if (r.type === 'company') companies.set(r.id, r);
    else people.push(r);
  }
  const perCompany = new Map<string, number>();
  const namesAt = new Map<string, Set<string>>();
  const chiefsAt = new Map<string, Set<string>>();
  const names = new Set<string>();
  const cityCount = new Map<string, number>();
  const countryCount = new Map<string, number>();
  let ownersBig = 0;
  let ownersAbove50 = 0;
  let chiefsTiny = 0;
  let dupNames = 0;
  let dupChiefs = 0;
  let fourFns = 0;
  let unrelated = 0;
  let jumps = 0;
  for (const p of people) {
    const c = companies.get(p.company_id)!;
    const size = c.employee_count;
    perCompany.set(c.id, (perCompany.get(c.id) ?? 0) + 1);
    names.add(p.full_name);
    const atCo = namesAt.get(c.id) ?? new Set<string>();
    if (atCo.has(p.full_name)) dupNames++;
    atCo.add(p.full_name);
    namesAt.set(c.id, atCo);
    const founder = p.seniority === 'founder' || FOUNDER_TITLE.test(p.current_job_title);
    if (founder && size >= 10_000) ownersBig++;
    if (/^Owner\b/.test(p.current_job_title) && size > 50) ownersAbove50++;
    if (!founder && size <= 5 && (p.seniority === 'vp' || p.seniority === 'c_level' || CHIEF_OR_VP.test(p.current_job_title))) chiefsTiny++;
    if (p.seniority === 'c_level') {
      const set = chiefsAt.get(c.id) ?? new Set<string>();
      // "CEO" and "Chief Executive Officer" are one seat.
      const seat = /CEO|Chief Executive/.test(p.current_job_title) ? 'CEO' : p.current_job_title;
      if (set.has(seat)) dupChiefs++;
      set.add(seat);
      chiefsAt.set(c.id, set);
    }
    const fns = careerFunctions(p);
    if (fns.length >= 4) fourFns++;
    // A move between consecutive roles (newest first) to a function that is neither the same nor a neighbour.
    let moved = false;
    for (let k = 1; k < p.experience.length && !moved; k++) {
      const a = titleFunction(p.experience[k - 1]!.title);
      const b = titleFunction(p.experience[k]!.title);
      if (a && b && a !== 'executive' && b !== 'executive' && !related(a, b)) moved = true;
    }
    if (moved) unrelated++;
    // Consecutive roles, older to newer: a step up of three or more levels (Intern -> Director).
    // Founding a company is not a promotion: a founder's step into the current role is not counted.
    let jumped = false;
    for (let k = p.seniority === 'founder' ? 2 : 1; k < p.experience.length && !jumped; k++) {
      const newer = k === 1 ? LEVEL[p.seniority]! : titleLevel(p.experience[k - 1]!.title);
      if (newer - titleLevel(p.experience[k]!.title) >= 3) jumped = true;
    }
    if (jumped) jumps++;
    const city = `${p.location.city}, ${p.location.country_code}`;
    cityCount.set(city, (cityCount.get(city) ?? 0) + 1);
    countryCount.set(p.location.country_code, (countryCount.get(p.location.country_code) ?? 0) + 1);
  }
  let over = 0;
  for (const [id, n] of perCompany) if (n > companies.get(id)!.employee_count) over++;
  const share = (m: Map<string, number>, top: number) =>
    Object.fromEntries([...m].sort((a, b) => b[1] - a[1]).slice(0, top).map(([k, n]) => [k, Math.round((n / people.length) * 10_000) / 10_000]));
  return {
    people: people.length,
    companies: companies.size,
    owners_or_founders_at_10000_plus: ownersBig,
    owner_titles_above_50: ownersAbove50,
    chief_or_vp_non_founders_at_5_or_fewer: chiefsTiny,
    distinct_full_names: names.size,
    same_full_name_twice_at_one_company: dupNames,
    careers_with_4_plus_functions: fourFns,
    careers_with_an_unrelated_move: unrelated,
    careers_jumping_3_plus_levels: jumps,
    chief_title_twice_at_one_company: dupChiefs,
    people_above_company_headcount: over,
    city_shares: share(cityCount, 25),
    country_shares: share(countryCount, 30),
  };
}
