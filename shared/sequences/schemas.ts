/**
 * The request schemas of sequences (SPEC.md "Sequence"), apart from the model: the functions that only read
 * sequences load no zod at init (`npm run bench`).
 */
import * as z from 'zod';
import type { Contact } from '../outreach/model.js';
import { ContactSchema } from '../outreach/schemas.js';
import { DEFAULT_STEPS } from './model.js';

const contacts = z.array(z.unknown()).min(1).max(100);
const review = z.enum(['required', 'none']).default('required');

export const CreateSequenceSchema = z.lazy(() =>
  z.strictObject({
    contacts,
    instructions: z.string().max(2000).refine((s) => s.trim().length > 0, 'must not be blank'),
    name: z.string().max(200).optional(),
    steps: z.number().int().min(1).max(4).default(DEFAULT_STEPS),
    from_account: z.string().regex(/^ea_[0-9a-z]{26}$/, 'must be an ea_<id>').optional(),
    reply_to: z.email().max(320).optional(),
    cc: z.array(z.email().max(320)).max(3).default([]),
    bcc: z.array(z.email().max(320)).max(3).default([]),
    review,
  }),
);

export const AddContactsSchema = z.lazy(() =>
  z.strictObject({
    contacts,
    from_account: z.string().regex(/^ea_[0-9a-z]{26}$/, 'must be an ea_<id>').optional(),
    review,
  }),
);

export const ListSequencesQuerySchema = z.strictObject({
  page: z.coerce.number().int().min(1).default(1),
  page_size: z.coerce.number().int().min(1).max(200).default(50),
});

/** A contact as the caller sent it, checked the way POST /emails/ checks `to`; null when it is not one. */
export function parseContact(raw: unknown): Contact | null {
  const r = ContactSchema.safeParse(raw);
  return r.success ? r.data : null;
}
