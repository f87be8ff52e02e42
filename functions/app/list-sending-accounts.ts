import { userRoute } from '../../shared/http/handler.js';
import { consoleSendingAccountView, listSendingAccounts } from '../../shared/accounts/sending-accounts.repository.js';
import { allWithCapacity } from '../../shared/outreach/sending-capacity.js';

export const handler = userRoute({}, async ({ accountId }) => ({
  status: 200,
  body: { results: (await allWithCapacity(await listSendingAccounts(accountId))).map((a) => ({ ...consoleSendingAccountView(a), signature_html: a.signature_html })) },
}));
