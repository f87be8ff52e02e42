import { publicRoute } from '../../shared/http/handler.js';
import { listSendingAccounts, sendingAccountView } from '../../shared/accounts/sending-accounts.repository.js';

/** GET /email/accounts/: the caller's own sending accounts, read-only; queried alongside the key check. */
export const handler = publicRoute({ readOnly: true }, async ({ accountId }) => ({
  status: 200,
  body: { accounts: (await listSendingAccounts(accountId)).map(sendingAccountView) },
}));
