import { userRoute } from '../../shared/http/handler.js';
import { AppConnectMailboxSchema, startMailboxConnection } from '../../shared/mailboxes/connect-mailbox.js';

/** The web app starts a mailbox connection for the signed-in user's account; the browser follows the URL. */
export const handler = userRoute({ body: AppConnectMailboxSchema }, async ({ accountId, body }) => {
  const started = await startMailboxConnection(accountId, { type: body.type });
  return { status: 201, body: { authorization_url: started.authorization_url }, cookies: [started.binding.cookie] };
});
