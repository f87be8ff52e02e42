import { publicRoute } from '../../shared/http/handler.js';
import { listSendingAccounts, sendingAccountView } from '../../shared/accounts/sending-accounts.repository.js';
import { allWithCapacity } from '../../shared/outreach/sending-capacity.js';

/**
 * GET /email/accounts/: the caller's own sending accounts, read-only; queried alongside the key check.
 * `daily_limit` and `health` are the effective ones (warm-up ramp, engagement throttle; docs/decisions.md#decisions-the-contract-leaves-open).
 */
export const handler = publicRoute({ readOnly: true }, async ({ accountId }) => ({
  status: 200,
  body: { accounts: (await allWithCapacity(await listSendingAccounts(accountId))).map(sendingAccountView) },
}));
