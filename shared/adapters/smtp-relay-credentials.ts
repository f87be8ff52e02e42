import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import * as z from '../core/zod.js';
import { optionalEnv } from '../core/env.js';
import { dropOnReset, lazyClient } from './aws-client.js';

/**
 * The deployment's SMTP relay credentials. In AWS they come from a Secrets Manager secret
 * (`SMTP_RELAY_SECRET_ARN`, JSON `{"username": "…", "password": "…"}`), read once per cold start; the stack
 * creates it with a placeholder value for the operator to replace (docs/deploying.md "Deploying to AWS"). A local
 * override is `SMTP_USER` / `SMTP_PASS`; on the twin neither is set and the stack's SMTP sink takes mail
 * without authentication. No username (the placeholder, or no secret at all) means no authentication.
 */
export interface RelayCredentials {
  user: string;
  pass: string;
}

const SecretSchema = z.object({
  username: z.optional(z.string()),
  password: z.optional(z.string()),
});

/** The secret's JSON → credentials; `undefined` when it names no username. A username without a password is refused. */
export function parseRelayCredentials(secretString: string): RelayCredentials | undefined {
  let json: unknown;
  try {
    json = JSON.parse(secretString);
  } catch {
    throw new Error('SMTP relay secret is not JSON: expected {"username","password"}');
  }
  const parsed = SecretSchema.safeParse(json);
  if (!parsed.success) throw new Error('SMTP relay secret: username and password must be strings');
  const { username, password } = parsed.data;
  if (!username) return undefined;
  if (!password) throw new Error('SMTP relay secret names a username without a password');
  return { user: username, pass: password };
}

const secretsManager = /* @__PURE__ */ lazyClient(() => new SecretsManagerClient({}));
let loaded: Promise<RelayCredentials | undefined> | undefined;

async function load(): Promise<RelayCredentials | undefined> {
  const user = optionalEnv('SMTP_USER');
  if (user) return { user, pass: optionalEnv('SMTP_PASS') ?? '' };
  const arn = optionalEnv('SMTP_RELAY_SECRET_ARN');
  if (!arn) return undefined;
  const out = await secretsManager().send(new GetSecretValueCommand({ SecretId: arn }));
  return parseRelayCredentials(out.SecretString ?? '{}');
}

/** The relay's credentials, loaded at the first relay send of the process; a failed read is retried at the next. */
export function relayCredentials(): Promise<RelayCredentials | undefined> {
  loaded ??= load().catch((e: unknown) => {
    loaded = undefined;
    throw e;
  });
  return loaded;
}

export function resetRelayCredentials(): void {
  loaded = undefined;
}
dropOnReset(resetRelayCredentials);
