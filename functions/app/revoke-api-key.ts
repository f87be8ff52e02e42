import { userRoute } from '../../shared/http/handler.js';
import { revokeApiKey } from '../../shared/accounts/api-keys.repository.js';

export const handler = userRoute({}, async ({ accountId, params }) => {
  await revokeApiKey(accountId, params.key_id!);
  return { status: 204 };
});
