import { userRoute } from '../../shared/http/handler.js';
import { listWebhookSecrets } from '../../shared/accounts/credentials.repository.js';

export const handler = userRoute({}, async ({ accountId }) => ({ status: 200, body: { results: await listWebhookSecrets(accountId) } }));
