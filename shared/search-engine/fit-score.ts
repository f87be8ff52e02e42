/**
 * The deep-search fit model: an integer 0–100 from weighted parts, each part a value in [0, 1] saying how
 * well one aspect of a candidate meets the query. Only the parts the query asks about count (a query with
 * no place says nothing about location), plus recency in role, which every query has; the score is the
 * weighted mean of those parts, so it is explainable line by line and never falls when any part rises.
 *
 * The place asked for weighs most: a territory is a fact of the caller's plan, while a title is matched with
 * relaxation, so a leader of the function in the city asked for (a Director of Sales in San Francisco for "VP
 * of Sales in San Francisco": adjacent title 0.4, adjacent seniority 0.5, location 1) outranks the exact title
 * a region away (location 0.5) whatever their recency, and the exact title a region away still outranks
 * someone of the function two levels off in the city (title 0.2, seniority 0). Those two bounds are
 * location > 1.2·title + seniority + 2·0.6·recency and location < 1.6·title + 2·seniority − 2·0.6·recency.
 * A candidate who meets every stated constraint loses at most 0.6 of the recency weight (3 points), while any
 * relaxation (an adjacent seniority, a nearby city, a related title, one keyword of three) costs more than
 * that on its own, so exact matches rank above the wider recall that fills the list after them.
 */
export const FIT_WEIGHTS = {
  title: 18,
  seniority: 10,
  function: 7,
  location: 40,
  industry: 5,
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
