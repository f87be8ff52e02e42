import { consoleRoute } from '../../shared/http/handler.js';
import { ConnectMailboxSchema, startMailboxConnection } from '../../shared/mailboxes/connect-mailbox.js';

/**
 * An operator starts a mailbox connection. The answer sets the same browser-binding cookie as the web app's
 * start: the consent link completes only in the browser that received this answer.
 */
export const handler = consoleRoute({ body: ConnectMailboxSchema }, async ({ params, body }) => {
  const { binding, ...started } = await startMailboxConnection(params.id!, body);
  return { status: 201, body: started, cookies: [binding.cookie] };
});
