import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { optionalEnv } from '../core/env.js';
import { lazyClient } from './aws-client.js';

/**
 * Webhook signing secrets must be readable to sign deliveries, so they are encrypted (AES-256-GCM), not
 * hashed. The 32-byte key comes from Secrets Manager in AWS (`SECRET_BOX_SECRET_ARN`, read once per cold
 * start) or from `SECRET_BOX_KEY` (base64) on the one-machine twin.
 */
export interface SecretBox {
  seal(plain: string): Promise<string>;
  open(sealed: string): Promise<string>;
}

export function aesSecretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new Error('secret box key must be 32 bytes');
  return {
    async seal(plain) {
      const iv = randomBytes(12);
      const c = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
      return `v1.${iv.toString('base64')}.${c.getAuthTag().toString('base64')}.${body.toString('base64')}`;
    },
    async open(sealed) {
      const [v, iv, tag, body] = sealed.split('.');
      if (v !== 'v1' || !iv || !tag || body === undefined) throw new Error('unrecognised sealed secret');
      const d = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
      d.setAuthTag(Buffer.from(tag, 'base64'));
      return Buffer.concat([d.update(Buffer.from(body, 'base64')), d.final()]).toString('utf8');
    },
  };
}

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
  const { createHash } = await import('node:crypto');
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
