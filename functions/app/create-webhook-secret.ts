import { userRoute } from '../../shared/http/handler.js';
import { issueWebhookSecret } from '../../shared/accounts/issue-webhook-secret.js';

/**
 * Rotation with overlap is create-then-revoke: while both are active every delivery carries one signature
 * per active secret (docs/decisions.md#decisions-the-contract-leaves-open), so receivers switch over before the old one is revoked.
 */
export const handler = userRoute({}, async ({ accountId }) => ({ status: 201, body: await issueWebhookSecret(accountId) }));
