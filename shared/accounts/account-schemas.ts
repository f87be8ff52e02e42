import * as z from '../core/zod.js';
import { SENDING_ACCOUNT_TYPES } from './model.js';
import { SMTP_ACCOUNT_TRANSPORTS } from './smtp-settings.js';
import { SmtpSettingsInputSchema } from './smtp-settings-schemas.js';

/**
 * The console's request schemas for accounts and sending accounts. Apart from the account model because
 * building them runs zod at import: the model is read by every handler (charges, accounts), the schemas only
 * by the console routes that validate with them.
 */
export const CreateAccountSchema = z.strictObject({
  name: z.string().check(z.trim(), z.minLength(1), z.maxLength(200)),
  credits: z._default(z.number().check(z.int(), z.gte(0), z.lte(100_000_000)), 1250),
  public_api: z._default(z.boolean(), true),
  agentic_search: z._default(z.boolean(), false),
  pilot: z._default(z.boolean(), false),
  auto_recharge: z._default(z.boolean(), false),
});

/**
 * `followup_days`: exactly three whole days, 1 to 60 each. Three because a sequence has at most three
 * follow-ups (steps 1 to 4 including the intro); each is counted from the previous step's actual send,
 * so any order is a valid cadence, and 60 days keeps a four-step sequence inside six months.
 */
export const UpdateAccountSchema = z
  .partial(
    z.strictObject({
      name: z.string().check(z.trim(), z.minLength(1), z.maxLength(200)),
      public_api: z.boolean(),
      agentic_search: z.boolean(),
      pilot: z.boolean(),
      auto_recharge: z.boolean(),
      attachments_enabled: z.boolean(),
      followup_days: z.array(z.number().check(z.int(), z.gte(1), z.lte(60))).check(z.length(3)),
    }),
  )
  .check(z.refine((v) => Object.keys(v).length > 0, 'at least one field is required'));

export type AccountPatch = z.output<typeof UpdateAccountSchema>;

export const AddCreditsSchema = z.strictObject({
  amount: z.number().check(z.int(), z.positive(), z.lte(100_000_000)),
});

export const timeZone = z.string().check(
  z.refine((tz) => {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: tz });
      return true;
    } catch {
      return false;
    }
  }, 'must be an IANA time zone'),
);

export const CreateSendingAccountSchema = z
  .strictObject({
    email: z.email(),
    type: z.enum(SENDING_ACCOUNT_TYPES),
    connected: z._default(z.boolean(), true),
    sending_enabled: z._default(z.boolean(), true),
    daily_limit: z._default(z.number().check(z.int(), z.gte(0), z.lte(10_000)), 50),
    health: z._default(z.string().check(z.trim(), z.minLength(1), z.maxLength(100)), 'healthy'),
    timezone: z._default(timeZone, 'UTC'),
    smtp: z.optional(SmtpSettingsInputSchema),
    transport: z.optional(z.enum(SMTP_ACCOUNT_TRANSPORTS)),
    // When the warm-up ramp starts (default: now, the connection); an earlier time for a mailbox with history.
    warmup_started_at: z.optional(z.pipe(z.iso.datetime({ offset: true }), z.transform((v: string) => new Date(v).toISOString()))),
  })
  .check(
    z.refine((v) => v.type === 'smtp' || (v.smtp === undefined && v.transport === undefined), {
      message: 'smtp settings and transport apply to smtp accounts only',
      path: ['type'],
    }),
  );
