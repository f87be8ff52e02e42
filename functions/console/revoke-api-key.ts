import { consoleRoute } from '../../shared/http/handler.js';
import { revokeApiKey } from '../../shared/accounts/api-keys.repository.js';

export const handler = consoleRoute({}, async ({ params }) => {
  await revokeApiKey(params.id!, params.key_id!);
  return { status: 204 };
});
