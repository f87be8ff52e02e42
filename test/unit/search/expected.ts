import type { ParsedQuery, Place } from '../../../shared/search-engine/query.js';

type Constraints = Omit<ParsedQuery, 'terms'>;
export type Partial2<T> = { [K in keyof T]?: T[K] extends unknown[] ? T[K] : T[K] extends object | null ? Partial<NonNullable<T[K]>> | null : T[K] };

/** The constraints a partial description stands for (unlisted fields empty). */
export function expected(p: Partial2<Constraints>): Constraints {
  return {
    titles: p.titles ?? [],
    functions: p.functions ?? [],
    seniorities: p.seniorities ?? [],
    locations: p.locations ?? [],
    industries: p.industries ?? [],
    companySize: (p.companySize as ParsedQuery['companySize']) ?? null,
    companies: p.companies ?? [],
    keywords: p.keywords ?? [],
    exclusions: { companies: [], industries: [], titles: [], seniorities: [], functions: [], keywords: [], ...(p.exclusions ?? {}) },
  };
}

/** A parse without its term accounting, to compare with `expected`. */
export function constraints(q: ParsedQuery): Constraints {
  const { terms: _terms, ...rest } = q;
  return rest;
}

export const place = (city: string | null, region: string | null, country: string): Place => ({
  ...(city ? { city } : {}),
  ...(region ? { region } : {}),
  country,
});
