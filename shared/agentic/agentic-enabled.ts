import { getAccount } from '../accounts/accounts.repository.js';
import { NotFoundError } from '../core/errors.js';

/**
 * Agentic search is enabled per account (the console flag `agentic_search`); for any other account its
 * routes do not exist (404). Apart from acceptance so polling and cancel do not bundle the queue client.
 */
export async function requireAgenticEnabled(accountId: string): Promise<void> {
  const account = await getAccount(accountId);
  if (!account?.agentic_search) throw new NotFoundError('Agentic search is not enabled for this account.');
}
