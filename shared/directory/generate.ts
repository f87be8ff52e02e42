/**
 * Deterministic sample-directory generator: the same seed yields byte-identical records.
 * Companies are emitted first (about one per 25 people), then people. Every random choice
 * comes from one seeded PRNG; nothing reads the wall clock (dates are relative to `asOf`).
 */
import { isValidPhoneNumber, parsePhoneNumber, type CountryCode } from 'libphonenumber-js/max';
import examples from 'libphonenumber-js/mobile/examples';
import { COUNTRY_SHARES, coveredCities, type City } from './geo.js';
import {
  INDUSTRIES,
  INDUSTRY_STAFF,
  SKILLS,
  TITLES_BY_FUNCTION,
  type JobFunction,
  type Seniority,
} from './taxonomy.js';
import {
  BRAND_ROOTS,
  CODA,
  CULTURES_BY_COUNTRY,
  FIELDS,
  LEGAL_SUFFIX,
  NAMES,
  SCHOOLS,
  SUFFIXES_BY_INDUSTRY,
  SYLLABLES,
} from './sample-data.js';
import type { Company, DirectoryRecord, Education, Experience, Person, Place } from './types.js';

export interface GenerateOptions {
  seed: number;
  people: number;
  /** Reference month for "now" (YYYY-MM); fixed so output never depends on the wall clock. */
  asOf?: string;
}

/** mulberry32: tiny, fast, good enough for sample data, and identical on every platform. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Rng {
  readonly next: () => number;
  constructor(seed: number) {
    this.next = mulberry32(seed);
  }
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.next() * xs.length)]!;
  }
  hex(n: number): string {
    let s = '';
    for (let i = 0; i < n; i++) s += Math.floor(this.next() * 16).toString(16);
    return s;
  }
  /** Distinct picks, order kept random. */
  sample<T>(xs: readonly T[], n: number): T[] {
    const copy = [...xs];
    const out: T[] = [];
    while (out.length < n && copy.length) out.push(copy.splice(Math.floor(this.next() * copy.length), 1)[0]!);
    return out;
  }
}

/** Weighted choice in O(log n) over a precomputed cumulative table. */
class Weighted<T> {
  private readonly cum: Float64Array;
  constructor(
    readonly items: readonly T[],
    weights: readonly number[],
  ) {
    this.cum = new Float64Array(items.length);
    let total = 0;
    weights.forEach((w, i) => {
      total += w;
      this.cum[i] = total;
    });
  }
  pick(rng: Rng): T {
    const x = rng.next() * this.cum[this.cum.length - 1]!;
    let lo = 0;
    let hi = this.cum.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.cum[mid]! <= x) lo = mid + 1;
      else hi = mid;
    }
    return this.items[lo]!;
  }
}

const weighted = <T>(pairs: readonly (readonly [T, number])[]) => new Weighted(pairs.map((p) => p[0]), pairs.map((p) => p[1]));

// ---- dates ---------------------------------------------------------------------------------

const toMonths = (ym: string) => Number(ym.slice(0, 4)) * 12 + Number(ym.slice(5, 7)) - 1;
const fromMonths = (m: number) => `${Math.floor(m / 12)}-${String((m % 12) + 1).padStart(2, '0')}`;

// ---- text helpers --------------------------------------------------------------------------

/** ASCII-only lowercase letters for emails and slugs ("Zoë O'Brien" -> "zoe", "obrien"). */
export function asciiWord(s: string): string {
  return s
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/ł/g, 'l')
    .replace(/Ł/g, 'L')
    .replace(/ø/g, 'o')
    .replace(/[^A-Za-z0-9]/g, '')
    .toLowerCase();
}

const kebab = (s: string) =>
  s
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/ł/g, 'l')
    .replace(/ø/g, 'o')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');

// ---- phones --------------------------------------------------------------------------------

/**
 * Mobile numbers valid for the country: keep the first two digits of libphonenumber's example
 * mobile number (a real mobile prefix), randomize the rest, and keep the first candidate that
 * full-metadata validation accepts. Countries that keep failing get no phones (null).
 */
