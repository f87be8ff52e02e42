/**
 * Deep search's shortlist: wider recall than people search, ranked by the fit model (fit-score.ts).
 *
 * Candidates come from the people-search engine run over a ladder of ever wider readings of the query:
 * 1. the query as understood (every constraint and required word);
 * 2. the same without the required words, which become a scored part;
 * 3. related titles (a title's parents and siblings in the taxonomy, and the titles its function holds at
 *    the adjacent seniorities), adjacent seniorities, and nearby places (a city widened to its region);
 * 4. the titles' functions instead of the titles.
 * Named companies, company size and every exclusion hold on every rung. Each candidate then gets its fit
 * parts from its own record, and the list is sorted by score, ties in the order the rungs found them.
 */
import { SENIORITIES, TITLE_ROLES, TITLES_BY_FUNCTION, type Seniority } from '../directory/taxonomy.js';
import type { Company, Person } from '../directory/types.js';
import { normalizeName } from '../directory/urls.js';
import { keywordKey, textKeys, titleKeys, type ParsedQuery, type Place } from './query.js';
import type { SearchEngine } from './search-port.js';
import { fitScore, recencyInRole, type FitParts } from './fit-score.js';

export interface ShortlistEntry {
  person: Person;
  company: Company;
  parts: FitParts;
  score: number;
}

/** How many candidates each rung of the ladder may bring: enough to rank well past the longest list. */
const CANDIDATES_PER_RUNG = 1_000;

interface TitleRelations {
  functionOf: Map<string, string>;
  /** Parents and siblings (titles sharing a parent). */
  related: Map<string, Set<string>>;
  /** Seniorities at which the taxonomy gives people a title that counts as this one. */
  implied: Map<string, Set<Seniority>>;
  /** The canonical titles a function holds at each seniority. */
  byLevel: Map<string, Map<Seniority, Set<string>>>;
}

let relations: TitleRelations | null = null;

function titleRelations(): TitleRelations {
  if (relations) return relations;
  const functionOf = new Map(TITLE_ROLES.map((r) => [r.title, r.function as string]));
  const children = new Map<string, string[]>();
  for (const r of TITLE_ROLES) for (const p of r.parents ?? []) children.set(p, [...(children.get(p) ?? []), r.title]);
  const related = new Map<string, Set<string>>();
  for (const r of TITLE_ROLES) {
    const set = new Set<string>();
    for (const p of r.parents ?? []) {
      set.add(p);
      for (const sibling of children.get(p) ?? []) if (sibling !== r.title) set.add(sibling);
    }
    related.set(r.title, set);
  }
  const implied = new Map<string, Set<Seniority>>();
  const byLevel = new Map<string, Map<Seniority, Set<string>>>();
  for (const [fn, levels] of Object.entries(TITLES_BY_FUNCTION)) {
    const perLevel = new Map<Seniority, Set<string>>();
    for (const [level, titles] of Object.entries(levels) as [Seniority, string[]][]) {
      const canonical = new Set<string>();
      for (const raw of titles) {
        const keys = titleKeys(raw);
        if (keys[0]) canonical.add(keys[0]);
        for (const k of keys) implied.set(k, (implied.get(k) ?? new Set()).add(level));
      }
      perLevel.set(level, canonical);
    }
    byLevel.set(fn, perLevel);
  }
  relations = { functionOf, related, implied, byLevel };
  return relations;
}

export function adjacentSeniorities(levels: Iterable<string>): Set<string> {
  const out = new Set<string>();
  for (const level of levels) {
    const i = SENIORITIES.indexOf(level as Seniority);
    if (i < 0) continue;
    for (const j of [i - 1, i + 1]) if (SENIORITIES[j]) out.add(SENIORITIES[j]);
  }
  for (const level of levels) out.delete(level);
  return out;
}

/** What the query's titles and seniorities expand to, worked out once per query. */
interface Wanted {
  titles: Set<string>;
  relatedTitles: Set<string>;
  adjacentTitles: Set<string>;
  functions: Set<string>;
  seniorities: Set<string>;
  adjacentSeniorities: Set<string>;
  keywords: string[];
}

function wanted(q: ParsedQuery): Wanted {
  const rel = titleRelations();
  const titles = new Set(q.titles);
  const functions = new Set(q.functions);
  const implied = new Set<string>();
  const relatedTitles = new Set<string>();
  for (const t of titles) {
    const fn = rel.functionOf.get(t);
    if (fn) functions.add(fn);
    for (const s of rel.implied.get(t) ?? []) implied.add(s);
    for (const r of rel.related.get(t) ?? []) if (!titles.has(r)) relatedTitles.add(r);
  }
  // A title says its level ("VP of Sales"); an explicit seniority word overrides what the title implies.
  const seniorities = new Set(q.seniorities.length ? q.seniorities : implied);
  const adjacent = adjacentSeniorities(seniorities);
  const adjacentTitles = new Set<string>();
  for (const t of titles) {
    const levels = rel.byLevel.get(rel.functionOf.get(t) ?? '');
    for (const level of adjacent) for (const a of levels?.get(level as Seniority) ?? []) if (!titles.has(a) && !relatedTitles.has(a)) adjacentTitles.add(a);
  }
  return { titles, relatedTitles, adjacentTitles, functions, seniorities, adjacentSeniorities: adjacent, keywords: [...new Set(q.keywords.map(keywordKey))] };
}

