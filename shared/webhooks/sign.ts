/**
 * Standard Webhooks signing (docs/decisions.md#webhook-signatures): `webhook-id`, `webhook-timestamp`
 * and `webhook-signature` with one `v1,<base64 HMAC-SHA256 of id.timestamp.body>` per active secret,
 * space-separated, so a receiver keeps verifying while it rotates secrets.
 */
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

export const WEBHOOK_USER_AGENT = 'people-outreach-service-webhooks/1.0';

export interface SignWebhookOptions {
  /** Active secrets, `whsec_` + base64. */
  secrets: string[];
  /** Stays the same across retries of one delivery. */
  msgId: string;
  timestamp: Date;
  /** The exact bytes that will be sent. */
  body: string;
}

/**
 * Headers for one delivery attempt. Throws when there is no secret: an unsigned delivery could not
 * be verified by the receiver, so it must not go out.
 */
export function signWebhook(opts: SignWebhookOptions): Record<string, string> {
  if (opts.secrets.length === 0) throw new Error('signWebhook needs at least one active secret');
  const signatures = [...new Set(opts.secrets)].map((secret) =>
    new Webhook(secret).sign(opts.msgId, opts.timestamp, opts.body),
  );
  return {
    'webhook-id': opts.msgId,
    'webhook-timestamp': String(Math.floor(opts.timestamp.getTime() / 1000)),
    'webhook-signature': signatures.join(' '),
    'content-type': 'application/json',
    'user-agent': WEBHOOK_USER_AGENT,
  };
}

/** A new signing secret in the format Standard Webhooks libraries accept: `whsec_` + base64(24 bytes). */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/**
 * Verifies a delivery as a receiver would; returns the parsed JSON body. Throws the library's
 * `WebhookVerificationError` on a missing header, a stale timestamp (±5 min) or no matching signature.
 */
export function verifyWebhook(
  secret: string,
  headers: Record<string, string | string[] | undefined>,
  body: string | Buffer,
): unknown {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value === 'string') flat[name.toLowerCase()] = value;
    else if (Array.isArray(value)) flat[name.toLowerCase()] = value.join(' ');
  }
  return new Webhook(secret).verify(body, flat);
}

export { WebhookVerificationError } from 'standardwebhooks';
