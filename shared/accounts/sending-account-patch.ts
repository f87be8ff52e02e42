import * as z from '../core/zod.js';
import { sanitizeEmailHtml } from '../core/html.js';
import { SMTP_ACCOUNT_TRANSPORTS } from './smtp-settings.js';
import { SmtpSettingsPatchSchema } from './smtp-settings-schemas.js';
import { timeZone } from './account-schemas.js';

/**
 * The console PATCH of a sending account. Apart from the account model because its signature goes through
 * the HTML sanitiser (`withSanitisedSignature`, after parsing: the sanitiser loads at its first use), which no
 * other handler should bundle. `smtp` and `transport` apply to `smtp` accounts only (checked against the stored
 * type by the handler).
 */
export const SENDING_ACCOUNT_PATCH_FIELDS = {
  connected: z.boolean(),
  sending_enabled: z.boolean(),
  daily_limit: z.number().check(z.int(), z.gte(0), z.lte(10_000)),
  health: z.string().check(z.trim(), z.minLength(1), z.maxLength(100)),
  timezone: timeZone,
  // Bounded as supplied; what is stored is what the sanitiser keeps (withSanitisedSignature).
  signature_html: z.string().check(z.maxLength(10_000)),
  smtp: SmtpSettingsPatchSchema,
  transport: z.enum(SMTP_ACCOUNT_TRANSPORTS),
  /** The warm-up ramp's start: an operator moves it earlier when the mailbox brings sending history. */
  warmup_started_at: z.pipe(z.iso.datetime({ offset: true }), z.transform((v: string) => new Date(v).toISOString())),
};

export const UpdateSendingAccountSchema = z
  .partial(z.strictObject(SENDING_ACCOUNT_PATCH_FIELDS))
  .check(z.refine((v) => Object.keys(v).length > 0, 'at least one field is required'));

/**
 * The web app's PATCH: what a customer manages (pause/resume, daily limit, signature), with the console's
 * own field rules. Connection state and health are the service's to set.
 */
export const AppSendingAccountPatchSchema = z
  .partial(
    z.strictObject({
      sending_enabled: SENDING_ACCOUNT_PATCH_FIELDS.sending_enabled,
      daily_limit: SENDING_ACCOUNT_PATCH_FIELDS.daily_limit,
      signature_html: SENDING_ACCOUNT_PATCH_FIELDS.signature_html,
    }),
  )
  .check(z.refine((v) => Object.keys(v).length > 0, 'at least one field is required'));

/** A parsed PATCH with its signature as the sanitiser keeps it: what is stored and answered. */
export async function withSanitisedSignature<T extends { signature_html?: string }>(patch: T): Promise<T> {
  return patch.signature_html === undefined ? patch : { ...patch, signature_html: await sanitizeEmailHtml(patch.signature_html) };
}
