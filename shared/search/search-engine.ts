/**
 * In-memory people index. Structured constraints are hard filters evaluated on compact
 * per-person arrays, seeded from the smallest matching posting list; keywords rank through a
 * MiniSearch full-text index (title, headline, skills, company name). Results are deterministic:
 * score descending, then person id.
 */
import MiniSearch from 'minisearch';
import type { Company, DirectoryRecord, Person } from '../directory/types.js';
import { normalizeCompanyName, normalizeName } from '../directory/urls.js';
import { singular, titleKeys, type ParsedQuery } from './query.js';

export interface SearchHit {
  person: Person;
  company: Company;
  /** 0..100 fit signal */
  score: number;
}

export interface SearchOptions {
  limit: number;
  /** Person ids already returned (continuation pages). */
  exclude?: Set<string>;
}

/** Interns strings to small integer ids so per-person attributes fit in typed arrays. */
class Interner {
  readonly ids = new Map<string, number>();
  readonly values: string[] = [];
  id(v: string): number {
    let id = this.ids.get(v);
    if (id === undefined) {
      id = this.values.length;
      this.ids.set(v, id);
      this.values.push(v);
    }
    return id;
  }
}

interface Place {
  city: string; // normalized
  region: string; // normalized
  country: string; // ISO2
}

