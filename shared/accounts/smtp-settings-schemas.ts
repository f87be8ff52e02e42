/**
 * The request schemas of SMTP settings, apart from smtp-settings.ts: listing sending accounts reads their
 * settings' view and loads no zod at init (`npm run bench`).
 */
import * as z from '../core/zod.js';
import { isSmtpHostName, SMTP_TLS_MODES } from './smtp-host.js';

const host = z
  .string()
  .check(z.trim(), z.toLowerCase(), z.refine(isSmtpHostName, 'must be a host name such as smtp.example.com (not an IP address)'));
const port = z.number().check(z.int(), z.gte(1), z.lte(65_535));
// RFC 4616 (SASL PLAIN) bounds nothing, but real servers do; 256 keeps an item small and any login.
const username = z.string().check(z.minLength(1), z.maxLength(256), z.refine((s) => !/[\r\n\0]/.test(s), 'must not contain line breaks or NUL'));
const password = z.string().check(z.minLength(1), z.maxLength(256), z.refine((s) => !/[\r\n\0]/.test(s), 'must not contain line breaks or NUL'));
const tls = z.enum(SMTP_TLS_MODES);

export const SmtpSettingsInputSchema = z.strictObject({ host, port, username, password, tls: z.optional(tls) });
export type SmtpSettingsInput = z.output<typeof SmtpSettingsInputSchema>;

/** A PATCH may change any part; the password only when given (it is never read back). */
export const SmtpSettingsPatchSchema = z
  .partial(z.strictObject({ host, port, username, password, tls }))
  .check(z.refine((v) => Object.keys(v).length > 0, 'at least one field is required'));
export type SmtpSettingsPatch = z.output<typeof SmtpSettingsPatchSchema>;
