import { consoleRoute } from '../../shared/http/handler.js';
import { createApiKey } from '../../shared/accounts/api-keys.repository.js';

export const handler = consoleRoute({}, async ({ params }) => {
  const { id, key } = await createApiKey(params.id!);
  return { status: 201, body: { id, key } };
});
