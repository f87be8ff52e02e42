/**
 * Deterministic sample-directory generator: the same seed yields byte-identical records.
 * Companies are emitted first (about one per 25 people), then people. Every random choice
 * comes from one seeded PRNG; nothing reads the wall clock (dates are relative to `asOf`).
 */
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/mobile';
import examples from 'libphonenumber-js/mobile/examples';
import { COUNTRY_SHARES, cityShares, type City } from './geo.js';
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
 * mobile number (a real mobile prefix), randomize the rest, and keep the first candidate that the
 * mobile metadata validates as a mobile number of that country (a subset of what the full metadata
 * accepts, and cheaper to check). Countries that keep failing get no phones (null).
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
      // One parse per candidate (isValidPhoneNumber would parse it a second time).
      const parsed = parsePhoneNumberFromString(digits, cc as CountryCode);
      if (parsed?.isValid() && parsed.country === cc) {
        this.failures.set(cc, 0);
        return parsed.number;
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
  /** Month the company was founded (never emitted: it bounds tenures and places founders). */
  founded: number;
  foundersLeft: number;
  founders: number;
  /** Full names already at the company, and seats held once (each chief; each VP title below 1,000). */
  names: Set<string>;
  seats: Set<string>;
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

/**
 * Seniority mix of the people drawn at random (leaders and founders are planned, see below), by
 * company size: a 5-person shop has its founders and staff, no VPs or chiefs; a 10,000+ company
 * has directors, VPs and a few chiefs in proportion, and no founders. Columns: <=5, <=10, <=50,
 * <=200, <=1,000, <=10,000, above.
 */
const SIZE_BUCKETS = [5, 10, 50, 200, 1000, 10_000, Infinity];
const SENIORITY_BY_SIZE: [Seniority, number[]][] = [
  ['intern', [0, 0, 1, 2, 3, 3, 3]],
  ['entry', [45, 40, 34, 32, 31, 31, 31]],
  ['senior', [35, 33, 30, 29, 28, 29, 29]],
  ['manager', [12, 16, 18, 18, 18, 19, 19]],
  ['director', [0, 5, 9, 10, 10, 10, 10]],
  ['vp', [0, 0, 2, 4, 4, 5, 5.5]],
  ['c_level', [0, 0, 1.5, 2, 1.2, 0.6, 0.4]],
  // Only while the company has founders left to place; otherwise the draw becomes 'senior'.
  ['founder', [8, 10, 10, 3, 0.5, 0.1, 0]],
];
const sizeBucket = (size: number) => SIZE_BUCKETS.findIndex((b) => size <= b);

/** Founder-led share and age (years) by size: small companies are young and run by founders. */
const FOUNDER_LED = [0.9, 0.9, 0.9, 0.7, 0.4, 0.1, 0];
const FOUNDER_LED_AGE: [number, number][] = [[1, 8], [1, 10], [1, 12], [2, 15], [3, 20], [5, 25], [5, 25]];
const OTHER_AGE: [number, number][] = [[3, 30], [3, 30], [3, 35], [5, 40], [8, 60], [10, 80], [20, 120]];
/** Small businesses whose founders call themselves owners (a shop, a practice, a builder). */
const OWNER_INDUSTRIES = new Set([
  'Retail', 'Hospitality', 'Construction', 'Accounting', 'Law Practice', 'Real Estate', 'Food & Beverages',
  'Marketing & Advertising', 'Staffing & Recruiting', 'Management Consulting', 'Logistics & Supply Chain', 'Insurance',
]);
/** Industries whose people build software; elsewhere engineering, product and data are small teams. */
const TECH_INDUSTRIES = new Set([
  'Computer Software', 'Information Technology & Services', 'Internet', 'Computer Games', 'Computer & Network Security',
  'Telecommunications', 'Financial Services', 'E-Learning',
]);
const NON_TECH_DAMPING: Partial<Record<JobFunction, number>> = { engineering: 0.35, product: 0.4, design: 0.7, data: 0.6, it_security: 0.7 };

const FUNCTION_WEIGHTS: [JobFunction, number][] = [
  ['engineering', 22], ['sales', 16], ['marketing', 9], ['product', 5], ['design', 4], ['finance', 7], ['hr', 6],
  ['operations', 10], ['customer_success', 7], ['legal', 2.5], ['data', 6], ['it_security', 4.5],
];
/** Industries that pull their people toward one function (a law firm is mostly lawyers). */
const INDUSTRY_FUNCTION_BIAS: Record<string, Partial<Record<JobFunction, number>>> = {
  'Law Practice': { legal: 12 },
  'Staffing & Recruiting': { hr: 5 },
  'Marketing & Advertising': { marketing: 4, design: 2 },
  'Computer Software': { engineering: 2.2, product: 1.8, design: 1.3, data: 1.3, operations: 0.5, legal: 0.5 },
  'Computer Games': { engineering: 1.8, design: 2.5 },
  Internet: { engineering: 1.6, product: 1.5, data: 1.3 },
  Accounting: { finance: 6 },
  'Management Consulting': { operations: 2 },
  'Computer & Network Security': { it_security: 4 },
  'Financial Services': { finance: 1.8, data: 1.5 },
  Banking: { finance: 2.5 },
  Retail: { marketing: 1.8, operations: 1.3, customer_success: 1.3 },
};

/**
 * Neighbouring functions: where a career can step sideways (an engineer into product or data, a
 * salesperson into customer success). Symmetric; a career never moves to any other function.
 */
const NEIGHBOURS: [JobFunction, JobFunction][] = [
  ['engineering', 'product'], ['engineering', 'data'], ['engineering', 'it_security'], ['engineering', 'design'],
  ['product', 'design'], ['product', 'marketing'], ['product', 'data'], ['marketing', 'sales'], ['marketing', 'design'],
  ['sales', 'customer_success'], ['customer_success', 'operations'], ['finance', 'operations'], ['finance', 'data'],
  ['finance', 'legal'], ['hr', 'operations'], ['hr', 'legal'], ['operations', 'manufacturing'], ['operations', 'trades'],
  ['manufacturing', 'trades'], ['education', 'public_sector'], ['public_sector', 'operations'], ['clinical', 'education'],
  ['retail', 'sales'], ['retail', 'operations'], ['retail', 'marketing'],
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
  const tech = TECH_INDUSTRIES.has(industry);
  const general = FUNCTION_WEIGHTS.map(([f, base]): [JobFunction, number] => [f, base * (bias[f] ?? (tech ? 1 : (NON_TECH_DAMPING[f] ?? 1)))]);
  const staff = withStaff ? (Object.entries(INDUSTRY_STAFF[industry] ?? {}) as [JobFunction, number][]) : [];
  return [...general, ...staff];
}

export const LEADERSHIP_MIN_EMPLOYEES = 50;

type Role = { fn: JobFunction; seniority: Seniority; title: string };
const CEO_TITLES = TITLES_BY_FUNCTION.executive.c_level!.filter((t) => /CEO|Chief Executive/.test(t));
const CHAIR = 'Chair of the Board';

/**
 * The leadership every company of 50 or more employees has: a CEO (its founder at a founder-led
 * company), a CFO and the heads of its main functions (two below 200 employees, three below
 * 1,000, four above, where the first two are chiefs), and a board chair at the large ones. Main
 * functions are the industry's heaviest, so a hospital's heads are clinical.
 */
function leadershipRoles(industry: string, size: number, founderLed: boolean, rng: Rng): Role[] {
  const roles: Role[] = [
    founderLed
      ? { fn: 'executive', seniority: 'founder', title: 'Founder & CEO' }
      : { fn: 'executive', seniority: 'c_level', title: rng.pick(CEO_TITLES) },
    { fn: 'finance', seniority: 'c_level', title: 'Chief Financial Officer' },
  ];
  // A function can weigh twice (general mix and industry staff): one head per function.
  const byFn = new Map<JobFunction, number>();
  for (const [f, w] of functionWeights(industry, true)) if (f !== 'finance' && f !== 'executive') byFn.set(f, (byFn.get(f) ?? 0) + w);
  const main = [...byFn]
    .sort((a, b) => b[1] - a[1])
    .slice(0, size < 200 ? 2 : size < 1000 ? 3 : 4);
  main.forEach(([fn], n) => {
    const tiers: Seniority[] = size < 1000 ? ['director'] : n < 2 ? ['c_level', 'vp', 'director'] : ['vp', 'director'];
    const seniority = tiers.find((t) => TITLES_BY_FUNCTION[fn][t])!;
    roles.push({ fn, seniority, title: rng.pick(TITLES_BY_FUNCTION[fn][seniority]!) });
  });
  if (size > 10_000 || (size > 1000 && rng.chance(0.5))) roles.push({ fn: 'executive', seniority: 'c_level', title: CHAIR });
  return roles;
}

const RANK: Seniority[] = ['intern', 'entry', 'senior', 'manager', 'director', 'vp', 'c_level', 'founder'];

/** The title of a function at a level, or at the nearest level below it that the function has. */
function titleAt(rng: Rng, fn: JobFunction, rank: number): string {
  for (let r = rank; r >= 1; r--) {
    const ts = TITLES_BY_FUNCTION[fn][RANK[r]!];
    if (ts) return rng.pick(ts);
  }
  return rng.pick(TITLES_BY_FUNCTION[fn].entry!);
}

export function* generateDirectory(opts: GenerateOptions): Generator<DirectoryRecord> {
  const rng = new Rng(opts.seed);
  const asOf = toMonths(opts.asOf ?? '2025-06');
  // Countries weighted by B2B workforce; cities within a country by their business share (geo.ts).
  const countries = Object.keys(COUNTRY_SHARES);
  const countryPick = weighted(countries.map((cc) => [cc, COUNTRY_SHARES[cc]!] as const));
  const cityPick = new Map(
    countries.map((cc) => {
      const shares = cityShares(cc).filter((s) => s.share > 0);
      return [cc, new Weighted(shares.map((s) => s.city), shares.map((s) => s.share))] as const;
    }),
  );
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
    const bucket = sizeBucket(size);
    const founderLed = rng.chance(FOUNDER_LED[bucket]!);
    const [minAge, maxAge] = (founderLed ? FOUNDER_LED_AGE : OTHER_AGE)[bucket]!;
    const founded = asOf - rng.int(minAge * 12, maxAge * 12);
    const founders = founderLed ? 1 + (rng.chance(0.45) ? 1 : 0) + (rng.chance(0.15) ? 1 : 0) : 0;
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
      founded,
      foundersLeft: founders,
      founders: 0,
      names: new Set(),
      seats: new Set(),
    });
  }
  for (const c of companies) yield c.record;

  // --- people
  const senCache = new Map<number, Weighted<Seniority>>();
  const seniorityPick = (size: number) => {
    const bucket = sizeBucket(size);
    let w = senCache.get(bucket);
    if (!w) {
      w = weighted(SENIORITY_BY_SIZE.map(([s, ws]): [Seniority, number] => [s, ws[bucket]!]));
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

  /** A founder's title: owners run small businesses alone; the first founder leads, later ones co-found. */
  const founderTitle = (co: CompanyState): string => {
    const size = co.record.employee_count;
    if (co.founders === 0) {
      if (size <= 20 && co.foundersLeft === 1 && OWNER_INDUSTRIES.has(co.record.industry) && rng.chance(0.6)) return 'Owner';
      if (co.seats.has('CEO')) return 'Founder';
      co.seats.add('CEO');
      return rng.pick(['Founder', 'Founder & CEO', 'Founder & CEO', 'Founder & Managing Director']);
    }
    if (!co.seats.has('Chief Technology Officer') && TECH_INDUSTRIES.has(co.record.industry) && rng.chance(0.5)) {
      co.seats.add('Chief Technology Officer');
      return 'Co-Founder & CTO';
    }
    return 'Co-Founder';
  };

  // Leadership first, company by company (a founder, or one person, for a company below the
  // threshold), then people follow company size (a 3-person shop never has ten profiles).
  type Slot = { co: CompanyState; role: Role | null };
  const planned: Slot[] = [];
  for (const co of companies) {
    const size = co.record.employee_count;
    if (size >= LEADERSHIP_MIN_EMPLOYEES) for (const role of leadershipRoles(co.record.industry, size, co.foundersLeft > 0, rng)) planned.push({ co, role });
    else planned.push({ co, role: co.foundersLeft > 0 ? { fn: 'executive', seniority: 'founder', title: '' } : null });
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

    // Small companies sit in one place; large ones have offices across their country and abroad.
    const size = company.employee_count;
    const r = rng.next();
    const atHq = size <= 50 ? 0.9 : size <= 1000 ? 0.7 : size <= 10_000 ? 0.45 : 0.3;
    const inCountry = size <= 10_000 ? 0.85 : 0.5; // a 10,000+ company is a multinational
    const city = r < atHq ? co.hqCity : r < atHq + (1 - atHq) * inCountry ? randomCity(company.hq.country_code) : randomCity();
    const cc = city.country_code;

    // No two people at one company share a full name.
    const pool = NAMES[cultures.get(cc)?.pick(rng) ?? 'anglo']!;
    let first = rng.pick(pool.first);
    let last = rng.pick(pool.last);
    let fullName = `${first} ${last}`;
    for (let tries = 0; co.names.has(fullName) && tries < 100; tries++) {
      first = rng.pick(pool.first);
      last = rng.pick(pool.last);
      fullName = `${first} ${last}`;
    }
    co.names.add(fullName);

    const fnPick = functionPick(company.industry);
    let fn: JobFunction;
    let seniority: Seniority;
    let title: string;
    if (slot.role) {
      ({ fn, seniority, title } = slot.role);
      if (seniority === 'c_level') co.seats.add(fn === 'executive' && title !== CHAIR ? 'CEO' : title);
    } else {
      seniority = seniorityPick(size).pick(rng);
      if (seniority === 'founder' && co.foundersLeft === 0) seniority = 'senior';
      if (seniority === 'founder') fn = 'executive';
      else if (seniority === 'c_level') fn = rng.chance(0.3) && !co.seats.has('CEO') ? 'executive' : fnPick.pick(rng);
      else fn = fnPick.pick(rng);
      // Trades have no chiefs: such a pick becomes a chief of a general function.
      if (!TITLES_BY_FUNCTION[fn][seniority]) fn = functionPick(company.industry, false).pick(rng);
      title = seniority === 'founder' ? '' : rng.pick(seniority === 'c_level' && fn === 'executive' ? CEO_TITLES : TITLES_BY_FUNCTION[fn][seniority]!);
      // One person per chief seat (and per VP title below 1,000 employees): a taken seat is held a level down.
      if (seniority === 'c_level') {
        const seat = fn === 'executive' ? 'CEO' : title;
        const free = fn === 'executive' ? [] : TITLES_BY_FUNCTION[fn].c_level!.filter((t) => !co.seats.has(t));
        if (!co.seats.has(seat)) co.seats.add(seat);
        else if (free.length) co.seats.add((title = rng.pick(free)));
        else {
          if (fn === 'executive') fn = functionPick(company.industry, false).pick(rng);
          seniority = TITLES_BY_FUNCTION[fn].vp ? 'vp' : 'director';
          title = rng.pick(TITLES_BY_FUNCTION[fn][seniority]!);
        }
      }
      if (seniority === 'vp' && size < 1000) {
        const free = TITLES_BY_FUNCTION[fn].vp!.filter((t) => !co.seats.has(t));
        if (free.length) co.seats.add((title = rng.pick(free)));
        else {
          seniority = 'director';
          title = rng.pick(TITLES_BY_FUNCTION[fn].director!);
        }
      }
    }
    if (seniority === 'founder') {
      if (title) co.seats.add('CEO'); // the planned "Founder & CEO" of a company with leadership
      else title = founderTitle(co);
      co.foundersLeft--;
      co.founders++;
    }

    let slug = '';
    const slugBase = kebab(fullName);
    do slug = `${slugBase}-${rng.hex(6)}`;
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

    // Career, newest first: the current role started after the company was founded (a founder's
    // on the day); earlier roles end before it. A career stays in one function, or steps into one
    // neighbouring function (RELATED_FUNCTIONS); chiefs and founders come from the function they
    // rose in. Going back, each role is at the same level or one below; an internship comes only
    // before an entry or senior role.
    const tenure = seniority === 'intern' ? rng.int(1, 6) : rng.int(2, 96);
    const currentStart = seniority === 'founder' ? co.founded : Math.max(co.founded, asOf - tenure);
    const experience: Experience[] = [{ company_name: company.name, company_id: company.id, title, start: fromMonths(currentStart), end: null }];
    const pastCount = seniority === 'intern' ? rng.int(0, 1) : seniority === 'entry' ? rng.int(1, 2) : seniority === 'senior' ? rng.int(2, 4) : rng.int(2, 5);
    const home: JobFunction = fn === 'executive' ? functionPick(company.industry, false).pick(rng) : fn;
    const neighbours = RELATED_FUNCTIONS[home] ?? [];
    const side: JobFunction = neighbours.length && rng.chance(0.3) ? rng.pick(neighbours) : home;
    let cursor = currentStart;
    let rank = seniority === 'founder' ? (size <= 50 ? rng.int(2, 4) : rng.int(3, 5)) + 1 : RANK.indexOf(seniority);
    for (let k = 0; k < pastCount; k++) {
      const newer = rank;
      rank = Math.max(1, Math.min(6, rank - (rng.chance(0.55) || rank > 5 ? 1 : 0)));
      const pastFn: JobFunction = side !== home && rng.chance(0.35) ? side : home;
      // Interns only ever held internships; others sometimes started with one (before an entry or senior role).
      const intern = seniority === 'intern' || (k === pastCount - 1 && newer <= 2 && rng.chance(0.3));
      const end = cursor - rng.int(1, 4);
      const start = end - (intern ? rng.int(3, 6) : rng.int(10, 48));
      const pastTitle = intern ? rng.pick(TITLES_BY_FUNCTION[pastFn].intern ?? TITLES_BY_FUNCTION[home].intern!) : titleAt(rng, pastFn, rank);
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
    const fields = FIELDS[home] ?? FIELDS.executive!;
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
      full_name: fullName,
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