const textTokens = (s: string) =>
  s
    .replace(/([A-Za-z])\.([A-Za-z])/g, '$1$2')
    .split(/[^\p{L}\p{N}+#]+/u)
    .filter(Boolean);
const textTerm = (t: string) => singular(t.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase());

/** Pushes into a Map<key, number[]> posting list. */
const post = (m: Map<number, number[]>, k: number, i: number) => {
  const l = m.get(k);
  if (l) l.push(i);
  else m.set(k, [i]);
};

export class PeopleIndex {
  private readonly people: Person[] = [];
  private readonly companies: Company[] = [];
  private readonly personById = new Map<string, number>();
  private readonly companyById = new Map<string, number>();

  // per-person attributes
  private pCompany!: Int32Array;
  private pFunction!: Uint16Array;
  private pSeniority!: Uint16Array;
  private pTitle!: Int32Array;
  private pPlace!: Int32Array;
  // per-company attributes
  private cIndustry!: Uint16Array;
  private cSize!: Int32Array;
  private cName: string[] = [];

  private readonly functions = new Interner();
  private readonly seniorities = new Interner();
  private readonly industries = new Interner();
  private readonly titles = new Interner(); // raw current_job_title
  private titleKeyIds: number[][] = []; // title id -> canonical title key ids
  private titleExact: string[] = []; // title id -> normalized title
  private readonly titleKeys = new Interner();
  private readonly places = new Interner();
  private placeList: Place[] = [];

  // postings: attribute id -> person indices (ascending)
  private readonly byFunction = new Map<number, number[]>();
  private readonly bySeniority = new Map<number, number[]>();
  private readonly byTitleKey = new Map<number, number[]>();
  private readonly byPlace = new Map<number, number[]>();
  private readonly byCompany = new Map<number, number[]>();
  private readonly byIndustry = new Map<number, number[]>();

  private text!: MiniSearch<{ id: number; text: string }>;
  /** People whose company_id named no company in the input. */
  skipped = 0;
  /** Build time in milliseconds. */
  buildMs = 0;

  private constructor() {}

  get size(): number {
    return this.people.length;
  }

  person(id: string): Person | undefined {
    const i = this.personById.get(id);
    return i === undefined ? undefined : this.people[i];
  }

  company(id: string): Company | undefined {
    const i = this.companyById.get(id);
    return i === undefined ? undefined : this.companies[i];
  }

  static build(records: Iterable<DirectoryRecord>): PeopleIndex {
    const started = performance.now();
    const ix = new PeopleIndex();
    const pending: Person[] = [];
    for (const r of records) {
      if (r.type === 'company') {
        if (ix.companyById.has(r.id)) continue;
        ix.companyById.set(r.id, ix.companies.length);
        ix.companies.push(r);
      } else pending.push(r);
    }
    // Index order = id order, so ascending posting lists are already in tie-break order and a
    // constant-score scan can stop after `limit` hits.
    pending.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const n0 = pending.length;
    ix.pCompany = new Int32Array(n0);
    ix.pFunction = new Uint16Array(n0);
    ix.pSeniority = new Uint16Array(n0);
    ix.pTitle = new Int32Array(n0);
    ix.pPlace = new Int32Array(n0);

    for (const p of pending) {
      const c = ix.companyById.get(p.company_id);
      if (c === undefined || ix.personById.has(p.id)) {
        ix.skipped++;
        continue;
      }
      const i = ix.people.length;
      ix.people.push(p);
      ix.personById.set(p.id, i);
      ix.pCompany[i] = c;
      post(ix.byCompany, c, i);
      const f = ix.functions.id(p.function);
      ix.pFunction[i] = f;
      post(ix.byFunction, f, i);
      const s = ix.seniorities.id(p.seniority);
      ix.pSeniority[i] = s;
      post(ix.bySeniority, s, i);
      const t = ix.titles.id(p.current_job_title);
      if (t === ix.titleKeyIds.length) {
        ix.titleKeyIds.push(titleKeys(p.current_job_title).map((k) => ix.titleKeys.id(k)));
        ix.titleExact.push(normalizeName(p.current_job_title));
      }
      ix.pTitle[i] = t;
      for (const k of ix.titleKeyIds[t]!) post(ix.byTitleKey, k, i);
      // Keyed on the raw strings so each distinct place is normalized once, not once per person.
      const pl = ix.places.id(`${p.location.country_code}|${p.location.region}|${p.location.city}`);
      if (pl === ix.placeList.length) {
        ix.placeList.push({ city: normalizeName(p.location.city), region: normalizeName(p.location.region), country: p.location.country_code });
      }
      ix.pPlace[i] = pl;
      post(ix.byPlace, pl, i);
    }

    ix.cIndustry = new Uint16Array(ix.companies.length);
    ix.cSize = new Int32Array(ix.companies.length);
    ix.companies.forEach((c, ci) => {
      ix.cIndustry[ci] = ix.industries.id(c.industry);
      ix.cSize[ci] = c.employee_count;
      ix.cName.push(normalizeCompanyName(c.name));
      for (const i of ix.byCompany.get(ci) ?? []) post(ix.byIndustry, ix.cIndustry[ci]!, i);
    });
    for (const l of ix.byIndustry.values()) l.sort((a, b) => a - b);

    // One field (title twice for emphasis): MiniSearch's cost grows with fields x matched
    // documents, and a single field is ~2.5x faster than four boosted ones at 100k people.
    ix.text = new MiniSearch({
      fields: ['text'],
      tokenize: textTokens,
      processTerm: textTerm,
      searchOptions: { combineWith: 'OR', prefix: false, fuzzy: false },
    });
    ix.text.addAll(
      ix.people.map((p, i) => ({
        id: i,
        text: `${p.current_job_title} | ${p.current_job_title} | ${p.headline} | ${p.skills.join(' , ')} | ${ix.companies[ix.pCompany[i]!]!.name}`,
      })),
    );
    ix.buildMs = Math.round(performance.now() - started);
    return ix;
  }

  /** Companies a normalized name refers to: exact name matches, else names it is a word-prefix of. */
  private resolveCompanies(names: string[]): Set<number> {
    const out = new Set<number>();
    for (const n of names) {
      const exact: number[] = [];
      const prefix: number[] = [];
      this.cName.forEach((c, ci) => {
        if (c === n) exact.push(ci);
        else if (c.startsWith(n + ' ')) prefix.push(ci);
      });
      for (const ci of exact.length ? exact : prefix) out.add(ci);
    }
    return out;
  }

  /**
   * Allowed places for the location constraint. A broader place that contains a named narrower
   * one only qualifies it ("London, UK" is London in GB, not all of the UK); otherwise every
   * named place counts.
   */
  private resolvePlaces(loc: ParsedQuery['locations']): Set<number> | null {
    const cities = loc.cities.map(normalizeName);
    const regions = loc.regions.map(normalizeName);
    const countries = loc.countries.map((c) => c.toUpperCase());
    if (!cities.length && !regions.length && !countries.length) return null;
    const ok = new Set<number>();
    const usedRegions = new Set<string>();
    const usedCountries = new Set<string>();
    const ids = this.placeList.map((_, i) => i);
    const narrow = (ps: number[]) => {
      if (regions.length) {
        const inRegion = ps.filter((p) => regions.includes(this.placeList[p]!.region));
        if (inRegion.length) {
          inRegion.forEach((p) => usedRegions.add(this.placeList[p]!.region));
          ps = inRegion;
        }
      }
      if (countries.length) {
        const inCountry = ps.filter((p) => countries.includes(this.placeList[p]!.country));
        if (inCountry.length) {
          inCountry.forEach((p) => usedCountries.add(this.placeList[p]!.country));
          ps = inCountry;
        }
      }
      return ps;
    };
    for (const c of cities) for (const p of narrow(ids.filter((p) => this.placeList[p]!.city === c))) ok.add(p);
    for (const r of regions) {
      if (usedRegions.has(r)) continue;
      const ps = ids.filter((p) => this.placeList[p]!.region === r);
      if (countries.length) {
        const inCountry = ps.filter((p) => countries.includes(this.placeList[p]!.country));
        if (inCountry.length) {
          inCountry.forEach((p) => usedCountries.add(this.placeList[p]!.country));
          inCountry.forEach((p) => ok.add(p));
          continue;
        }
      }
      ps.forEach((p) => ok.add(p));
    }
    for (const k of countries) if (!usedCountries.has(k)) ids.filter((p) => this.placeList[p]!.country === k).forEach((p) => ok.add(p));
    return ok;
  }

  search(q: ParsedQuery, opts: SearchOptions): SearchHit[] {
    const limit = Math.max(0, Math.floor(opts.limit));
    if (!limit || !this.people.length) return [];

    // --- resolve constraints to attribute-id sets (null = unconstrained)
    const idSet = (interner: Interner, values: string[]) => (values.length ? new Set(values.map((v) => interner.ids.get(v) ?? -1)) : null);
    const fnOk = idSet(this.functions, q.functions);
    const senOk = idSet(this.seniorities, q.seniorities);
    const indOk = idSet(this.industries, q.industries);
    const keyOk = idSet(this.titleKeys, q.titles);
    const titleOk = keyOk ? this.titleKeyIds.map((ks) => ks.some((k) => keyOk.has(k))) : null;
    const placeOk = this.resolvePlaces(q.locations);
    const companyOk = q.companies.length ? this.resolveCompanies(q.companies) : null;
    const size = q.companySize;
    const minSize = size?.min ?? -Infinity;
    const maxSize = size?.max ?? Infinity;

    const x = q.exclusions;
    const xCompanies = x.companies.length ? this.resolveCompanies(x.companies) : null;
    const xInd = idSet(this.industries, x.industries);
    const xFn = idSet(this.functions, x.functions);
    const xSen = idSet(this.seniorities, x.seniorities);
    const xKeys = idSet(this.titleKeys, x.titles);
    const xTitle = xKeys ? this.titleKeyIds.map((ks) => ks.some((k) => xKeys.has(k))) : null;

    const pass = (i: number): boolean => {
      const c = this.pCompany[i]!;
      if (fnOk && !fnOk.has(this.pFunction[i]!)) return false;
      if (senOk && !senOk.has(this.pSeniority[i]!)) return false;
      if (titleOk && !titleOk[this.pTitle[i]!]) return false;
      if (placeOk && !placeOk.has(this.pPlace[i]!)) return false;
      if (indOk && !indOk.has(this.cIndustry[c]!)) return false;
      if (companyOk && !companyOk.has(c)) return false;
      const n = this.cSize[c]!;
      if (n < minSize || n > maxSize) return false;
      if (xCompanies?.has(c)) return false;
      if (xInd?.has(this.cIndustry[c]!)) return false;
      if (xFn?.has(this.pFunction[i]!)) return false;
      if (xSen?.has(this.pSeniority[i]!)) return false;
      if (xTitle?.[this.pTitle[i]!]) return false;
      if (opts.exclude?.has(this.people[i]!.id)) return false;
      return true;
    };

    // --- seed from the smallest posting union, iterated in ascending (= id) order
    const N = this.people.length;
    const seeds: { lists: number[][]; total: number }[] = [];
    const addSeed = (ids: Iterable<number> | null, postings: Map<number, number[]>) => {
      if (!ids) return;
      const lists = [...ids].map((id) => postings.get(id) ?? []).filter((l) => l.length);
      seeds.push({ lists, total: lists.reduce((a, l) => a + l.length, 0) });
    };
    addSeed(fnOk, this.byFunction);
    addSeed(senOk, this.bySeniority);
    addSeed(keyOk, this.byTitleKey);
    addSeed(placeOk, this.byPlace);
    addSeed(companyOk, this.byCompany);
    addSeed(indOk, this.byIndustry);

    const hasKeywords = q.keywords.length > 0;
    const keywordScores = new Map<number, number>();
    if (hasKeywords) for (const r of this.text.search(q.keywords.join(' '))) keywordScores.set(r.id as number, r.score);

    let seed: ArrayLike<number> | null = null; // null = every person
    if (seeds.length) {
      const { lists, total } = seeds.reduce((a, b) => (b.total < a.total ? b : a));
      if (lists.length <= 1) seed = lists[0] ?? [];
      else if (total <= N / 16) seed = Int32Array.from(new Set(lists.flat())).sort();
      else {
        const mark = new Uint8Array(N);
        for (const l of lists) for (const i of l) mark[i] = 1;
        const out: number[] = [];
        for (let i = 0; i < N; i++) if (mark[i]) out.push(i);
        seed = out;
      }
    } else if (hasKeywords && !size) {
      seed = Int32Array.from(keywordScores.keys()).sort();
    } else if (!(size || hasKeywords || x.companies.length || x.industries.length || x.functions.length || x.seniorities.length || x.titles.length)) {
      return []; // nothing to search on
    }
    const mustMatchText = hasKeywords && !seeds.length; // keywords are the only positive signal

    // --- filter, score, keep the top `limit` by (score desc, index = id asc)
    let maxText = 0;
    for (const v of keywordScores.values()) maxText = Math.max(maxText, v);
    const canonical = q.titles.map(normalizeName);
    const score = (i: number): number => {
      let parts = 0;
      let weight = 0;
      if (hasKeywords) {
        parts += 3 * (maxText > 0 ? (keywordScores.get(i) ?? 0) / maxText : 0);
        weight += 3;
      }
      if (canonical.length) {
        parts += canonical.includes(this.titleExact[this.pTitle[i]!]!) ? 1 : 0.5;
        weight += 1;
      }
      return weight ? 100 * (0.5 + (0.5 * parts) / weight) : 100;
    };

    const topI: number[] = [];
    const topS: number[] = [];
    const consider = (i: number): boolean => {
      if (!pass(i) || (mustMatchText && !keywordScores.has(i))) return false;
      const s = Math.round(score(i) * 1e6) / 1e6;
      // Candidates arrive in ascending index order, so on equal scores the earlier one wins.
      if (topI.length === limit && s <= topS[limit - 1]!) return topS[limit - 1] === 100;
      let lo = 0;
      let hi = topI.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (topS[mid]! >= s) lo = mid + 1;
        else hi = mid;
      }
      topI.splice(lo, 0, i);
      topS.splice(lo, 0, s);
      if (topI.length > limit) {
        topI.pop();
        topS.pop();
      }
      return topI.length === limit && topS[limit - 1] === 100; // nothing later can beat a full list of 100s
    };
    if (seed) {
      for (let k = 0; k < seed.length; k++) if (consider(seed[k]!)) break;
    } else {
      for (let i = 0; i < N; i++) if (consider(i)) break;
    }
    return topI.map((i, k) => ({ person: this.people[i]!, company: this.companies[this.pCompany[i]!]!, score: Math.round(topS[k]!) }));
  }
}
