import { randomBytes } from 'node:crypto';
import { sealContext, secretBox } from '../adapters/secret-box.js';
import { createWebhookSecretRecord } from './accounts.repository.js';

/**
 * Issue a webhook signing secret (console POST accounts/{id}/webhook-secrets/).
 *
 * Input: the account id. Output: `{id, secret}`; the only time the secret is shown.
 *
 * 1. A Standard Webhooks secret: `whsec_` + base64 of 24 random bytes.
 * 2. Sealed by the secret box for its record (`sealContext.webhookSecret`); only the sealed form is stored
 *    (404 for an unknown account).
 */
export async function issueWebhookSecret(accountId: string): Promise<{ id: string; secret: string }> {
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  const box = await secretBox();
  const { id } = await createWebhookSecretRecord(accountId, (secretId) => box.seal(secret, sealContext.webhookSecret(accountId, secretId)));
  return { id, secret };
}
