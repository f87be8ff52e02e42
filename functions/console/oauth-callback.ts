import { consoleRoute, parseQueryParams } from '../../shared/http/handler.js';
import { sendingAccountView } from '../../shared/accounts/sending-accounts.repository.js';
import { completeMailboxConnection, OAuthCallbackSchema } from '../../shared/mailboxes/connect-mailbox.js';

export const handler = consoleRoute({}, async ({ query }) => {
  const { account, returnUrl } = await completeMailboxConnection(parseQueryParams(OAuthCallbackSchema, query));
  if (returnUrl) {
    const to = new URL(returnUrl);
    to.searchParams.set('sending_account', account.id);
    return { status: 302, headers: { location: to.toString() } };
  }
  return { status: 200, body: { ...sendingAccountView(account), timezone: account.timezone } };
});