class PhoneMaker {
  private readonly failures = new Map<string, number>();
  make(rng: Rng, cc: string): string | null {
    const example = (examples as Record<string, string | undefined>)[cc];
    if (!example || (this.failures.get(cc) ?? 0) > 50) return null;
    const keep = Math.min(2, example.length - 4);
    for (let attempt = 0; attempt < 12; attempt++) {
      let digits = example.slice(0, keep);
      while (digits.length < example.length) digits += String(rng.int(0, 9));
      // Valid *for this country*: shared calling codes (+1, +7, +44) would otherwise let a
      // Canadian area code pass for the US.
      if (isValidPhoneNumber(digits, cc as CountryCode)) {
        const parsed = parsePhoneNumber(digits, cc as CountryCode);
        if (parsed.country === cc) {
          this.failures.set(cc, 0);
          return parsed.number;
        }
      }
    }
    this.failures.set(cc, (this.failures.get(cc) ?? 0) + 1);
    return null;
  }
}

// ---- companies -----------------------------------------------------------------------------

const EMAIL_PATTERNS = weighted([
  ['first.last', 45],
  ['flast', 25],
  ['first', 10],
  ['firstl', 10],
  ['first_last', 10],
] as const);
type EmailPattern = 'first.last' | 'flast' | 'first' | 'firstl' | 'first_last';

interface CompanyState {
  record: Company;
  hqCity: City;
  pattern: EmailPattern;
  people: number;
}

/** Long-tailed size: many startups, a thick middle, and a few enterprises up to 200k. */
function companySize(rng: Rng): number {
  const tier = rng.next();
  const logUniform = (lo: number, hi: number) => Math.round(Math.exp(Math.log(lo) + rng.next() * (Math.log(hi) - Math.log(lo))));
  if (tier < 0.42) return logUniform(1, 200);
  if (tier < 0.72) return logUniform(201, 1000);
  if (tier < 0.93) return logUniform(1001, 10_000);
  return logUniform(10_001, 200_000);
}

/** A pronounceable invented brand ("Novatrix"); rejects vowel pile-ups like "Neioeo". */
function coinedName(rng: Rng): string {
  let s = '';
  for (let i = 0; i < 8; i++) {
    s = rng.pick(SYLLABLES) + rng.pick(SYLLABLES) + rng.pick(CODA);
    if (!/[aeiouy]{3}|[aeiouy]{2}.*[aeiouy]{2}/.test(s)) break;
  }
  return s[0]!.toUpperCase() + s.slice(1);
}

// ---- the generator -------------------------------------------------------------------------

const BASE_SENIORITY: [Seniority, number][] = [
  ['intern', 3], ['entry', 30], ['senior', 28], ['manager', 17], ['director', 10], ['vp', 5], ['c_level', 3], ['founder', 4],
];
const FUNCTION_WEIGHTS: [JobFunction, number][] = [
  ['engineering', 22], ['sales', 16], ['marketing', 9], ['product', 5], ['design', 4], ['finance', 7], ['hr', 6],
  ['operations', 10], ['customer_success', 7], ['legal', 2.5], ['data', 6], ['it_security', 4.5],
];
/** Industries that pull their people toward one function (a law firm is mostly lawyers). */
const INDUSTRY_FUNCTION_BIAS: Record<string, Partial<Record<JobFunction, number>>> = {
  'Law Practice': { legal: 12 },
  'Staffing & Recruiting': { hr: 5 },
  'Marketing & Advertising': { marketing: 4, design: 2 },
  'Computer Software': { engineering: 1.6, product: 1.5 },
  'Computer Games': { engineering: 1.6, design: 2 },
  Accounting: { finance: 6 },
  'Management Consulting': { operations: 2 },
  'Computer & Network Security': { it_security: 4 },
  'Financial Services': { finance: 1.8, data: 1.3 },
  Banking: { finance: 2.5 },
};

/**
 * Neighbouring functions: where a career can step sideways (an engineer into product or data, a
 * salesperson into customer success). Symmetric; a move to any other function is not made.
 */
