/**
 * In-memory people search engine. Structured constraints are hard filters on compact per-person
 * arrays; keywords are required words with their own posting lists (title, headline, skills).
 * A search starts from the smallest posting union among its constraints and keywords, checks
 * the rest per candidate, and scores only the candidates that pass, so a common keyword never
 * costs a pass over the corpus. Results are deterministic: score descending, then person id.
 */
import { deserialize, serialize } from 'node:v8';
import type { Company, DirectoryRecord, Person } from '../directory/types.js';
import { normalizeCompanyName, normalizeName } from '../directory/urls.js';
import { keywordKey, textKeys, titleKeys, type ParsedQuery, type Place } from './query.js';
import { rankScore, ranksAfter, type DirectoryEntry, type SearchEngine, type SearchHit, type SearchOptions } from './search-port.js';

export type { SearchHit, SearchOptions } from './search-port.js';

/** Interns strings to small integer ids so per-person attributes fit in typed arrays. */
class Interner {
  readonly ids = new Map<string, number>();
  readonly values: string[] = [];
  static from(values: string[]): Interner {
    const out = new Interner();
    for (const v of values) out.id(v);
    return out;
  }
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

/** Ascending person indices, built with push and frozen into an Int32Array. */
class Postings<K> {
  private readonly building = new Map<K, number[]>();
  private readonly frozen = new Map<K, Int32Array>();
  add(k: K, i: number) {
    const l = this.building.get(k);
    if (l) {
      if (l[l.length - 1] !== i) l.push(i);
    } else this.building.set(k, [i]);
  }
  freeze(sort = false) {
    for (const [k, l] of this.building) {
      const a = Int32Array.from(l);
      this.frozen.set(k, sort ? a.sort() : a);
    }
    this.building.clear();
  }
  get(k: K): Int32Array | undefined {
    return this.frozen.get(k);
  }
  get size(): number {
    return this.frozen.size;
  }
  pack(): PackedLists<K> {
    const keys = [...this.frozen.keys()];
    const offsets = new Uint32Array(keys.length + 1);
    keys.forEach((k, n) => (offsets[n + 1] = offsets[n]! + this.frozen.get(k)!.length));
    const values = new Int32Array(offsets[keys.length]!);
    keys.forEach((k, n) => values.set(this.frozen.get(k)!, offsets[n]!));
    return { keys, values, offsets };
  }
  static unpack<K>(p: PackedLists<K>): Postings<K> {
    const out = new Postings<K>();
    p.keys.forEach((k, n) => out.frozen.set(k, p.values.subarray(p.offsets[n]!, p.offsets[n + 1]!)));
    return out;
  }
}

const EMPTY = new Int32Array(0);

/** First index >= from in an ascending list whose value is >= target (galloping search). */
function advance(list: Int32Array, from: number, target: number): number {
  if (from >= list.length || list[from]! >= target) return from;
  let step = 1;
  let hi = from + 1;
  while (hi < list.length && list[hi]! < target) {
    from = hi;
    step *= 2;
    hi = from + step;
  }
  let lo = from + 1;
  hi = Math.min(hi, list.length);
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid]! < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Union of ascending lists, ascending and without duplicates; `scratch` is all zeros on entry and exit. */
function union(lists: Int32Array[], n: number, scratch: Uint8Array): Int32Array {
  if (lists.length === 0) return EMPTY;
  if (lists.length === 1) return lists[0]!;
  const total = lists.reduce((a, l) => a + l.length, 0);
  if (total <= n / 16) {
    const out = new Int32Array(total);
    let o = 0;
    for (const l of lists) {
      out.set(l, o);
      o += l.length;
    }
    out.sort();
    let w = 0;
    for (let r = 0; r < out.length; r++) if (r === 0 || out[r] !== out[r - 1]) out[w++] = out[r]!;
    return out.subarray(0, w);
  }
  let count = 0;
  for (const l of lists) {
    for (let k = 0; k < l.length; k++) {
      const i = l[k]!;
      if (!scratch[i]) {
        scratch[i] = 1;
        count++;
      }
    }
  }
  const out = new Int32Array(count);
  let o = 0;
  for (let i = 0; i < n; i++) {
    if (scratch[i]) {
      out[o++] = i;
      scratch[i] = 0;
    }
  }
  return out;
}

/** The people of an index, in index (= id) order. */
interface PersonTable {
  readonly length: number;
  at(i: number): Person;
  idAt(i: number): string;
}

class ObjectTable implements PersonTable {
  constructor(private readonly people: Person[]) {}
  get length() {
    return this.people.length;
  }
  at(i: number) {
    return this.people[i]!;
  }
  idAt(i: number) {
    return this.people[i]!.id;
  }
}

/**
 * Strings packed into one, with offsets: loading 100,000 of them from a snapshot is one copy, where an
 * array of 100,000 strings or objects costs an allocation each.
 */
interface PackedStrings {
  text: string;
  offsets: Uint32Array;
}

function pack(values: string[]): PackedStrings {
  const offsets = new Uint32Array(values.length + 1);
  for (let i = 0; i < values.length; i++) offsets[i + 1] = offsets[i]! + values[i]!.length;
  return { text: values.join(''), offsets };
}

const unpackAt = (p: PackedStrings, i: number) => p.text.slice(p.offsets[i]!, p.offsets[i + 1]!);

/**
 * People as their JSON, parsed when a hit or a lookup asks for one: a loaded snapshot holds 100,000
 * people in one external buffer instead of 100,000 object graphs on the heap (v8.deserialize of those
 * took 13.6 s at 100k, measured, against a fraction of a second for the buffer).
 */
class JsonTable implements PersonTable {
  constructor(
    private readonly json: Buffer,
    private readonly offsets: Uint32Array,
    private readonly ids: PackedStrings,
  ) {}
  get length() {
    return this.offsets.length - 1;
  }
  at(i: number): Person {
    return JSON.parse(this.json.toString('utf8', this.offsets[i]!, this.offsets[i + 1]!)) as Person;
  }
  idAt(i: number) {
    return unpackAt(this.ids, i);
  }
}

/** Ascending lists as one array and offsets (list k is values[offsets[k]..offsets[k+1]]). */
interface PackedLists<K> {
  keys: K[];
  values: Int32Array;
  offsets: Uint32Array;
}

/** Bumped whenever the snapshot's shape changes, so an older snapshot is rebuilt rather than misread. */
export const SNAPSHOT_FORMAT = 1;

interface IndexedPlace {
  city: string; // normalized
  region: string; // normalized
  country: string; // ISO2
}

export class PeopleIndex implements SearchEngine {
  private people: PersonTable = new ObjectTable([]);
  private readonly companies: Company[] = [];
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

