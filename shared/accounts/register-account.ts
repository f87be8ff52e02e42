import * as z from '../core/zod.js';
import type { Account } from './model.js';
import { createAccount } from './accounts.repository.js';

/** How many accounts may hold the pilot flag: read once per process, a bad value fails at start. */
const pilotAccountLimit = z._default(z.coerce.number().check(z.int(), z.gte(0)), 3).parse(process.env.PILOT_ACCOUNT_LIMIT || undefined);

/**
 * Register an account (console POST accounts/).
 *
 * Input: the validated account fields. Output: the account.
 * 1. With the pilot flag, only while fewer than PILOT_ACCOUNT_LIMIT accounts hold it (409 beyond).
 */
export function registerAccount(input: Parameters<typeof createAccount>[0]): Promise<Account> {
  return createAccount(input, { pilotLimit: pilotAccountLimit });
}