const NEIGHBOURS: [JobFunction, JobFunction][] = [
  ['engineering', 'product'], ['engineering', 'data'], ['engineering', 'it_security'], ['engineering', 'design'],
  ['product', 'design'], ['product', 'marketing'], ['product', 'data'], ['marketing', 'sales'], ['marketing', 'design'],
  ['sales', 'customer_success'], ['customer_success', 'operations'], ['finance', 'operations'], ['finance', 'data'],
  ['finance', 'legal'], ['hr', 'operations'], ['hr', 'legal'], ['operations', 'manufacturing'], ['operations', 'trades'],
  ['manufacturing', 'trades'], ['education', 'public_sector'], ['public_sector', 'operations'], ['clinical', 'education'],
];
export const RELATED_FUNCTIONS: Partial<Record<JobFunction, JobFunction[]>> = (() => {
  const out: Partial<Record<JobFunction, JobFunction[]>> = {};
  for (const [a, b] of NEIGHBOURS) {
    (out[a] ??= []).push(b);
    (out[b] ??= []).push(a);
  }
  return out;
})();

/** Function weights at a company of the industry: the general mix, biased, plus its own staff. */
function functionWeights(industry: string, withStaff: boolean): [JobFunction, number][] {
  const bias = INDUSTRY_FUNCTION_BIAS[industry] ?? {};
  const general = FUNCTION_WEIGHTS.map(([f, base]): [JobFunction, number] => [f, base * (bias[f] ?? 1)]);
  const staff = withStaff ? (Object.entries(INDUSTRY_STAFF[industry] ?? {}) as [JobFunction, number][]) : [];
  return [...general, ...staff];
}

export const LEADERSHIP_MIN_EMPLOYEES = 50;

/**
 * The leadership every company of 50 or more employees has: a CEO, a CFO and the heads of its
 * main functions (two below 200 employees, three below 1,000, four above, where the first two
 * are chiefs). Main functions are the industry's heaviest, so a hospital's heads are clinical.
 */
function leadershipRoles(industry: string, size: number, rng: Rng): { fn: JobFunction; seniority: Seniority; title: string }[] {
  const roles: { fn: JobFunction; seniority: Seniority; title: string }[] = [
    { fn: 'executive', seniority: 'c_level', title: rng.pick(TITLES_BY_FUNCTION.executive.c_level!) },
    { fn: 'finance', seniority: 'c_level', title: 'Chief Financial Officer' },
  ];
  const main = functionWeights(industry, true)
    .filter(([f]) => f !== 'finance' && f !== 'executive')
    .sort((a, b) => b[1] - a[1])
    .slice(0, size < 200 ? 2 : size < 1000 ? 3 : 4);
  main.forEach(([fn], n) => {
    const tiers: Seniority[] = size < 1000 ? ['director'] : n < 2 ? ['c_level', 'vp', 'director'] : ['vp', 'director'];
    const seniority = tiers.find((t) => TITLES_BY_FUNCTION[fn][t])!;
    roles.push({ fn, seniority, title: rng.pick(TITLES_BY_FUNCTION[fn][seniority]!) });
  });
  return roles;
}

const RANK: Seniority[] = ['intern', 'entry', 'senior', 'manager', 'director', 'vp', 'c_level', 'founder'];

