import { consoleRoute } from '../../shared/http/handler.js';
import { revokeWebhookSecret } from '../../shared/accounts/accounts.repository.js';

export const handler = consoleRoute({}, async ({ params }) => {
  await revokeWebhookSecret(params.id!, params.secret_id!);
  return { status: 204 };
});
