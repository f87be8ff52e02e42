import { consoleRoute } from '../../shared/http/handler.js';
import { ConnectMailboxSchema, startMailboxConnection } from '../../shared/mailboxes/connect-mailbox.js';

export const handler = consoleRoute({ body: ConnectMailboxSchema }, async ({ params, body }) => ({
  status: 201,
  body: await startMailboxConnection(params.id!, body),
}));
