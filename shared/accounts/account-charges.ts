import { requireAccount } from './accounts.repository.js';
import { queryCharges, type ChargePage, type ChargeQuery } from './charges.repository.js';

/**
 * An account's charge audit records, filtered and paged newest first (console GET accounts/{id}/charges/), by
 * the same query as the web app's list; an unknown account is a 404, not an empty list.
 */
export async function accountCharges(accountId: string, query: ChargeQuery): Promise<ChargePage> {
  await requireAccount(accountId);
  return queryCharges(accountId, query);
}
