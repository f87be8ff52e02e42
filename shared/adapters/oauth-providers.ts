import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import * as z from '../core/zod.js';
import { optionalEnv } from '../core/env.js';
import { dropOnReset, lazyClient } from './aws-client.js';

/**
 * Where each mailbox provider lives and the service's OAuth client there. In AWS the client ids and secrets
 * come from one Secrets Manager secret (`MAILBOX_PROVIDERS_SECRET_ARN`, JSON `{google: {client_id,
 * client_secret}, microsoft: {client_id, client_secret, tenant?}}`), read once per cold start; the
 * endpoints are the providers' own. On the twin `MAILBOX_PROVIDERS` holds the same JSON with every
 * endpoint pointing at the loopback emulators.
 */
export type MailboxProviderKind = 'google' | 'microsoft';

const ProviderSettingsSchema = z.object({
  client_id: z.string().check(z.minLength(1)),
  client_secret: z.string().check(z.minLength(1)),
  /** Microsoft only: `common`, `organizations` or a tenant id (default `common`). */
  tenant: z.optional(z.string()),
  authorization_endpoint: z.optional(z.url()),
  token_endpoint: z.optional(z.url()),
  /** Gmail `rootUrl` / Graph `baseUrl`. */
  api_base: z.optional(z.url()),
});

const SettingsSchema = z.object({ google: z.optional(ProviderSettingsSchema), microsoft: z.optional(ProviderSettingsSchema) });

export interface ProviderSettings {
  kind: MailboxProviderKind;
  clientId: string;
  clientSecret: string;
  issuer: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  apiBase: string;
  scopes: string[];
}

/**
 * Scopes: Gmail `gmail.send` to send and `gmail.readonly` to read history and whole messages (a DSN's
 * body names the address that bounced; `gmail.metadata` gives headers only). Graph `Mail.ReadWrite`
 * (drafts, from MIME and by createReply, need it; it reads the inbox delta and MIME too), `Mail.Send`
 * (sending a draft) and `offline_access` (a refresh token).
 */
export const SCOPES: Record<MailboxProviderKind, string[]> = {
  google: ['https://www.googleapis.com/auth/gmail.send', 'https://www.googleapis.com/auth/gmail.readonly'],
  microsoft: ['offline_access', 'https://graph.microsoft.com/Mail.Send', 'https://graph.microsoft.com/Mail.ReadWrite'],
};

const secretsManager = /* @__PURE__ */ lazyClient(() => new SecretsManagerClient({}));
let loaded: Promise<z.output<typeof SettingsSchema>> | undefined;
const MISSING_SETTINGS = 'Missing required environment variable MAILBOX_PROVIDERS_SECRET_ARN (or MAILBOX_PROVIDERS locally)';

async function load(): Promise<z.output<typeof SettingsSchema>> {
  const local = optionalEnv('MAILBOX_PROVIDERS');
  if (local) return SettingsSchema.parse(JSON.parse(local));
  const arn = optionalEnv('MAILBOX_PROVIDERS_SECRET_ARN');
  if (!arn) throw new Error(MISSING_SETTINGS);
  const out = await secretsManager().send(new GetSecretValueCommand({ SecretId: arn }));
  return SettingsSchema.parse(JSON.parse(out.SecretString ?? '{}'));
}

export async function providerSettings(kind: MailboxProviderKind): Promise<ProviderSettings | null> {
  // Checked on every call (as the secret box does): on the twin no function borrows what another loaded.
  if (!optionalEnv('MAILBOX_PROVIDERS') && !optionalEnv('MAILBOX_PROVIDERS_SECRET_ARN')) throw new Error(MISSING_SETTINGS);
  loaded ??= load().catch((e: unknown) => {
    loaded = undefined;
    throw e;
  });
  const s = (await loaded)[kind];
  if (!s) return null;
  if (kind === 'google') {
    return {
      kind,
      clientId: s.client_id,
      clientSecret: s.client_secret,
      issuer: 'https://accounts.google.com',
      authorizationEndpoint: s.authorization_endpoint ?? 'https://accounts.google.com/o/oauth2/v2/auth',
      tokenEndpoint: s.token_endpoint ?? 'https://oauth2.googleapis.com/token',
      apiBase: s.api_base ?? 'https://gmail.googleapis.com/',
      scopes: SCOPES.google,
    };
  }
  const tenant = s.tenant ?? 'common';
  return {
    kind,
    clientId: s.client_id,
    clientSecret: s.client_secret,
    issuer: `https://login.microsoftonline.com/${tenant}/v2.0`,
    authorizationEndpoint: s.authorization_endpoint ?? `https://login.microsoftonline.com/${tenant}/oauth2/v2.0/authorize`,
    tokenEndpoint: s.token_endpoint ?? `https://login.microsoftonline.com/${tenant}/oauth2/v2.0/token`,
    apiBase: s.api_base ?? 'https://graph.microsoft.com',
    scopes: SCOPES.microsoft,
  };
}

export function resetProviderSettings(): void {
  loaded = undefined;
}
dropOnReset(resetProviderSettings);
