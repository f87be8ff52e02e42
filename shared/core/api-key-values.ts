import { createHash, randomBytes } from 'node:crypto';

/**
 * The two values an API key has. The secret is the customer's: shown once, stored only as its SHA-256 hash.
 * The usage identifier is ours: random, independent of the secret, stored on the key record and registered
 * as the API Gateway API key value, so usage plans can throttle the key without AWS ever holding the secret.
 */
export type UsageIdentifier = string & { readonly __usageIdentifier: unique symbol };

export function hashApiKey(raw: string): string {
  // API keys carry 256 bits of randomness, so a plain SHA-256 cannot be brute-forced; a slow KDF would
  // only add latency to every request.
  return createHash('sha256').update(raw, 'utf8').digest('hex');
}

export function generateApiKey(): string {
  return `pk_${randomBytes(32).toString('base64url')}`;
}

/**
 * What a key list shows so a customer can tell keys apart: the first 7 random characters (42 of the key's
 * 256 bits), never enough to use or guess it.
 */
export function apiKeyPrefix(raw: string): string {
  return raw.slice(0, 'pk_'.length + 7);
}

/** 160 random bits in hex: API Gateway takes 20–128 alphanumeric characters as a key value. */
export function newUsageIdentifier(): UsageIdentifier {
  return `uid${randomBytes(20).toString('hex')}` as UsageIdentifier;
}

export function asUsageIdentifier(stored: string): UsageIdentifier {
  return stored as UsageIdentifier;
}
