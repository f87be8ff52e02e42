/**
 * The request schemas of outreach emails (docs/decisions.md#outreach-emails), apart from the model: the functions that only
 * read emails (GET /emails/{id}/, the sequences' reads) load no zod at init (`npm run bench`).
 */
import * as z from '../core/zod.js';
import { normalizeProfessionalUrl } from '../directory/urls.js';
import { EMAIL_STATUSES, parseIsoInstant } from './model.js';

/** A recipient or reply-to address, and a sending account's id: the same rules in every outreach body (sequences too). */
export const email = z.email().check(z.maxLength(320));
export const eaId = z.string().check(z.regex(/^ea_[0-9a-z]{26}$/, 'must be an ea_<id>'));

/** A name goes into the To header and the greeting: control characters (CR/LF above all) are refused at create. */
const nameText = (max: number) =>
  z.string().check(
    z.trim(),
    z.minLength(1),
    z.maxLength(max),
    z.refine((v) => !/[\u0000-\u001f\u007f]/.test(v), 'control characters are not allowed'),
  );

// Request bodies are built on first use (z.lazy), not at module load: most functions that import this module
// never parse one, and the schemas are a measurable share of a cold start.
export const ContactSchema = z.lazy(() =>
  z.strictObject({
    email,
    first_name: nameText(100),
    last_name: z.optional(nameText(100)),
    company_name: z.optional(nameText(200)),
    professional_url: z.optional(
      z.string().check(
        z.trim(),
        z.maxLength(2048),
        z.refine((u) => normalizeProfessionalUrl(u) !== null, 'must be a professional-network profile URL'),
      ),
    ),
    context: z.optional(z.string().check(z.maxLength(1000))),
  }),
);

export const CreateEmailSchema = z.lazy(() =>
  z.strictObject({
    to: ContactSchema,
    // Kept exactly as supplied (docs/decisions.md: "as supplied at create"), so the bound applies to the raw string.
    instructions: z.string().check(
      z.maxLength(2000),
      z.refine((s) => s.trim().length > 0, 'must not be blank'),
    ),
    from_account: z.optional(eaId),
    reply_to: z.optional(email),
    cc: z._default(z.array(email).check(z.maxLength(3)), []),
    bcc: z._default(z.array(email).check(z.maxLength(3)), []),
    review: z._default(z.enum(['required', 'none']), 'required'),
  }),
);

export const PatchEmailSchema = z.lazy(() =>
  z
    .strictObject({
      subject: z.optional(
        z.string().check(
          z.trim(),
          z.minLength(1),
          z.maxLength(300),
          z.refine((s) => !/[\u0000-\u001f\u007f]/.test(s), 'control characters are not allowed'),
        ),
      ),
      body_plain: z.optional(z.string().check(z.minLength(1), z.maxLength(50_000))),
      body_html: z.optional(z.string().check(z.minLength(1), z.maxLength(50_000))),
    })
    .check(
      z.superRefine((v, ctx) => {
        if (v.body_plain !== undefined && v.body_html !== undefined) ctx.addIssue({ code: 'custom', path: ['body_html'], message: 'supply body_plain or body_html, not both' });
        if (v.subject === undefined && v.body_plain === undefined && v.body_html === undefined) ctx.addIssue({ code: 'custom', path: [], message: 'supply subject and/or one body' });
      }),
    ),
);

export const ApproveEmailSchema = z.lazy(() =>
  z
    .strictObject({
      schedule: z._default(z.enum(['best_time', 'now', 'at']), 'best_time'),
      send_at: z.optional(z.iso.datetime({ offset: true })),
    })
    .check(
      z.superRefine((v, ctx) => {
        if (v.schedule === 'at' && !v.send_at) ctx.addIssue({ code: 'custom', path: ['send_at'], message: 'send_at is required with schedule "at"' });
        if (v.schedule !== 'at' && v.send_at) ctx.addIssue({ code: 'custom', path: ['send_at'], message: 'send_at goes only with schedule "at"' });
      }),
    ),
);

export const ListEmailsQuerySchema = z.strictObject({
  status: z.optional(z.enum(EMAIL_STATUSES)),
  since: z.optional(
    z.pipe(
      z.string().check(z.refine((s) => parseIsoInstant(s) !== null, 'must be an ISO 8601 date or date-time')),
      z.transform((s: string) => parseIsoInstant(s)!),
    ),
  ),
  page: z.optional(z.coerce.number().check(z.int(), z.gte(1))),
  page_size: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(200)), 50),
  /** The `next_cursor` of the page before (beyond docs/decisions.md): the next page without walking the ones before it. */
  cursor: z.optional(z.string().check(z.minLength(1), z.maxLength(512))),
});
