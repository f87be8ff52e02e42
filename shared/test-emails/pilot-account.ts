import { PermissionDeniedError } from '../core/errors.js';
import { getAccount } from '../accounts/accounts.repository.js';
import type { Account } from '../accounts/model.js';

/** The pilot gate (docs/decisions.md#test-emails-pilot: other accounts get 403), checked before anything about the request. */
export async function requirePilotAccount(accountId: string): Promise<Account> {
  const account = await getAccount(accountId);
  if (!account?.pilot) throw new PermissionDeniedError('Test emails are available only to pilot accounts.');
  return account;
}
