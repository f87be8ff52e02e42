import { randomBytes } from 'node:crypto';
import { consoleRoute } from '../../shared/http/handler.js';
import { createWebhookSecretRecord } from '../../shared/accounts/accounts.repository.js';
import { secretBox } from '../../shared/adapters/secret-box.js';

export const handler = consoleRoute({}, async ({ params }) => {
  // Standard Webhooks secrets: `whsec_` + base64 key material; stored sealed, shown once.
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  const sealed = await (await secretBox()).seal(secret);
  const { id } = await createWebhookSecretRecord(params.id!, sealed);
  return { status: 201, body: { id, secret } };
});
