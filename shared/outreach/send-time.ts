/**
 * Send-time arithmetic for outreach (docs/decisions.md#best-send-time and docs/decisions.md#follow-ups). Every instant in
 * and out is a UTC `Date`; local wall-clock reasoning goes through `Intl.DateTimeFormat` with a
 * `timeZone`, so DST is handled by the runtime's tz database rather than a fixed offset.
 */
import { ValidationError } from '../core/errors.js';

/** Follow-up delays in days after the previous step actually sent, for steps 1, 2 and 3. */
export const FOLLOW_UP_DAYS: readonly number[] = Object.freeze([3, 7, 14]);

/** Best-time window: 09:00 to 11:00 local (end exclusive). */
const BEST_START_MINUTE = 9 * 60;
const BEST_WINDOW_MINUTES = 120;
/** Follow-up window: 09:00 to 17:00 local (end exclusive). */
const FOLLOW_UP_END_MINUTE = 17 * 60;
const DAY_MS = 86_400_000;
/** How far allocateSlot looks ahead before concluding something is wrong with the counts. */
const MAX_ALLOCATION_DAYS = 400;

export interface ZonedParts {
  year: number;
  /** 1..12 */
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  /** 0 = Sunday … 6 = Saturday */
  weekday: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    try {
      formatter = new Intl.DateTimeFormat('en-US', {
        timeZone,
        hourCycle: 'h23',
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
      });
    } catch {
      throw new ValidationError(`Unknown time zone: ${timeZone}`);
    }
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

export function isValidTimeZone(timeZone: string): boolean {
  try {
    formatterFor(timeZone);
    return true;
  } catch {
    return false;
  }
}

/** Wall-clock fields of `date` in `timeZone`. */
export function zonedParts(date: Date, timeZone: string): ZonedParts {
  const fields: Record<string, number> = {};
  for (const part of formatterFor(timeZone).formatToParts(date)) {
    if (part.type !== 'literal') fields[part.type] = Number(part.value);
  }
  const year = fields.year!;
  const month = fields.month!;
  const day = fields.day!;
  // Some runtimes print midnight as 24 even with h23; normalise.
  const hour = fields.hour! % 24;
  return {
    year,
    month,
    day,
    hour,
    minute: fields.minute!,
    second: fields.second!,
    weekday: new Date(Date.UTC(year, month - 1, day)).getUTCDay(),
  };
}

/** Offset of `timeZone` from UTC at instant `ms`, in milliseconds (local = UTC + offset). */
function offsetAt(ms: number, timeZone: string): number {
  const p = zonedParts(new Date(ms), timeZone);
  const asUtc = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  return asUtc - (ms - (((ms % 1000) + 1000) % 1000));
}

/**
 * The UTC instant at which the wall clock in `timeZone` reads y-m-d h:min. Fields may overflow
 * (day 32, minute 119) and are normalised like `Date.UTC`. An ambiguous time (DST fall-back) gives
 * the earlier instant; a time skipped by a DST gap is moved forward by the gap.
 */
export function fromZoned(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  timeZone: string,
): Date {
  const wall = Date.UTC(year, month - 1, day, hour, minute);
  const offsets = new Set([
    offsetAt(wall - 1.5 * DAY_MS, timeZone),
    offsetAt(wall, timeZone),
    offsetAt(wall + 1.5 * DAY_MS, timeZone),
  ]);
  const valid: number[] = [];
  for (const offset of offsets) {
    const candidate = wall - offset;
    if (offsetAt(candidate, timeZone) === offset) valid.push(candidate);
  }
  if (valid.length > 0) return new Date(Math.min(...valid));
  // In a gap: read the wall time with the offset in force before the transition, which lands the
  // same distance after it (02:30 in a 02:00→03:00 gap becomes 03:30).
  return new Date(wall - offsetAt(wall - 1.5 * DAY_MS, timeZone));
}

/** `YYYY-MM-DD` of `date` in `timeZone`; daily sending limits count per local day. */
export function localDay(date: Date, timeZone: string): string {
  const p = zonedParts(date, timeZone);
  return `${String(p.year).padStart(4, '0')}-${String(p.month).padStart(2, '0')}-${String(p.day).padStart(2, '0')}`;
}

/** FNV-1a, 32-bit: a stable, well-spread hash for deterministic minute spreading. */
export function hashSeed(seed: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < seed.length; i += 1) {
    hash ^= seed.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** Minutes after 09:00 (0..119) that `seed` lands on, so recipients do not all get mail at 09:00 sharp. */
export function spreadMinutes(seed: string): number {
  return hashSeed(seed) % BEST_WINDOW_MINUTES;
}

function isWeekday(weekday: number): boolean {
  return weekday >= 1 && weekday <= 5;
}

function weekdayOf(year: number, month: number, day: number): number {
  return new Date(Date.UTC(year, month - 1, day)).getUTCDay();
}

/** Local calendar date `days` after y-m-d (normalised through UTC, which has no DST). */
function addLocalDays(year: number, month: number, day: number, days: number): [number, number, number] {
  const d = new Date(Date.UTC(year, month - 1, day + days));
  return [d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate()];
}

function assertDate(name: string, value: Date): void {
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) {
    throw new ValidationError(`${name} must be a valid date`);
  }
}

/**
 * Window start (09:00 + spread) on the first weekday on or after local date y-m-d whose slot is
 * not before `notBefore`.
 */
function nextWeekdayWindow(
  start: [number, number, number],
  spread: number,
  timeZone: string,
  notBefore: number,
): Date {
  for (let offset = 0; offset < 14; offset += 1) {
    const [y, m, d] = addLocalDays(...start, offset);
    if (!isWeekday(weekdayOf(y, m, d))) continue;
    const slot = fromZoned(y, m, d, 0, BEST_START_MINUTE + spread, timeZone);
    if (slot.getTime() >= notBefore) return slot;
  }
  // Unreachable for any real zone: two weeks always hold a weekday morning after `notBefore`.
  throw new Error('no weekday window found');
}

/**
 * Next weekday 09:00–11:00 in `timeZone`, the minute chosen by `seed`; never before `now`.
 * Today counts when it is a weekday and the chosen minute has not passed yet.
 */
export function bestSendTime(opts: { now: Date; timeZone: string; seed: string }): Date {
  assertDate('now', opts.now);
  const today = zonedParts(opts.now, opts.timeZone);
  return nextWeekdayWindow(
    [today.year, today.month, today.day],
    spreadMinutes(opts.seed),
    opts.timeZone,
    opts.now.getTime(),
  );
}

/** The `now` schedule's next available send slot, before daily-limit allocation: now, rounded up to a whole second. */
export function nextSlotNow(now: Date): Date {
  assertDate('now', now);
  return new Date(Math.ceil(now.getTime() / 1000) * 1000);
}

/**
 * `daysAfter` local calendar days after `previousSentAt` (same wall time), kept if that is a weekday
 * between 09:00 and 17:00 local; otherwise the next weekday's 09:00 + seed spread.
 */
export function followUpTime(opts: {
  previousSentAt: Date;
  daysAfter: number;
  timeZone: string;
  seed: string;
}): Date {
  assertDate('previousSentAt', opts.previousSentAt);
  if (!Number.isInteger(opts.daysAfter) || opts.daysAfter < 0) {
    throw new ValidationError('daysAfter must be a non-negative integer');
  }
  const sent = zonedParts(opts.previousSentAt, opts.timeZone);
  const [y, m, d] = addLocalDays(sent.year, sent.month, sent.day, opts.daysAfter);
  const sameWallTime = fromZoned(y, m, d, sent.hour, sent.minute, opts.timeZone);
  // Keep the seconds and milliseconds too, so an in-hours follow-up is exactly the delay later.
  const withinMinute = ((opts.previousSentAt.getTime() % 60_000) + 60_000) % 60_000;
  const candidate = new Date(sameWallTime.getTime() + withinMinute);
  const local = zonedParts(candidate, opts.timeZone);
  const minuteOfDay = local.hour * 60 + local.minute;
  if (isWeekday(local.weekday) && minuteOfDay >= BEST_START_MINUTE && minuteOfDay < FOLLOW_UP_END_MINUTE) {
    return candidate;
  }
  return nextWeekdayWindow(
    [local.year, local.month, local.day],
    spreadMinutes(opts.seed),
    opts.timeZone,
    candidate.getTime(),
  );
}

/** Raised by allocateSlot when the account can never send (daily limit of zero or less). */
export class NoSendCapacityError extends ValidationError {
  constructor(dailyLimit: number) {
    super(`The sending account's daily limit is ${dailyLimit}; nothing can be scheduled.`);
  }
}

/**
 * First slot at or after `desired` whose sending-account day still has room under `dailyLimit`. A
 * slot that cannot be kept moves once, straight to the first later day of `windowZone` (the
 * recipient's; the sending account's `timeZone` when not given) whose 09:00 plus a spread falls on an
 * account day with room, repeating day by day only past days that are full. The caller books the
 * returned slot. The spread is `seed`'s (as for best time) when given, else the minute of `desired`.
 *
 * Days (capacity) are the sending account's; days in the window (which weekday it is, where 09:00
 * is) are `windowZone`'s. With `weekdaysOnly` (best-time sends and follow-ups) a slot must fall on a
 * weekday in `windowZone` and a spill skips its weekends, so a follow-up moved off a full Friday lands
 * on the recipient's Monday morning, never on a Saturday nor, when Monday has room, on a Tuesday.
 *
 * Throws NoSendCapacityError (a ValidationError) when `dailyLimit` ≤ 0 rather than returning null:
 * such an account must not be picked, and silently never sending would hide that.
 */
export function allocateSlot(opts: {
  desired: Date;
  timeZone: string;
  dailyLimit: number;
  countForDay: (day: string) => number;
  /** The limit of each account day when it varies (warm-up, engagement throttle); `dailyLimit` is then the most any day allows. */
  limitForDay?: (day: string) => number;
  seed?: string;
  weekdaysOnly?: boolean;
  windowZone?: string;
}): Date {
  assertDate('desired', opts.desired);
  if (!Number.isFinite(opts.dailyLimit) || opts.dailyLimit <= 0) {
    throw new NoSendCapacityError(opts.dailyLimit);
  }
  const windowZone = opts.windowZone ?? opts.timeZone;
  const spread =
    opts.seed !== undefined ? spreadMinutes(opts.seed) : zonedParts(opts.desired, opts.timeZone).minute;
  const hasRoom = (slot: Date) => {
    const day = localDay(slot, opts.timeZone);
    return opts.countForDay(day) < Math.min(opts.dailyLimit, opts.limitForDay?.(day) ?? opts.dailyLimit);
  };
  const there = zonedParts(opts.desired, windowZone);
  if ((!opts.weekdaysOnly || isWeekday(there.weekday)) && hasRoom(opts.desired)) return opts.desired;
  // Candidates are windowZone's days after desired's, each at its 09:00 + spread: only days that are
  // full, or weekends when weekdaysOnly, are passed over, so the slot moves once to the first that fits.
  for (let offset = 1; offset <= MAX_ALLOCATION_DAYS; offset += 1) {
    const [y, m, d] = addLocalDays(there.year, there.month, there.day, offset);
    if (opts.weekdaysOnly && !isWeekday(weekdayOf(y, m, d))) continue;
    const slot = fromZoned(y, m, d, 0, BEST_START_MINUTE + spread, windowZone);
    if (slot.getTime() >= opts.desired.getTime() && hasRoom(slot)) return slot;
  }
  throw new Error(`no send slot with capacity within ${MAX_ALLOCATION_DAYS} days`);
}
