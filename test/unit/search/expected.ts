import type { ParsedQuery } from '../../../shared/search/query.js';

export type Partial2<T> = { [K in keyof T]?: T[K] extends unknown[] ? T[K] : T[K] extends object | null ? Partial<NonNullable<T[K]>> | null : T[K] };

/** The full ParsedQuery a partial description stands for (unlisted fields empty). */
export function expected(p: Partial2<ParsedQuery>): ParsedQuery {
  return {
    titles: p.titles ?? [],
    functions: p.functions ?? [],
    seniorities: p.seniorities ?? [],
    locations: { cities: [], regions: [], countries: [], ...(p.locations ?? {}) },
    industries: p.industries ?? [],
    companySize: (p.companySize as ParsedQuery['companySize']) ?? null,
    companies: p.companies ?? [],
    exclusions: { companies: [], industries: [], titles: [], seniorities: [], functions: [], ...(p.exclusions ?? {}) },
    keywords: p.keywords ?? [],
  };
}
