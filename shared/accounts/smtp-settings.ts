import type { SecretBox } from '../adapters/secret-box.js';
import type { SmtpSettingsInput, SmtpSettingsPatch } from './smtp-settings-schemas.js';
import { type SmtpTlsMode } from './smtp-host.js';

export { SMTP_TLS_MODES, isSmtpHostName, type SmtpTlsMode } from './smtp-host.js';

/**
 * An `smtp` sending account's own server: host, port, TLS mode and login. The password is sealed with the
 * secret box before it is stored and is never part of any response or log line; what a response shows is
 * `password_set`. Every change of the settings bumps `version`, which keys the mailer's cached transport, so
 * a changed password or host is used from the next send on.
 * The host rule and `tls` modes are in smtp-host.ts.
 */

/** How an `smtp` account's mail leaves: its own SMTP server, or SES v2 when its domain is a verified SES identity. */
export const SMTP_ACCOUNT_TRANSPORTS = ['smtp', 'ses'] as const;
export type SmtpAccountTransport = (typeof SMTP_ACCOUNT_TRANSPORTS)[number];

export interface StoredSmtpSettings {
  host: string;
  port: number;
  username: string;
  tls: SmtpTlsMode;
  password_sealed: string;
  version: number;
}

/** What a console response shows of the settings: everything but the password. */
export interface SmtpSettingsView {
  host: string;
  port: number;
  username: string;
  tls: SmtpTlsMode;
  password_set: boolean;
}

/** 465 is SMTPS; every other port is submission with STARTTLS unless told otherwise. */
export const defaultTlsMode = (p: number): SmtpTlsMode => (p === 465 ? 'implicit' : 'starttls');

/** `context` is the sending account's record identity (`sealContext.smtpPassword(ea_id)`), which the password is sealed for. */
export async function sealSmtpSettings(input: SmtpSettingsInput, box: SecretBox, context: string, version = 1): Promise<StoredSmtpSettings> {
  return {
    host: input.host,
    port: input.port,
    username: input.username,
    tls: input.tls ?? defaultTlsMode(input.port),
    password_sealed: await box.seal(input.password, context),
    version,
  };
}

/**
 * The settings after a PATCH. Without stored settings, the patch must name host, port, username and password;
 * with them, it changes only what it names and the version moves on.
 */
export async function patchSmtpSettings(current: StoredSmtpSettings | undefined, patch: SmtpSettingsPatch, box: SecretBox, context: string): Promise<StoredSmtpSettings | { missing: string[] }> {
  if (!current) {
    const missing = (['host', 'port', 'username', 'password'] as const).filter((k) => patch[k] === undefined);
    if (missing.length) return { missing };
    return sealSmtpSettings({ host: patch.host!, port: patch.port!, username: patch.username!, password: patch.password!, tls: patch.tls }, box, context);
  }
  const port = patch.port ?? current.port;
  return {
    host: patch.host ?? current.host,
    port,
    username: patch.username ?? current.username,
    tls: patch.tls ?? (patch.port !== undefined ? defaultTlsMode(port) : current.tls),
    password_sealed: patch.password !== undefined ? await box.seal(patch.password, context) : current.password_sealed,
    version: current.version + 1,
  };
}

export function smtpSettingsView(s: StoredSmtpSettings | undefined): SmtpSettingsView | null {
  return s ? { host: s.host, port: s.port, username: s.username, tls: s.tls, password_set: s.password_sealed.length > 0 } : null;
}