  private functions = new Interner();
  private seniorities = new Interner();
  private industries = new Interner();
  private titles = new Interner(); // raw current_job_title
  private titleKeyIds: number[][] = []; // title id -> canonical title key ids
  private titleExact: string[] = []; // title id -> normalized title
  private titleWords: Set<string>[] = []; // title id -> its searchable words
  private titleSeniorities: number[] = []; // title id -> bit set of the seniority ids holding it
  private titleKeys = new Interner();
  private places = new Interner();
  private placeList: IndexedPlace[] = [];

  private byFunction = new Postings<number>();
  private bySeniority = new Postings<number>();
  private byTitleKey = new Postings<number>();
  private byPlace = new Postings<number>();
  private byCompany = new Postings<number>();
  private byIndustry = new Postings<number>();
  private byWord = new Postings<string>();

  /** Reused by `union`, so a query over broad constraints allocates no per-person mark array. */
  private scratch = new Uint8Array(0);

  /**
   * People taken out of this loaded index after it was built (an erasure, or the erasure list applied at a start:
   * shared/privacy/directory-erasure.ts): no search, lookup or `entries` answers them. Not part of a snapshot.
   */
  private removed: Uint8Array | null = null;

  /** People whose company_id named no company in the input. */
  skipped = 0;
  /** Build time in milliseconds. */
  buildMs = 0;

  private constructor() {}

  get size(): number {
    return this.people.length;
  }

  /** Distinct searchable words. */
  get vocabulary(): number {
    return this.byWord.size;
  }

  person(id: string): Person | undefined {
    const i = this.indexOf(id);
    return i < 0 || this.isRemoved(i) ? undefined : this.people.at(i);
  }

