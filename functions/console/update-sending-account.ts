import { consoleRoute } from '../../shared/http/handler.js';
import { UpdateSendingAccountSchema } from '../../shared/accounts/model.js';
import { sendingAccountView, updateSendingAccount } from '../../shared/accounts/sending-accounts.repository.js';

export const handler = consoleRoute({ body: UpdateSendingAccountSchema }, async ({ params, body }) => {
  const account = await updateSendingAccount(params.ea_id!, body);
  return { status: 200, body: { ...sendingAccountView(account), timezone: account.timezone } };
});
