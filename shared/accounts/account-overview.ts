import { serviceClock, type Clock } from '../core/clock.js';
import { requireAccount } from './accounts.repository.js';
import { creditsPerDay, queryCharges } from './charges.repository.js';
import type { ChargeRecord } from './model.js';

export const OVERVIEW_DAYS = 30;
const RECENT_CHARGES = 10;

/**
 * The web app's overview of the signed-in user's account.
 *
 * Input: the account id (from the user's token). Output: the account's name, balance and auto-recharge
 * setting, its latest charges and the credits charged per day over the last OVERVIEW_DAYS days.
 *
 * 1. Read the account (404 when it no longer exists).
 * 2. Read the newest charges and the per-day totals alongside.
 */
export async function accountOverview(accountId: string, clock: Clock = serviceClock): Promise<{
  id: string;
  name: string;
  balance: number;
  auto_recharge: boolean;
  recent_charges: ChargeRecord[];
  credits_per_day: { day: string; credits: number }[];
}> {
  const [account, recent, perDay] = await Promise.all([requireAccount(accountId), queryCharges(accountId, { limit: RECENT_CHARGES }), creditsPerDay(accountId, OVERVIEW_DAYS, clock.now())]);
  return { id: account.id, name: account.name, balance: account.balance, auto_recharge: account.auto_recharge, recent_charges: recent.results, credits_per_day: perDay };
}
