import { userRoute } from '../../shared/http/handler.js';
import { createApiKey } from '../../shared/accounts/api-keys.repository.js';
import { apiKeyPrefix } from '../../shared/core/api-key-values.js';

/** The key is in this answer once; only its hash and prefix are kept. */
export const handler = userRoute({}, async ({ accountId }) => {
  const { id, key } = await createApiKey(accountId);
  return { status: 201, body: { id, key, prefix: apiKeyPrefix(key) } };
});
