import { consoleRoute } from '../../shared/http/handler.js';
import { issueWebhookSecret } from '../../shared/accounts/issue-webhook-secret.js';

export const handler = consoleRoute({}, async ({ params }) => ({ status: 201, body: await issueWebhookSecret(params.id!) }));
