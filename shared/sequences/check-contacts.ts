import * as z from '../core/zod.js';
import { PRICES } from '../accounts/prices.js';
import { serviceClock, type Clock } from '../core/clock.js';
import { NotFoundError } from '../core/errors.js';
import { contactAddresses, judgeEach } from './eligibility.js';
import { contactFacts, getSequenceHead } from './sequences.repository.js';
import { DEFAULT_STEPS, MAX_ENROLLMENTS, type RejectionReason } from './model.js';
import { ContactItemSchema } from './schemas.js';
import { startLookups, type LookupDeps, type LookupSummary, type Unchecked } from '../email-status/lookups.js';

/** Contacts checked per call: an import of 10,000 rows is 20 calls. */
export const MAX_CHECKED_CONTACTS = 500;

export const CheckContactsSchema = z.lazy(() =>
  z.strictObject({
    contacts: z.array(ContactItemSchema).check(z.minLength(1), z.maxLength(MAX_CHECKED_CONTACTS)),
    /** An existing sequence of the caller's: its enrolled addresses are `already_enrolled` and its steps price the quote. */
    sequence_id: z.optional(z.string().check(z.regex(/^sq_[0-9a-z]{26}$/, 'must be a sq_<id> sequence id'))),
    /** The step count of a new sequence (1 to 4, default 3), for the quote. */
    steps: z._default(z.number().check(z.int(), z.gte(1), z.lte(4)), DEFAULT_STEPS),
  }),
);

export interface ContactCheck {
  /** Per contact, in the order given: null when it would be accepted now, else the reason it would be rejected. */
  results: { index: number; reason: RejectionReason | null; unchecked?: Unchecked }[];
  eligible: number;
  steps: number;
  /** What drafting the eligible contacts reserves: eligible × steps × the price per drafted email. */
  credits: number;
  price_per_email: number;
  /** How many more enrollments the sequence can take (500 for a new one). */
  room: number;
  /**
   * What the domains' DNS lookups did (email-status/lookups.ts): a contact whose domain was not looked up (the
   * account's daily budget spent, or the request's deadline passed) is judged with the status `unknown` and
   * carries `unchecked` (`lookup_budget`, `lookup_deadline`): a domain without mail exchangers cannot be caught then.
   */
  lookups: LookupSummary;
}

/**
 * Check contacts against the sequence eligibility rules before importing them (the web app's CSV import).
 *
 * Input: the account, up to 500 contacts, an optional sequence of the caller's (404 when it is not one) or the
 * step count of a new one. Output: each contact's verdict, as POST /sequences/ and add-contacts would decide
 * it now (the same judge, eligibility.ts), and the credits drafting the eligible ones would reserve.
 * Nothing is written: a contact judged eligible here may still be rejected at the real call when something
 * changes meanwhile (another sequence enrolls it), which then lists it in `contacts_rejected`.
 */
export async function checkContacts(accountId: string, body: z.output<typeof CheckContactsSchema>, clock: Clock = serviceClock, lookupDeps?: Partial<LookupDeps>): Promise<ContactCheck> {
  const sequence = body.sequence_id ? await getSequenceHead(accountId, body.sequence_id) : null;
  if (body.sequence_id && !sequence) throw new NotFoundError('Sequence not found.');
  const enrolled = new Set(sequence?.contacts ?? []);
  const addresses = contactAddresses(body.contacts).filter((a) => !enrolled.has(a));
  // The domains are looked up (budget, deadline: email-status/lookups.ts) while the contacts' facts are read.
  const lookups = startLookups(accountId, addresses, lookupDeps);
  const known = await contactFacts(accountId, addresses);
  const verdicts = await judgeEach(body.contacts, known, { sequenceId: sequence?.id ?? '', enrolled, now: clock.now(), lookups });
  await lookups.done;
  const results = verdicts.map((v, index) => {
    // Only a contact that would pass the status rule is marked: a domain found without mail exchangers would have made it invalid_contact.
    const raw = body.contacts[index];
    const email = raw && typeof raw === 'object' ? (raw as { email?: unknown }).email : undefined;
    const unchecked = (typeof v === 'object' || v === 'not_enriched') && typeof email === 'string' ? lookups.unchecked(email) : null;
    return { index, reason: typeof v === 'string' ? v : null, ...(unchecked ? { unchecked } : {}) };
  });
  const eligible = results.filter((r) => r.reason === null).length;
  const steps = sequence?.steps ?? body.steps;
  const price = PRICES.sequence_per_draft;
  return { results, eligible, steps, credits: eligible * steps * price, price_per_email: price, room: MAX_ENROLLMENTS - (sequence?.contacts.length ?? 0), lookups: lookups.summary };
}
