/**
 * The effective daily limit of a sending account (docs/decisions.md#decisions-the-contract-leaves-open): the smaller of the configured `daily_limit`,
 * a warm-up ramp by the mailbox's age and history, and an engagement throttle on recent hard-bounce and
 * complaint rates. Pure: it reads the account's per-day deliverability record (UTC days) and nothing else, so
 * the same function answers "today" and projects the days ahead for the send-slot booking.
 *
 * Sources of the numbers (docs/outreach.md "Warm-up, engagement throttle and deliverability"):
 * - ramp: start at 20 a day (lemlist: at most 40 a day on a mailbox younger than a year; Instantly's slow ramp
 *   adds a few campaign emails a day; warm-up takes 2 to 4 weeks), faster steps as the mailbox ages;
 * - hard bounces: Amazon SES reviews an account at a 5% bounce rate and may pause it at 10%;
 * - complaints: Gmail's sender guidelines ask for a spam rate below 0.1% and never 0.3% or more; SES reviews
 *   at 0.1% and may pause at 0.5%.
 */

export const DELIVERABILITY_COUNTERS = ['sent', 'delivered', 'bounced_hard', 'bounced_soft', 'complained', 'opened', 'replied', 'unsubscribed'] as const;
export type DeliverabilityCounter = (typeof DELIVERABILITY_COUNTERS)[number];
export type DayCounts = Record<DeliverabilityCounter, number>;
export interface DeliverabilityDay extends DayCounts {
  date: string;
}

/** Ramp by healthy warm-up day (index 0 = the first day): four weeks of steps, then +20% a healthy day. */
export const WARMUP_RAMP: readonly number[] = Object.freeze([
  20, 25, 30, 35, 40, 45, 50, // week 1: +5 a day
  60, 70, 80, 90, 100, 110, 120, // week 2: +10
  140, 160, 180, 200, 220, 240, 260, // week 3: +20
  300, 340, 380, 420, 460, 500, 540, // week 4: +40
]);
export const WARMUP_GROWTH_AFTER_TABLE = 0.2;
/** A warm-up started longer ago than this is complete: no ramp (bounds the days read). */
export const WARMUP_LOOKBACK_DAYS = 120;

export const ENGAGEMENT = Object.freeze({
  /** The window: the last 7 UTC days, today included. */
  windowDays: 7,
  /** Rates are taken over at least this many sends, so one event in a handful of sends is not a rate. */
  minSends: 20,
  /** Hard-bounce rate above which the limit is halved (`throttled_bounces`). */
  hardBounceRate: 0.05,
  /** Complaint rate above which sending pauses (`paused_complaints`)… */
  complaintRate: 0.003,
  /** …once at least this many complaints are in the window. */
  minComplaints: 2,
});

export type EngagementState = 'ok' | 'throttled_bounces' | 'paused_complaints';

export interface Engagement {
  window_days: number;
  sent: number;
  bounced_hard: number;
  complained: number;
  bounce_rate: number;
  complaint_rate: number;
  state: EngagementState;
}

export interface Warmup {
  started_at: string;
  /** 1-based warm-up day: 1 + the healthy days since the start (days throttled or paused do not count). */
  day: number;
  /** The ramp's limit today; null once it no longer binds. */
  ramp_limit: number | null;
  /** The ramp has reached the configured limit (raising the limit can make it bind again). */
  complete: boolean;
}

export interface Assessment {
  daily_limit: number;
  configured_daily_limit: number;
  health: string;
  warmup: Warmup;
  engagement: Engagement;
}

const DAY_MS = 86_400_000;
export const utcDay = (d: Date) => d.toISOString().slice(0, 10);
export const addDays = (day: string, n: number) => new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);
export const daysBetween = (from: string, to: string) => Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS);

export const emptyCounts = (): DayCounts => ({ sent: 0, delivered: 0, bounced_hard: 0, bounced_soft: 0, complained: 0, opened: 0, replied: 0, unsubscribed: 0 });

/** The ramp's limit after `healthyDays` healthy days. */
export function rampLimit(healthyDays: number): number {
  if (healthyDays < WARMUP_RAMP.length) return WARMUP_RAMP[Math.max(0, healthyDays)]!;
  let limit = WARMUP_RAMP.at(-1)!;
  for (let i = WARMUP_RAMP.length; i <= healthyDays && limit < 100_000; i++) limit = Math.ceil(limit * (1 + WARMUP_GROWTH_AFTER_TABLE));
  return limit;
}

/** The engagement window that ends on `day` (UTC), from the record. */
export function engagementOn(day: string, counts: ReadonlyMap<string, DayCounts>): Engagement {
  let sent = 0;
  let bounced = 0;
  let complained = 0;
  for (let i = 0; i < ENGAGEMENT.windowDays; i++) {
    const c = counts.get(addDays(day, -i));
    if (!c) continue;
    sent += c.sent;
    bounced += c.bounced_hard;
    complained += c.complained;
  }
  const over = Math.max(sent, ENGAGEMENT.minSends);
  const bounce_rate = bounced / over;
  const complaint_rate = complained / over;
  const state: EngagementState =
    complained >= ENGAGEMENT.minComplaints && complaint_rate > ENGAGEMENT.complaintRate ? 'paused_complaints' : bounce_rate > ENGAGEMENT.hardBounceRate ? 'throttled_bounces' : 'ok';
  return { window_days: ENGAGEMENT.windowDays, sent, bounced_hard: bounced, complained, bounce_rate: round4(bounce_rate), complaint_rate: round4(complaint_rate), state };
}

const round4 = (n: number) => Math.round(n * 10_000) / 10_000;

/**
 * The account's limit and health on `day` (UTC). `storedHealth` other than `healthy` (e.g. `reauth_required`)
 * names something the customer must fix and stays the health shown; the limit is computed all the same.
 * Days after the last recorded one count as quiet, so a future `day` projects the ramp and the window moving on.
 */
export function assess(opts: { configured: number; warmupStartedAt: string; storedHealth: string; day: string; counts: ReadonlyMap<string, DayCounts> }): Assessment {
  const { configured, day, counts } = opts;
  const startDay = opts.warmupStartedAt.slice(0, 10);
  const age = daysBetween(startDay, day);
  const engagement = engagementOn(day, counts);
  const lapsed = age > WARMUP_LOOKBACK_DAYS;
  let healthy = 0;
  if (!lapsed) for (let d = startDay; d < day; d = addDays(d, 1)) if (engagementOn(d, counts).state === 'ok') healthy++;
  const ramp = lapsed ? Number.POSITIVE_INFINITY : rampLimit(healthy);
  const complete = ramp >= configured;
  const base = Math.min(configured, ramp);
  const limit = engagement.state === 'paused_complaints' ? 0 : engagement.state === 'throttled_bounces' ? Math.floor(base / 2) : base;
  const reason = engagement.state !== 'ok' ? engagement.state : ramp < configured ? 'warming_up' : 'healthy';
  return {
    daily_limit: Math.max(0, limit),
    configured_daily_limit: configured,
    health: opts.storedHealth !== 'healthy' ? opts.storedHealth : reason,
    warmup: { started_at: opts.warmupStartedAt, day: Math.max(1, healthy + 1), ramp_limit: complete ? null : ramp, complete },
    engagement,
  };
}
