/**
 * The request schemas of outreach emails (SPEC.md "Outreach"), apart from the model: the functions that only
 * read emails (GET /emails/{id}/, the sequences' reads) load no zod at init (`npm run bench`).
 */
import * as z from 'zod';
import { normalizeProfessionalUrl } from '../directory/urls.js';
import { EMAIL_STATUSES, parseIsoInstant } from './model.js';

const email = z.email().max(320);
const eaId = z.string().regex(/^ea_[0-9a-z]{26}$/, 'must be an ea_<id>');

/** A name goes into the To header and the greeting: control characters (CR/LF above all) are refused at create. */
const nameText = (max: number) =>
  z
    .string()
    .trim()
    .min(1)
    .max(max)
    .refine((v) => !/[\u0000-\u001f\u007f]/.test(v), 'control characters are not allowed');

// Request bodies are built on first use (z.lazy), not at module load: most functions that import this module
// never parse one, and the schemas are a measurable share of a cold start.
export const ContactSchema = z.lazy(() =>
  z.strictObject({
    email,
    first_name: nameText(100),
    last_name: nameText(100).optional(),
    company_name: nameText(200).optional(),
    professional_url: z
      .string()
      .trim()
      .max(2048)
      .refine((u) => normalizeProfessionalUrl(u) !== null, 'must be a professional-network profile URL')
      .optional(),
    context: z.string().max(1000).optional(),
  }),
);

export const CreateEmailSchema = z.lazy(() =>
  z.strictObject({
    to: ContactSchema,
    // Kept exactly as supplied (SPEC.md: "as supplied at create"), so the bound applies to the raw string.
    instructions: z.string().max(2000).refine((s) => s.trim().length > 0, 'must not be blank'),
    from_account: eaId.optional(),
    reply_to: email.optional(),
    cc: z.array(email).max(3).default([]),
    bcc: z.array(email).max(3).default([]),
    review: z.enum(['required', 'none']).default('required'),
  }),
);

export const PatchEmailSchema = z.lazy(() =>
  z
    .strictObject({
      subject: z
        .string()
        .trim()
        .min(1)
        .max(300)
        .refine((s) => !/[\u0000-\u001f\u007f]/.test(s), 'control characters are not allowed')
        .optional(),
      body_plain: z.string().min(1).max(50_000).optional(),
      body_html: z.string().min(1).max(50_000).optional(),
    })
    .superRefine((v, ctx) => {
      if (v.body_plain !== undefined && v.body_html !== undefined) ctx.addIssue({ code: 'custom', path: ['body_html'], message: 'supply body_plain or body_html, not both' });
      if (v.subject === undefined && v.body_plain === undefined && v.body_html === undefined) ctx.addIssue({ code: 'custom', path: [], message: 'supply subject and/or one body' });
    }),
);

export const ApproveEmailSchema = z.lazy(() =>
  z
    .strictObject({
      schedule: z.enum(['best_time', 'now', 'at']).default('best_time'),
      send_at: z.iso.datetime({ offset: true }).optional(),
    })
    .superRefine((v, ctx) => {
      if (v.schedule === 'at' && !v.send_at) ctx.addIssue({ code: 'custom', path: ['send_at'], message: 'send_at is required with schedule "at"' });
      if (v.schedule !== 'at' && v.send_at) ctx.addIssue({ code: 'custom', path: ['send_at'], message: 'send_at goes only with schedule "at"' });
    }),
);

export const ListEmailsQuerySchema = z.strictObject({
  status: z.enum(EMAIL_STATUSES).optional(),
  since: z
    .string()
    .refine((s) => parseIsoInstant(s) !== null, 'must be an ISO 8601 date or date-time')
    .transform((s) => parseIsoInstant(s)!)
    .optional(),
  page: z.coerce.number().int().min(1).default(1),
  page_size: z.coerce.number().int().min(1).max(200).default(50),
});
