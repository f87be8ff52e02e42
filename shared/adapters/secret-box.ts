import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { optionalEnv } from '../core/env.js';
import { lazyClient } from './aws-client.js';

/**
 * Webhook signing secrets must be readable to sign deliveries, so they are encrypted (AES-256-GCM), not
 * hashed. The 32-byte key comes from Secrets Manager in AWS (`SECRET_BOX_SECRET_ARN`, read once per cold
 * start) or from `SECRET_BOX_KEY` (base64) on the one-machine twin.
 *
 * Every value is sealed for one record: `context` is the record's identity (e.g.
 * `accounts/<account_id>/webhook-secrets/<id>`), bound to the ciphertext as GCM associated data, so a sealed
 * value copied onto another record (another account's secret, another mailbox's tokens) does not open there.
 * The format is `v2.<kid>.<iv>.<tag>.<ciphertext>`: `kid` names the key (the first 8 bytes of SHA-256 over
 * a label and the key, hex), so a value sealed under another key is refused by name and a key rotation can
 * tell old values from new. Values of the first format, `v1.<iv>.<tag>.<ciphertext>` (no key id, no
 * associated data), still open, whatever the context, and are sealed anew whenever their record is written.
 */
export interface SecretBox {
  /** The id of the key this box seals with (recorded in every v2 value). */
  readonly kid: string;
  seal(plain: string, context: string): Promise<string>;
  open(sealed: string, context: string): Promise<string>;
}

/** A key's id: not secret, and reveals nothing of the key. */
export function secretBoxKeyId(key: Buffer): string {
  return createHash('sha256').update('secret-box key id\n').update(key).digest('hex').slice(0, 16);
}

export function aesSecretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new Error('secret box key must be 32 bytes');
  const kid = secretBoxKeyId(key);
  const decrypt = (iv: string, tag: string, body: string, aad?: Buffer) => {
    const d = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
    if (aad) d.setAAD(aad);
    d.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([d.update(Buffer.from(body, 'base64')), d.final()]).toString('utf8');
  };
  return {
    kid,
    async seal(plain, context) {
      if (!context) throw new Error('a sealed secret needs its record\'s identity as context');
      const iv = randomBytes(12);
      const c = createCipheriv('aes-256-gcm', key, iv);
      c.setAAD(Buffer.from(context, 'utf8'));
      const body = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
      return `v2.${kid}.${iv.toString('base64')}.${c.getAuthTag().toString('base64')}.${body.toString('base64')}`;
    },
    async open(sealed, context) {
      const parts = sealed.split('.');
      if (parts[0] === 'v1' && parts.length === 4 && parts[1] && parts[2]) return decrypt(parts[1], parts[2], parts[3]!);
      if (parts[0] !== 'v2' || parts.length !== 5 || !parts[2] || !parts[3]) throw new Error('unrecognised sealed secret');
      if (parts[1] !== kid) throw new Error(`sealed secret of another key (${parts[1]})`);
      return decrypt(parts[2], parts[3], parts[4]!, Buffer.from(context, 'utf8'));
    },
  };
}

/** The record identities values are sealed for (GCM associated data); each caller names its record with one. */
export const sealContext = {
  webhookSecret: (accountId: string, secretId: string) => `accounts/${accountId}/webhook-secrets/${secretId}`,
  smtpPassword: (eaId: string) => `sending-accounts/${eaId}/smtp-password`,
  mailboxTokens: (eaId: string) => `mailboxes/${eaId}/tokens`,
  oauthVerifier: (state: string) => `oauth-states/${state}/verifier`,
} as const;

let box: Promise<SecretBox> | undefined;
const MISSING_KEY = 'Missing required environment variable SECRET_BOX_SECRET_ARN (or SECRET_BOX_KEY locally)';
const secretsManager = /* @__PURE__ */ lazyClient(() => new SecretsManagerClient({}));

async function loadKey(): Promise<Buffer> {
  const local = optionalEnv('SECRET_BOX_KEY');
  if (local) return Buffer.from(local, 'base64');
  const arn = optionalEnv('SECRET_BOX_SECRET_ARN');
  if (!arn) throw new Error(MISSING_KEY);
  const out = await secretsManager().send(new GetSecretValueCommand({ SecretId: arn }));
  // The generated secret string is hashed down to exactly 32 bytes of key material.
  return createHash('sha256').update(out.SecretString ?? '').digest();
}

export function secretBox(): Promise<SecretBox> {
  // Checked on every call, not only at the first load: the twin runs every function in one process, and a
  // function without the grant must not borrow the key another function loaded.
  if (!optionalEnv('SECRET_BOX_KEY') && !optionalEnv('SECRET_BOX_SECRET_ARN')) return Promise.reject(new Error(MISSING_KEY));
  box ??= loadKey().then(aesSecretBox);
  return box;
}

export function resetSecretBox(): void {
  box = undefined;
}
