/**
 * The deep-search fit model: an integer 0–100 from weighted parts, each part a value in [0, 1] saying how
 * well one aspect of a candidate meets the query. Only the parts the query asks about count (a query with
 * no place says nothing about location), plus recency in role, which every query has; the score is the
 * weighted mean of those parts, so it is explainable line by line and never falls when any part rises.
 *
 * The weights put what the query names most precisely first: a role outweighs a place, and a place
 * outweighs a size bracket. A candidate who meets every stated constraint loses at most the recency
 * weight, while a relaxation (an adjacent seniority, a nearby city, a related title) costs more than that
 * on its own, so exact matches rank above the wider recall that fills the list after them.
 */
export const FIT_WEIGHTS = {
  title: 30,
  seniority: 15,
  function: 10,
  location: 15,
  industry: 10,
  size: 5,
  keywords: 10,
  recency: 5,
} as const;

export type FitPart = keyof typeof FIT_WEIGHTS;
export const FIT_PARTS = Object.keys(FIT_WEIGHTS) as FitPart[];

/** The parts a query constrains, each in [0, 1]; an absent part is one the query does not ask about. */
export type FitParts = Partial<Record<FitPart, number>>;

const clamp01 = (x: number) => (Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0);

export function fitScore(parts: FitParts): number {
  let weight = 0;
  let points = 0;
  for (const part of FIT_PARTS) {
    const value = parts[part];
    if (value === undefined) continue;
    weight += FIT_WEIGHTS[part];
    points += FIT_WEIGHTS[part] * clamp01(value);
  }
  return weight === 0 ? 0 : Math.round((100 * points) / weight);
}

/**
 * Recency in role from the months since the current role began: someone settled in a role of up to two
 * years is the one reshaping a team and its tools; the value then eases off to 0.4 at ten years, and an
 * unknown start counts as the floor.
 */
export function recencyInRole(monthsInRole: number | null): number {
  if (monthsInRole === null || monthsInRole < 0) return 0.4;
  if (monthsInRole <= 24) return 1;
  return Math.max(0.4, 1 - (0.6 * (monthsInRole - 24)) / 96);
}