  /** Position of a person id (binary search: index order is id order), or -1. */
  private indexOf(id: string): number {
    let lo = 0;
    let hi = this.people.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.people.idAt(mid) < id) lo = mid + 1;
      else hi = mid;
    }
    return lo < this.people.length && this.people.idAt(lo) === id ? lo : -1;
  }

  /** Take the person at an index position out of every answer of this loaded index (idempotent). */
  remove(i: number): void {
    if (i < 0 || i >= this.people.length) return;
    this.removed ??= new Uint8Array(this.people.length);
    this.removed[i] = 1;
  }

  /** Whether `remove` took the person at this position out. */
  isRemoved(i: number): boolean {
    return this.removed?.[i] === 1;
  }

  /** People taken out with `remove`. */
  get removedCount(): number {
    return this.removed ? this.removed.reduce((a, b) => a + b, 0) : 0;
  }

  /** The person at an index position (0 … size-1) with their company. */
  entryAt(i: number): DirectoryEntry {
    return { person: this.people.at(i), company: this.companies[this.pCompany[i]!]! };
  }

  async entries(ids: string[]): Promise<(DirectoryEntry | undefined)[]> {
    return ids.map((id) => {
      const i = this.indexOf(id);
      return i < 0 || this.isRemoved(i) ? undefined : this.entryAt(i);
    });
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
    const people: Person[] = [];
    // Skills come from a short list, so their words are worked out once per distinct skill.
    const skillWords = new Map<string, string[]>();

    for (const p of pending) {
      const c = ix.companyById.get(p.company_id);
      // Sorted by id, so a repeated id is the one just kept.
      if (c === undefined || people.at(-1)?.id === p.id) {
        ix.skipped++;
        continue;
      }
      const i = people.length;
      people.push(p);
      ix.pCompany[i] = c;
      ix.byCompany.add(c, i);
      const f = ix.functions.id(p.function);
      ix.pFunction[i] = f;
      ix.byFunction.add(f, i);
      const s = ix.seniorities.id(p.seniority);
      ix.pSeniority[i] = s;
      ix.bySeniority.add(s, i);
      const t = ix.titles.id(p.current_job_title);
      if (t === ix.titleKeyIds.length) {
        ix.titleKeyIds.push(titleKeys(p.current_job_title).map((k) => ix.titleKeys.id(k)));
        ix.titleExact.push(normalizeName(p.current_job_title));
        ix.titleWords.push(new Set(textKeys(p.current_job_title)));
        ix.titleSeniorities.push(0);
      }
      ix.titleSeniorities[t]! |= 1 << Math.min(s, 30);
      ix.pTitle[i] = t;
      for (const k of ix.titleKeyIds[t]!) ix.byTitleKey.add(k, i);
      // Keyed on the raw strings so each distinct place is normalized once, not once per person.
      const pl = ix.places.id(`${p.location.country_code}|${p.location.region}|${p.location.city}`);
      if (pl === ix.placeList.length) {
        ix.placeList.push({ city: normalizeName(p.location.city), region: normalizeName(p.location.region), country: p.location.country_code });
      }
      ix.pPlace[i] = pl;
      ix.byPlace.add(pl, i);

      const words = new Set(ix.titleWords[t]);
      for (const w of textKeys(p.headline)) words.add(w);
      for (const skill of p.skills) {
        let ws = skillWords.get(skill);
        if (!ws) skillWords.set(skill, (ws = textKeys(skill)));
        for (const w of ws) words.add(w);
      }
      for (const w of words) ix.byWord.add(w, i);
    }

    ix.people = new ObjectTable(people);
    ix.cIndustry = new Uint16Array(ix.companies.length);
    ix.cSize = new Int32Array(ix.companies.length);
    ix.byCompany.freeze();
    ix.companies.forEach((c, ci) => {
      ix.cIndustry[ci] = ix.industries.id(c.industry);
      ix.cSize[ci] = c.employee_count;
      ix.cName.push(normalizeCompanyName(c.name));
      for (const i of ix.byCompany.get(ci) ?? EMPTY) ix.byIndustry.add(ix.cIndustry[ci]!, i);
    });
    ix.byIndustry.freeze(true);
    for (const p of [ix.byFunction, ix.bySeniority, ix.byTitleKey, ix.byPlace, ix.byWord]) p.freeze();
    ix.scratch = new Uint8Array(ix.people.length);
    ix.buildMs = Math.round(performance.now() - started);
    return ix;
  }

  /**
   * The whole index as one buffer (v8 serialization of typed arrays, packed strings and one JSON buffer
   * of the people), which `fromSnapshot` loads without rebuilding.
   */
  toSnapshot(): Buffer {
    const people: Person[] = [];
    for (let i = 0; i < this.people.length; i++) people.push(this.people.at(i));
    const json = people.map((p) => JSON.stringify(p));
    const offsets = new Uint32Array(json.length + 1);
    for (let i = 0; i < json.length; i++) offsets[i + 1] = offsets[i]! + Buffer.byteLength(json[i]!);
    // Written person by person: one joined string would pass V8's string length limit (2^29 − 24 characters)
    // at about 300,000 people.
    const bytes = Buffer.allocUnsafe(offsets[json.length]!);
    for (let i = 0; i < json.length; i++) bytes.write(json[i]!, offsets[i]!, 'utf8');
    return serialize({
      format: SNAPSHOT_FORMAT,
      people: { json: bytes, offsets, ids: pack(people.map((p) => p.id)) },
      companies: this.companies,
      pCompany: this.pCompany,
      pFunction: this.pFunction,
      pSeniority: this.pSeniority,
      pTitle: this.pTitle,
      pPlace: this.pPlace,
      cIndustry: this.cIndustry,
      cSize: this.cSize,
      cName: this.cName,
      interned: { functions: this.functions.values, seniorities: this.seniorities.values, industries: this.industries.values, titles: this.titles.values, titleKeys: this.titleKeys.values, places: this.places.values },
      titleKeyIds: this.titleKeyIds,
      titleExact: this.titleExact,
      titleWords: this.titleWords.map((ws) => [...ws]),
      titleSeniorities: this.titleSeniorities,
      placeList: this.placeList,
      postings: {
        byFunction: this.byFunction.pack(),
        bySeniority: this.bySeniority.pack(),
        byTitleKey: this.byTitleKey.pack(),
        byPlace: this.byPlace.pack(),
        byCompany: this.byCompany.pack(),
        byIndustry: this.byIndustry.pack(),
        byWord: this.byWord.pack(),
      },
      skipped: this.skipped,
    });
  }

  /** An index from `toSnapshot`'s buffer; throws on a snapshot of another format. */
  static fromSnapshot(buffer: Buffer): PeopleIndex {
    const started = performance.now();
    const s = deserialize(buffer);
    if (s?.format !== SNAPSHOT_FORMAT) throw new Error(`people index snapshot format ${String(s?.format)} is not ${SNAPSHOT_FORMAT}`);
    const ix = new PeopleIndex();
    ix.people = new JsonTable(s.people.json, s.people.offsets, s.people.ids);
    (s.companies as Company[]).forEach((c, ci) => {
      ix.companies.push(c);
      ix.companyById.set(c.id, ci);
    });
    ix.pCompany = s.pCompany;
    ix.pFunction = s.pFunction;
    ix.pSeniority = s.pSeniority;
    ix.pTitle = s.pTitle;
    ix.pPlace = s.pPlace;
    ix.cIndustry = s.cIndustry;
    ix.cSize = s.cSize;
    ix.cName = s.cName;
    ix.functions = Interner.from(s.interned.functions);
    ix.seniorities = Interner.from(s.interned.seniorities);
    ix.industries = Interner.from(s.interned.industries);
    ix.titles = Interner.from(s.interned.titles);
    ix.titleKeys = Interner.from(s.interned.titleKeys);
    ix.places = Interner.from(s.interned.places);
    ix.titleKeyIds = s.titleKeyIds;
    ix.titleExact = s.titleExact;
    ix.titleWords = (s.titleWords as string[][]).map((ws) => new Set(ws));
    ix.titleSeniorities = s.titleSeniorities;
    ix.placeList = s.placeList;
    ix.byFunction = Postings.unpack(s.postings.byFunction);
    ix.bySeniority = Postings.unpack(s.postings.bySeniority);
    ix.byTitleKey = Postings.unpack(s.postings.byTitleKey);
    ix.byPlace = Postings.unpack(s.postings.byPlace);
    ix.byCompany = Postings.unpack(s.postings.byCompany);
    ix.byIndustry = Postings.unpack(s.postings.byIndustry);
    ix.byWord = Postings.unpack(s.postings.byWord);
    ix.skipped = s.skipped;
    ix.scratch = new Uint8Array(ix.people.length);
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

  /** Indexed places inside any of the query's places (each given field must match). */
  private resolvePlaces(places: Place[]): Uint8Array | null {
    if (!places.length) return null;
    const wanted = places.map((p) => ({ city: p.city && normalizeName(p.city), region: p.region && normalizeName(p.region), country: p.country.toUpperCase() }));
    const ok = new Uint8Array(this.placeList.length);
    this.placeList.forEach((pl, id) => {
      if (wanted.some((w) => w.country === pl.country && (!w.region || w.region === pl.region) && (!w.city || w.city === pl.city))) ok[id] = 1;
    });
    return ok;
  }

  async search(q: ParsedQuery, opts: SearchOptions): Promise<SearchHit[]> {
    const limit = Math.max(0, Math.floor(opts.limit));
    const N = this.people.length;
    if (!limit || !N) return [];

    // --- resolve constraints to attribute-id sets (null = unconstrained)
    // Attribute-id masks: a typed-array lookup per candidate is cheaper than a Set probe.
    const idSet = (interner: Interner, values: string[]) => {
      if (!values.length) return null;
      const mask = new Uint8Array(interner.values.length);
      for (const v of values) {
        const id = interner.ids.get(v);
        if (id !== undefined) mask[id] = 1;
      }
      return mask;
    };
    const ids = (mask: Uint8Array | null) => (mask ? [...mask.keys()].filter((k) => mask[k]) : null);
    const fnOk = idSet(this.functions, q.functions);
    const senOk = idSet(this.seniorities, q.seniorities);
    const indOk = idSet(this.industries, q.industries);
    const keyOk = idSet(this.titleKeys, q.titles);
    const titleOk = keyOk ? Uint8Array.from(this.titleKeyIds, (ks) => (ks.some((k) => keyOk[k]) ? 1 : 0)) : null;
    const placeOk = this.resolvePlaces(q.locations);
    const companyOk = q.companies.length ? this.resolveCompanies(q.companies) : null;
    const minSize = q.companySize?.min ?? -Infinity;
    const maxSize = q.companySize?.max ?? Infinity;

    const x = q.exclusions;
    const xCompanies = x.companies.length ? this.resolveCompanies(x.companies) : null;
    const xInd = idSet(this.industries, x.industries);
    const xFn = idSet(this.functions, x.functions);
    const xSen = idSet(this.seniorities, x.seniorities);
    const xKeys = idSet(this.titleKeys, x.titles);
    const xTitle = xKeys ? Uint8Array.from(this.titleKeyIds, (ks) => (ks.some((k) => xKeys[k]) ? 1 : 0)) : null;

    // Required words: one nobody has means nobody matches.
    const keys = [...new Set(q.keywords.map(keywordKey))];
    const required = keys.map((k) => this.byWord.get(k) ?? EMPTY);
    if (required.some((l) => l.length === 0)) return [];
    const forbidden = [...new Set(x.keywords.map(keywordKey))].map((k) => this.byWord.get(k)).filter((l): l is Int32Array => l !== undefined);

    // --- seed: the smallest candidate list among the constraints and the required words
    const seeds: Int32Array[][] = [];
    const addSeed = (ids: Iterable<number> | null, postings: Postings<number>) => {
      if (ids) seeds.push([...ids].flatMap((id) => postings.get(id) ?? []));
    };
    addSeed(ids(fnOk), this.byFunction);
    addSeed(ids(senOk), this.bySeniority);
    addSeed(ids(keyOk), this.byTitleKey);
    addSeed(ids(placeOk), this.byPlace);
    addSeed(companyOk, this.byCompany);
    addSeed(ids(indOk), this.byIndustry);
    for (const l of required) seeds.push([l]);
    const hasExclusion = xCompanies || xInd || xFn || xSen || xKeys || forbidden.length;
    if (!seeds.length && !q.companySize && !hasExclusion) return []; // nothing to search on
    const total = (lists: Int32Array[]) => lists.reduce((a, l) => a + l.length, 0);
    const seed = seeds.length ? union(seeds.reduce((a, b) => (total(b) < total(a) ? b : a)), N, this.scratch) : null;

    const removed = this.removed;
    const pass = (i: number): boolean => {
      if (removed?.[i]) return false;
      const c = this.pCompany[i]!;
      if (fnOk && !fnOk[this.pFunction[i]!]) return false;
      if (senOk && !senOk[this.pSeniority[i]!]) return false;
      if (titleOk && !titleOk[this.pTitle[i]!]) return false;
      if (placeOk && !placeOk[this.pPlace[i]!]) return false;
      if (indOk && !indOk[this.cIndustry[c]!]) return false;
      if (companyOk && !companyOk.has(c)) return false;
      const n = this.cSize[c]!;
      if (n < minSize || n > maxSize) return false;
      if (xCompanies?.has(c)) return false;
      if (xInd?.[this.cIndustry[c]!]) return false;
      if (xFn?.[this.pFunction[i]!]) return false;
      if (xSen?.[this.pSeniority[i]!]) return false;
      if (xTitle?.[this.pTitle[i]!]) return false;
      if (opts.exclude?.has(this.people.idAt(i))) return false;
      return true;
    };
    // Candidates arrive in ascending order, so each word list is walked once with a cursor.
    const requiredAt = required.map(() => 0);
    const forbiddenAt = forbidden.map(() => 0);
    const hasWords = (i: number): boolean => {
      for (let k = 0; k < required.length; k++) {
        const at = (requiredAt[k] = advance(required[k]!, requiredAt[k]!, i));
        if (required[k]![at] !== i) return false;
      }
      for (let k = 0; k < forbidden.length; k++) {
        const at = (forbiddenAt[k] = advance(forbidden[k]!, forbiddenAt[k]!, i));
        if (forbidden[k]![at] === i) return false;
      }
      return true;
    };

    // --- score: a word in the title counts more than one in the headline or skills; an exact
    // canonical title more than a narrower one
    const canonical = q.titles.map(normalizeName);
    const score = (i: number): number => {
      let parts = 0;
      if (keys.length) {
        const words = this.titleWords[this.pTitle[i]!]!;
        for (const k of keys) parts += words.has(k) ? 3 : 2;
      }
      if (canonical.length) parts += canonical.includes(this.titleExact[this.pTitle[i]!]!) ? 1 : 0.5;
      return rankScore(parts, 3 * keys.length + (canonical.length ? 1 : 0));
    };
    // The best score any candidate can reach: once the page is full of it, the scan can stop.
    const senBits = senOk ? [...senOk.keys()].reduce((a, k) => (senOk[k] ? a | (1 << Math.min(k, 30)) : a), 0) : -1;
    const exactReachable = this.titleExact.some(
      (t, id) => canonical.includes(t) && (!titleOk || titleOk[id]) && !xTitle?.[id] && (this.titleSeniorities[id]! & senBits) !== 0,
    );
    const reachable = rankScore(
      keys.reduce((a, k) => a + (this.titleWords.some((ws) => ws.has(k)) ? 3 : 2), 0) + (canonical.length ? (exactReachable ? 1 : 0.5) : 0),
      3 * keys.length + (canonical.length ? 1 : 0),
    );
    // A continuation admits nothing above its cursor's score.
    const after = opts.after;
    const best = after ? Math.min(reachable, after.score) : reachable;

    // --- keep the top `limit` by (score desc, index = id asc)
    const topI: number[] = [];
    const topS: number[] = [];
    const consider = (i: number): boolean => {
      if (!pass(i) || !hasWords(i)) return false;
      const s = score(i);
      if (after && !ranksAfter(s, this.people.idAt(i), after)) return false;
      if (topI.length === limit && s <= topS[limit - 1]!) return topS[limit - 1]! >= best;
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
      return topI.length === limit && topS[limit - 1]! >= best; // nothing later can beat a full page of the best score
    };
    if (seed) {
      for (let k = 0; k < seed.length; k++) if (consider(seed[k]!)) break;
    } else {
      for (let i = 0; i < N; i++) if (consider(i)) break;
    }
    return topI.map((i, k) => ({ ...this.entryAt(i), score: topS[k]! }));
  }
}
