import { consoleRoute } from '../../shared/http/handler.js';
import { UpdateSendingAccountSchema } from '../../shared/accounts/sending-account-patch.js';
import { sendingAccountView } from '../../shared/accounts/sending-accounts.repository.js';
import { changeSendingAccount } from '../../shared/outreach/awaiting-capacity.js';

export const handler = consoleRoute({ body: UpdateSendingAccountSchema }, async ({ params, body }) => {
  const account = await changeSendingAccount(params.ea_id!, body);
  return { status: 200, body: { ...sendingAccountView(account), timezone: account.timezone, signature_html: account.signature_html } };
});
