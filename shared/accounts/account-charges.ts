import type { ChargeRecord } from './model.js';
import { listCharges, requireAccount } from './accounts.repository.js';

/** An account's charge audit records, newest first (console GET accounts/{id}/charges/); an unknown account is a 404, not an empty list. */
export async function accountCharges(accountId: string): Promise<{ results: ChargeRecord[] }> {
  await requireAccount(accountId);
  return { results: await listCharges(accountId) };
}
