import { consoleRoute } from '../../shared/http/handler.js';
import { CreateSendingAccountSchema } from '../../shared/accounts/account-schemas.js';
import { createSendingAccount, sendingAccountView } from '../../shared/accounts/sending-accounts.repository.js';

export const handler = consoleRoute({ body: CreateSendingAccountSchema }, async ({ params, body }) => {
  const account = await createSendingAccount(params.id!, body);
  return { status: 201, body: { ...sendingAccountView(account), timezone: account.timezone } };
});
