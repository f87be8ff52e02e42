import type { Account } from './model.js';
import { requireAccount } from './accounts.repository.js';
import { addCredits } from './ledger.repository.js';

/** Top up an account (console POST accounts/{id}/credits/): credit the balance, answer the account (404 when unknown). */
export async function topUpCredits(accountId: string, amount: number): Promise<Account> {
  await addCredits(accountId, amount);
  return requireAccount(accountId);
}
