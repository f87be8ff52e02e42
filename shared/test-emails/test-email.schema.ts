import * as z from '../core/zod.js';

/**
 * The body of POST /test-emails/ (docs/decisions.md#test-emails-pilot): strict, so any field outside the contract
 * (`to`, `cc`, `bcc`, `reply_to`, `review`, scheduling fields…) is a 400. Attachment bytes are checked
 * after this shape (attachments.ts): decoding and type detection are asynchronous.
 */
export const ATTACHMENT_TYPES = {
  'application/pdf': ['.pdf'],
  'image/png': ['.png'],
  'image/jpeg': ['.jpg', '.jpeg'],
  'text/plain': ['.txt'],
  'text/csv': ['.csv'],
} as const satisfies Record<string, readonly string[]>;
export type AttachmentType = keyof typeof ATTACHMENT_TYPES;

export const MAX_ATTACHMENTS = 5;
export const MAX_ATTACHMENT_BYTES = 1_048_576;

const CONTROL = /\p{Cc}/u;

const Attachment = z.strictObject({
  filename: z
    .string()
    .check(
      z.minLength(1),
      z.maxLength(180),
      z.refine((s) => !CONTROL.test(s), 'filename must not contain control characters'),
      z.refine((s) => s.trim() === s, 'filename must not start or end with whitespace'),
      z.refine((s) => !/[\\/]/.test(s), 'filename must not contain a path'),
    ),
  content_type: z.enum(Object.keys(ATTACHMENT_TYPES) as [AttachmentType, ...AttachmentType[]]),
  // The 1 MiB decoded bound, as base64 characters: anything longer cannot fit, so it is refused before decoding.
  content_base64: z.string().check(z.minLength(1), z.maxLength(Math.ceil(MAX_ATTACHMENT_BYTES / 3) * 4)),
});
export type AttachmentInput = z.output<typeof Attachment>;

const body = z.string().check(z.minLength(1), z.maxLength(50_000));

export const CreateTestEmailSchema = z
  .strictObject({
    from_account: z.string().check(z.regex(/^ea_[0-9a-z]{26}$/, 'must be an ea_ id')),
    subject: z
      .string()
      .check(
        z.minLength(1),
        z.maxLength(300),
        z.refine((s) => !CONTROL.test(s), 'subject must not contain control characters'),
        z.refine((s) => s.trim() !== '', 'subject must not be blank'),
      ),
    body_plain: z.optional(body),
    body_html: z.optional(body),
    attachments: z._default(z.array(Attachment).check(z.maxLength(MAX_ATTACHMENTS)), []),
  })
  .check(
    z.superRefine((b, ctx) => {
      if ((b.body_plain === undefined) === (b.body_html === undefined)) {
        ctx.addIssue({ code: 'custom', path: ['body_plain'], message: 'supply exactly one of body_plain and body_html' });
      }
    }),
  );
export type CreateTestEmailRequest = z.output<typeof CreateTestEmailSchema>;
