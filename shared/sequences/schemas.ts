/**
 * The request schemas of sequences (docs/decisions.md#sequences), apart from the model: the functions that only read
 * sequences load no zod at init (`npm run bench`).
 */
import * as z from '../core/zod.js';
import type { Contact } from '../outreach/model.js';
import { ContactSchema, eaId, email } from '../outreach/schemas.js';
import { DEFAULT_STEPS, ENROLLMENT_PAGE_SIZE, REPLY_PAGE_SIZE } from './model.js';

/**
 * One item of `contacts`: any value here, each judged on its own afterwards (parseContact), so an invalid one is
 * listed in `contacts_rejected` as `invalid_contact` instead of failing the call. The published document shows
 * it as the contact it should be (ContactSchema, shared/contract/openapi.ts).
 */
export const ContactItemSchema = z.unknown();
const contacts = z.array(ContactItemSchema).check(z.minLength(1), z.maxLength(100));
const review = z._default(z.enum(['required', 'none']), 'required');

export const CreateSequenceSchema = z.lazy(() =>
  z.strictObject({
    contacts,
    instructions: z.string().check(
      z.maxLength(2000),
      z.refine((s) => s.trim().length > 0, 'must not be blank'),
    ),
    name: z.optional(z.string().check(z.maxLength(200))),
    steps: z._default(z.number().check(z.int(), z.gte(1), z.lte(4)), DEFAULT_STEPS),
    from_account: z.optional(eaId),
    reply_to: z.optional(email),
    cc: z._default(z.array(email).check(z.maxLength(3)), []),
    bcc: z._default(z.array(email).check(z.maxLength(3)), []),
    review,
  }),
);

export const AddContactsSchema = z.lazy(() =>
  z.strictObject({
    contacts,
    from_account: z.optional(eaId),
    review,
  }),
);

export const ListSequencesQuerySchema = z.strictObject({
  page: z.optional(z.coerce.number().check(z.int(), z.gte(1))),
  page_size: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(200)), 50),
  /** The `next_cursor` of the page before: the next page without walking the ones before it. */
  cursor: z.optional(z.string().check(z.minLength(1), z.maxLength(512))),
});

/** GET /sequences/{id}/: one page of enrollments, after `cursor` (the previous page's `next_cursor`). */
export const SequenceReadQuerySchema = z.strictObject({
  cursor: z.optional(z.string().check(z.minLength(1), z.maxLength(1024))),
  page_size: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(ENROLLMENT_PAGE_SIZE.max)), ENROLLMENT_PAGE_SIZE.default),
});

/** GET /sequences/{id}/replies/: one page of replies, oldest first, after `cursor` (the previous page's `next_cursor`). */
export const SequenceRepliesQuerySchema = z.strictObject({
  cursor: z.optional(z.string().check(z.minLength(1), z.maxLength(1024))),
  page_size: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(REPLY_PAGE_SIZE.max)), REPLY_PAGE_SIZE.default),
});

/** A contact as the caller sent it, checked the way POST /emails/ checks `to`; null when it is not one. */
export function parseContact(raw: unknown): Contact | null {
  const r = ContactSchema.safeParse(raw);
  return r.success ? r.data : null;
}
