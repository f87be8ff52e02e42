import { publicRoute } from '../../shared/http/handler.js';
import { listSendingAccounts, sendingAccountView } from '../../shared/accounts/sending-accounts.repository.js';

/** GET /email/accounts/: the caller's own sending accounts, read-only. */
export const handler = publicRoute({}, async ({ account }) => ({
  status: 200,
  body: { accounts: (await listSendingAccounts(account.id)).map(sendingAccountView) },
}));