/** A city widens to its region, a region to its country. */
function widenPlace(p: Place): Place {
  if (p.city) return p.region ? { region: p.region, country: p.country } : { country: p.country };
  if (p.region) return { country: p.country };
  return p;
}

function ladder(q: ParsedQuery, w: Wanted): ParsedQuery[] {
  const rungs: ParsedQuery[] = [q];
  const loose = { ...q, keywords: [] };
  rungs.push(loose);
  const wide: ParsedQuery = {
    ...loose,
    titles: [...w.titles, ...w.relatedTitles, ...w.adjacentTitles],
    seniorities: q.seniorities.length ? [...q.seniorities, ...adjacentSeniorities(q.seniorities)] : [],
    locations: [...q.locations, ...q.locations.map(widenPlace)],
  };
  rungs.push(wide);
  if (q.titles.length) rungs.push({ ...wide, titles: [], functions: [...w.functions] });
  const seen = new Set<string>();
  return rungs.filter((r) => {
    const key = JSON.stringify({ ...r, terms: [] });
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

const same = (a: string | undefined, b: string) => a !== undefined && normalizeName(a) === normalizeName(b);

function placeFit(place: Place, where: Person['location']): number {
  if (place.country !== where.country_code) return 0;
  const regionMatches = place.region !== undefined && same(place.region, where.region);
  if (place.city) return same(place.city, where.city) && (!place.region || regionMatches) ? 1 : regionMatches ? 0.5 : 0.25;
  if (place.region) return regionMatches ? 1 : 0.3;
  return 1;
}

function monthsBetween(start: string, asOf: Date): number {
  const [y, m] = start.split('-').map(Number) as [number, number];
  return (asOf.getUTCFullYear() - y) * 12 + (asOf.getUTCMonth() + 1 - m);
}

/** The fit parts of one candidate: only the parts the query asks about, plus recency in role. */
function fitParts(q: ParsedQuery, w: Wanted, person: Person, company: Company, asOf: Date): FitParts {
  const parts: FitParts = {};
  if (w.titles.size) {
    const keys = titleKeys(person.current_job_title);
    parts.title = keys.some((k) => w.titles.has(k)) ? 1 : keys.some((k) => w.relatedTitles.has(k)) ? 0.6 : keys.some((k) => w.adjacentTitles.has(k)) ? 0.4 : w.functions.has(person.function) ? 0.2 : 0;
  }
  if (w.seniorities.size) parts.seniority = w.seniorities.has(person.seniority) ? 1 : w.adjacentSeniorities.has(person.seniority) ? 0.5 : 0;
  if (w.functions.size) parts.function = w.functions.has(person.function) ? 1 : 0;
  if (q.locations.length) parts.location = Math.max(...q.locations.map((p) => placeFit(p, person.location)));
  if (q.industries.length) parts.industry = q.industries.includes(company.industry) ? 1 : 0;
  if (q.companySize) {
    const { min = -Infinity, max = Infinity } = q.companySize;
    parts.size = company.employee_count >= min && company.employee_count <= max ? 1 : 0;
  }
  if (w.keywords.length) {
    const words = new Set([...textKeys(person.current_job_title), ...textKeys(person.headline), ...person.skills.flatMap(textKeys)]);
    parts.keywords = w.keywords.filter((k) => words.has(k)).length / w.keywords.length;
  }
  const current = person.experience.find((x) => x.end === null);
  parts.recency = recencyInRole(current ? monthsBetween(current.start, asOf) : null);
  return parts;
}

/**
 * The best `size` candidates for a query, highest score first; `asOf` dates recency in role. `hidden` flags the
 * people to leave out (those who opted out, shared/search/visible-page.ts): the ranked list is walked in windows
 * of what the shortlist still lacks, one call per window, so the shortlist still fills to `size` past them.
 */
export async function deepShortlist(engine: SearchEngine, q: ParsedQuery, opts: { size: number; asOf: Date; hidden?: (people: Person[]) => Promise<boolean[]> }): Promise<ShortlistEntry[]> {
  const w = wanted(q);
  const found = new Map<string, ShortlistEntry>();
  for (const rung of ladder(q, w)) {
    for (const hit of await engine.search(rung, { limit: CANDIDATES_PER_RUNG })) {
      if (found.has(hit.person.id)) continue;
      const parts = fitParts(q, w, hit.person, hit.company, opts.asOf);
      found.set(hit.person.id, { person: hit.person, company: hit.company, parts, score: fitScore(parts) });
    }
  }
  // A stable sort keeps the rung order among equal scores: the stricter reading first.
  const ranked = [...found.values()].sort((a, b) => b.score - a.score);
  const size = Math.max(0, opts.size);
  if (!opts.hidden) return ranked.slice(0, size);
  const out: ShortlistEntry[] = [];
  for (let at = 0; out.length < size && at < ranked.length; ) {
    const window = ranked.slice(at, at + size - out.length);
    at += window.length;
    const hidden = await opts.hidden(window.map((e) => e.person));
    window.forEach((e, i) => hidden[i] || out.push(e));
  }
  return out;
}