export function* generateDirectory(opts: GenerateOptions): Generator<DirectoryRecord> {
  const rng = new Rng(opts.seed);
  const asOf = toMonths(opts.asOf ?? '2025-06');
  const cities = coveredCities();

  // Countries weighted by share; cities within a country by population.
  const byCountry = new Map<string, City[]>();
  for (const c of cities) byCountry.set(c.country_code, [...(byCountry.get(c.country_code) ?? []), c]);
  const countryPick = weighted([...byCountry.keys()].map((cc) => [cc, COUNTRY_SHARES[cc] ?? 0] as const));
  const cityPick = new Map([...byCountry].map(([cc, cs]) => [cc, new Weighted(cs, cs.map((c) => c.population))]));
  const randomCity = (cc?: string) => cityPick.get(cc ?? countryPick.pick(rng))!.pick(rng);
  const place = (c: City): Place => ({ city: c.name, region: c.region!, country: c.country, country_code: c.country_code, time_zone: c.time_zone });

  const industryPick = weighted(INDUSTRIES.map((i) => [i.name, i.weight] as const));
  const cultures = new Map(Object.entries(CULTURES_BY_COUNTRY).map(([cc, mix]) => [cc, weighted(mix)]));

  // --- companies
  const companyCount = Math.max(1, Math.round(opts.people / 25));
  const companies: CompanyState[] = [];
  const usedNames = new Set<string>();
  const usedDomains = new Set<string>();
  const usedIds = new Set<string>();
  const usedSlugs = new Set<string>(); // company slugs; people slugs live in another namespace
  const uniqueId = (prefix: string, n: number) => {
    for (;;) {
      const id = prefix + rng.hex(n);
      if (!usedIds.has(id)) {
        usedIds.add(id);
        return id;
      }
    }
  };

  for (let i = 0; i < companyCount; i++) {
    const industry = industryPick.pick(rng);
    const suffixes = SUFFIXES_BY_INDUSTRY[industry] ?? ['Group', 'Partners', 'Company'];
    let brand = '';
    let name = '';
    for (let attempt = 0; ; attempt++) {
      // Roots first; coined names ("Novatrix") once combinations run low or for variety.
      brand = attempt < 6 && rng.chance(0.65)
        ? rng.pick(BRAND_ROOTS)
        : coinedName(rng);
      name = rng.chance(0.15) ? brand : `${brand} ${rng.pick(suffixes)}`;
      if (!usedNames.has(name.toLowerCase())) break;
      if (attempt > 20) {
        name = `${name} ${rng.int(2, 99)}`;
        if (!usedNames.has(name.toLowerCase())) break;
      }
    }
    usedNames.add(name.toLowerCase());
    const size = companySize(rng);
    const hq = randomCity();
    const legal = LEGAL_SUFFIX[hq.country_code];
    const displayName = legal && rng.chance(0.12) ? `${name} ${legal}` : name;

    const base = asciiWord(name);
    const tld =
      (industry === 'Computer Software' || industry === 'Internet') && size <= 200 && rng.chance(0.5)
        ? rng.pick(['.io', '.ai', '.dev'])
        : hq.country_code !== 'US' && rng.chance(0.35)
          ? ({ GB: '.co.uk', AU: '.com.au', BR: '.com.br', IN: '.in', NZ: '.co.nz', ZA: '.co.za', MX: '.com.mx' } as Record<string, string>)[hq.country_code] ??
            `.${hq.country_code.toLowerCase()}`
          : '.com';
    let domain = base + tld;
    for (let n = 2; usedDomains.has(domain); n++) domain = `${base}${n}${tld}`;
    usedDomains.add(domain);
    let slug = kebab(name);
    for (let n = 2; usedSlugs.has(slug); n++) slug = `${kebab(name)}-${n}`;
    usedSlugs.add(slug);

    companies.push({
      record: {
        type: 'company',
        id: uniqueId('c_', 10),
        name: displayName,
        domain,
        professional_url: `linkedin.com/company/${slug}`,
        industry,
        employee_count: size,
        hq: place(hq),
      },
      hqCity: hq,
      pattern: EMAIL_PATTERNS.pick(rng) as EmailPattern,
      people: 0,
    });
  }
  for (const c of companies) yield c.record;

  // --- people
  const senCache = new Map<number, Weighted<Seniority>>();
  // Small companies are founder- and chief-heavy; interns need a company big enough to host them.
  const seniorityPick = (size: number) => {
    const bucket = size <= 10 ? 10 : size <= 50 ? 50 : size <= 200 ? 200 : size <= 1000 ? 1000 : 1e9;
    let w = senCache.get(bucket);
    if (!w) {
      w = weighted(
        BASE_SENIORITY.map(([s, base]): [Seniority, number] => {
          if (s === 'founder') return [s, bucket <= 50 ? 14 : bucket <= 200 ? 6 : bucket <= 1000 ? 1 : 0.2];
          if (s === 'c_level') return [s, bucket <= 200 ? 5 : bucket <= 1000 ? 3 : 1.2];
          if (s === 'intern') return [s, bucket <= 10 ? 0 : base];
          return [s, base];
        }),
      );
      senCache.set(bucket, w);
    }
    return w;
  };
  const fnCache = new Map<string, Weighted<JobFunction>>();
  const functionPick = (industry: string, withStaff = true) => {
    const key = `${withStaff}|${industry}`;
    let w = fnCache.get(key);
    if (!w) {
      w = weighted(functionWeights(industry, withStaff));
      fnCache.set(key, w);
    }
    return w;
  };
  const companyPick = new Weighted(companies, companies.map((c) => Math.pow(Math.min(c.record.employee_count, 60_000), 0.6)));
  const phones = new PhoneMaker();
  const usedPersonSlugs = new Set<string>();
  const usedEmails = new Set<string>();

  // Leadership first, company by company (one person for a company below the threshold), then
  // people follow company size (a 3-person shop never has ten profiles).
  type Slot = { co: CompanyState; role: { fn: JobFunction; seniority: Seniority; title: string } | null };
  const planned: Slot[] = [];
  for (const co of companies) {
    const size = co.record.employee_count;
    if (size >= LEADERSHIP_MIN_EMPLOYEES) for (const role of leadershipRoles(co.record.industry, size, rng)) planned.push({ co, role });
    else planned.push({ co, role: null });
  }

  for (let i = 0; i < opts.people; i++) {
    let slot = planned[i];
    if (!slot) {
      let co = companyPick.pick(rng);
      for (let tries = 0; co.people >= co.record.employee_count && tries < 20; tries++) co = companyPick.pick(rng);
      slot = { co, role: null };
    }
    const co = slot.co;
    co.people++;
    const company = co.record;

    const r = rng.next();
    const city = r < 0.72 ? co.hqCity : r < 0.88 ? randomCity(company.hq.country_code) : randomCity();
    const cc = city.country_code;

    const pool = NAMES[cultures.get(cc)?.pick(rng) ?? 'anglo']!;
    const first = rng.pick(pool.first);
    const last = rng.pick(pool.last);

    const size = company.employee_count;
    const fnPick = functionPick(company.industry);
    let fn: JobFunction;
    let seniority: Seniority;
    let title: string;
    if (slot.role) ({ fn, seniority, title } = slot.role);
    else {
      seniority = seniorityPick(size).pick(rng);
      if (seniority === 'founder') fn = 'executive';
      else if (seniority === 'c_level') fn = rng.chance(0.3) ? 'executive' : fnPick.pick(rng);
      else fn = fnPick.pick(rng);
      // Trades have no chiefs: such a pick becomes a chief of a general function.
      if (!TITLES_BY_FUNCTION[fn][seniority]) fn = functionPick(company.industry, false).pick(rng);
      title = rng.pick(TITLES_BY_FUNCTION[fn][seniority]!);
    }

    let slug = '';
    do slug = `${kebab(`${first} ${last}`)}-${rng.hex(6)}`;
    while (usedPersonSlugs.has(slug));
    usedPersonSlugs.add(slug);

    let work_email: string | null = null;
    if (rng.chance(0.85)) {
      const f = asciiWord(first);
      const l = asciiWord(last);
      const local = { 'first.last': `${f}.${l}`, flast: `${f[0]}${l}`, first: f, firstl: `${f}${l[0]}`, first_last: `${f}_${l}` }[co.pattern];
      let email = `${local}@${company.domain}`;
      for (let n = 2; usedEmails.has(email); n++) email = `${local}${n}@${company.domain}`;
      usedEmails.add(email);
      work_email = email;
    }
    const phone = rng.chance(0.4) ? phones.make(rng, cc) : null;

    // Career, newest first: the current role started in the past; earlier roles end before it.
    const currentStart = asOf - (seniority === 'intern' ? rng.int(1, 6) : rng.int(2, 96));
    const experience: Experience[] = [{ company_name: company.name, company_id: company.id, title, start: fromMonths(currentStart), end: null }];
    const pastCount = seniority === 'intern' ? rng.int(0, 1) : seniority === 'entry' ? rng.int(1, 2) : seniority === 'senior' ? rng.int(2, 4) : rng.int(2, 5);
    let cursor = currentStart;
    let rank = RANK.indexOf(seniority === 'founder' ? 'director' : seniority);
    for (let k = 0; k < pastCount; k++) {
      rank = Math.max(1, rank - (rng.chance(0.6) ? 1 : 0));
      const pastFn: JobFunction = fn === 'executive' || rng.chance(0.15) ? fnPick.pick(rng) : fn;
      // Interns only ever held internships; others sometimes started with one.
      const pastSen: Seniority = seniority === 'intern' || (k === pastCount - 1 && rng.chance(0.3)) ? 'intern' : RANK[Math.min(rank, 6)]!;
      const end = cursor - rng.int(1, 4);
      const start = end - (pastSen === 'intern' ? rng.int(3, 6) : rng.int(10, 48));
      const pastTitle = rng.pick(TITLES_BY_FUNCTION[pastFn][pastSen] ?? TITLES_BY_FUNCTION[pastFn].entry!);
      const other = rng.chance(0.5) ? rng.pick(companies).record : null;
      const otherName = other && other.id !== company.id ? other.name : `${rng.pick(BRAND_ROOTS)} ${rng.pick(['Group', 'Solutions', 'Technologies', 'Partners', 'Labs', 'Holdings'])}`;
      experience.push({
        company_name: otherName,
        company_id: other && other.id !== company.id ? other.id : null,
        title: pastTitle,
        start: fromMonths(start),
        end: fromMonths(end),
      });
      cursor = start;
    }

    // Education ends before the first job; a third of the experienced also hold a master's.
    const schools = SCHOOLS[cc] ?? SCHOOLS.INTL!;
    const fields = FIELDS[fn] ?? FIELDS.executive!;
    const bachelorEnd = cursor - rng.int(1, 6);
    const europe = ['GB', 'IE', 'DE', 'AT', 'CH', 'FR', 'BE', 'NL', 'ES', 'PT', 'IT', 'SE', 'DK', 'NO', 'PL'].includes(cc);
    const bachelorYears = europe ? 3 : 4;
    const field = rng.pick(fields);
    const bachelor: Education = {
      school_name: rng.pick(schools),
      degree:
        fn === 'legal' && cc !== 'US'
          ? 'Bachelor of Laws (LLB)'
          : cc === 'IN' && (fn === 'engineering' || fn === 'data' || fn === 'it_security')
            ? 'Bachelor of Technology'
            : rng.chance(0.6)
              ? 'Bachelor of Science'
              : 'Bachelor of Arts',
      field_of_study: field,
      start: fromMonths(bachelorEnd - bachelorYears * 12 + 3),
      end: fromMonths(bachelorEnd),
    };
    const education: Education[] = [];
    if (fn === 'legal' && cc === 'US') {
      education.push({ school_name: rng.pick(schools), degree: 'Juris Doctor (JD)', field_of_study: 'Law', start: fromMonths(bachelorEnd - 33), end: fromMonths(bachelorEnd) });
      bachelor.start = fromMonths(bachelorEnd - 36 - 45);
      bachelor.end = fromMonths(bachelorEnd - 36);
    } else if (RANK.indexOf(seniority) >= 2 && rng.chance(0.33)) {
      const mba = rng.chance(0.5) && (fn === 'executive' || fn === 'sales' || fn === 'product' || fn === 'finance' || fn === 'marketing' || fn === 'operations');
      const mStart = bachelorEnd;
      education.push({
        school_name: mba ? rng.pick([...schools, ...SCHOOLS.INTL!]) : rng.pick(schools),
        degree: mba ? 'Master of Business Administration (MBA)' : 'Master of Science',
        field_of_study: mba ? 'Business Administration' : field,
        start: fromMonths(mStart - 24 + 3),
        end: fromMonths(mStart),
      });
      bachelor.start = fromMonths(mStart - 24 - bachelorYears * 12 + 3);
      bachelor.end = fromMonths(mStart - 24);
    }
    education.push(bachelor);

    const skills = rng.sample(SKILLS[fn], rng.int(3, 8));
    const headline = (() => {
      const t = rng.next();
      if (t < 0.5) return `${title} at ${company.name}`;
      if (t < 0.75) return `${title} | ${skills.slice(0, 3).join(' · ')}`;
      if (t < 0.9) return `${title} @ ${company.name} | ${skills[0]}`;
      return `${title} · ${company.industry} · ${city.name}`;
    })();

    const person: Person = {
      type: 'person',
      id: uniqueId('p_', 12),
      company_id: company.id,
      first_name: first,
      last_name: last,
      full_name: `${first} ${last}`,
      headline,
      current_job_title: title,
      function: fn,
      seniority,
      location: place(city),
      professional_url: `linkedin.com/in/${slug}`,
      work_email,
      phone,
      experience,
      education,
      skills,
    };
    yield person;
  }
}
