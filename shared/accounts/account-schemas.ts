import * as z from 'zod';
import { SENDING_ACCOUNT_TYPES } from './model.js';
import { SMTP_ACCOUNT_TRANSPORTS } from './smtp-settings.js';
import { SmtpSettingsInputSchema } from './smtp-settings-schemas.js';

/**
 * The console's request schemas for accounts and sending accounts. Apart from the account model because
 * building them runs zod at import: the model is read by every handler (charges, accounts), the schemas only
 * by the console routes that validate with them.
 */
export const CreateAccountSchema = z.strictObject({
  name: z.string().trim().min(1).max(200),
  credits: z.number().int().min(0).max(100_000_000).default(1250),
  public_api: z.boolean().default(true),
  agentic_search: z.boolean().default(false),
  pilot: z.boolean().default(false),
  auto_recharge: z.boolean().default(false),
});

/**
 * `followup_days`: exactly three whole days, 1 to 60 each. Three because a sequence has at most three
 * follow-ups (steps 1 to 4 including the intro); each is counted from the previous step's actual send,
 * so any order is a valid cadence, and 60 days keeps a four-step sequence inside six months.
 */
export const UpdateAccountSchema = z
  .strictObject({
    name: z.string().trim().min(1).max(200),
    public_api: z.boolean(),
    agentic_search: z.boolean(),
    pilot: z.boolean(),
    auto_recharge: z.boolean(),
    attachments_enabled: z.boolean(),
    followup_days: z.array(z.number().int().min(1).max(60)).length(3),
  })
  .partial()
  .refine((v) => Object.keys(v).length > 0, 'at least one field is required');

export type AccountPatch = z.output<typeof UpdateAccountSchema>;

export const AddCreditsSchema = z.strictObject({
  amount: z.number().int().positive().max(100_000_000),
});

export const timeZone = z.string().refine((tz) => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}, 'must be an IANA time zone');

export const CreateSendingAccountSchema = z.strictObject({
  email: z.email(),
  type: z.enum(SENDING_ACCOUNT_TYPES),
  connected: z.boolean().default(true),
  sending_enabled: z.boolean().default(true),
  daily_limit: z.number().int().min(0).max(10_000).default(50),
  health: z.string().trim().min(1).max(100).default('healthy'),
  timezone: timeZone.default('UTC'),
  smtp: SmtpSettingsInputSchema.optional(),
  transport: z.enum(SMTP_ACCOUNT_TRANSPORTS).optional(),
}).refine((v) => v.type === 'smtp' || (v.smtp === undefined && v.transport === undefined), {
  message: 'smtp settings and transport apply to smtp accounts only',
  path: ['type'],
});
