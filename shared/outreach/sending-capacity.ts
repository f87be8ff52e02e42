import type { SendingAccount } from '../accounts/model.js';
import { serviceClock, type Clock } from '../core/clock.js';
import { localDayOf } from '../accounts/sending-accounts.repository.js';
import { readDays } from './deliverability.repository.js';
import { addDays, assess, ENGAGEMENT, WARMUP_LOOKBACK_DAYS, utcDay, type Assessment } from './warmup.js';

/**
 * A sending account with its effective limit (docs/decisions.md#decisions-the-contract-leaves-open, shared/outreach/warmup.ts): `daily_limit` and
 * `health` become the effective ones, `configured_daily_limit`, `warmup` and `engagement` say why, and
 * `limitOn(day)` projects the limit of a later day from the same record (the window moving on, the ramp
 * growing a step a healthy day) for the send-slot booking.
 */
export interface Capacity {
  account: SendingAccount;
  limitOn: (day: string) => number;
}

export async function capacityOf(raw: SendingAccount, clock: Clock = serviceClock): Promise<Capacity> {
  if (raw.configured_daily_limit !== undefined) throw new Error('capacityOf: the account was already assessed');
  const now = clock.now();
  const today = utcDay(now);
  const startedAt = raw.warmup_started_at ?? now.toISOString();
  // The window before the start matters too (history an operator dated back); never more than the lookback.
  const from = [addDays(startedAt.slice(0, 10), -ENGAGEMENT.windowDays), addDays(today, -(WARMUP_LOOKBACK_DAYS + ENGAGEMENT.windowDays))].sort().at(-1)!;
  const counts = await readDays(raw.id, from, today);
  const cache = new Map<string, Assessment>();
  const on = (day: string) => {
    let a = cache.get(day);
    if (!a) cache.set(day, (a = assess({ configured: raw.daily_limit, warmupStartedAt: startedAt, storedHealth: raw.health, day, counts })));
    return a;
  };
  // The limit is of the account's local day (as `sent_today` and the send slots); the record's days are UTC.
  const a = on(localDayOf(now, raw.timezone) < today ? today : localDayOf(now, raw.timezone));
  const { state: _state, ...engagement } = a.engagement;
  return {
    account: { ...raw, daily_limit: a.daily_limit, health: a.health, configured_daily_limit: a.configured_daily_limit, warmup: a.warmup, engagement },
    limitOn: (day) => on(day < today ? today : day).daily_limit,
  };
}

export async function withCapacity(raw: SendingAccount, clock: Clock = serviceClock): Promise<SendingAccount> {
  return (await capacityOf(raw, clock)).account;
}

export async function allWithCapacity(accounts: SendingAccount[], clock: Clock = serviceClock): Promise<SendingAccount[]> {
  return Promise.all(accounts.map((a) => withCapacity(a, clock)));
}
