import { userRoute } from '../../shared/http/handler.js';
import { revokeWebhookSecret } from '../../shared/accounts/accounts.repository.js';

export const handler = userRoute({}, async ({ accountId, params }) => {
  await revokeWebhookSecret(accountId, params.secret_id!);
  return { status: 204 };
});
