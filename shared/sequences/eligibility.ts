import { findContact } from '../enrichment/identity.js';
import { emailStatusOf } from '../email-status/email-status.js';
import { getLead, isSuppressed } from '../outreach/leads.repository.js';
import type { Contact } from '../outreach/model.js';
import { enrollmentsOfContact } from './sequences.repository.js';
import { TERMINAL_ENROLLMENT, type RejectedContact, type RejectionReason } from './model.js';
import { parseContact } from './schemas.js';

/**
 * Sequence eligibility (docs/decisions.md#decisions-the-contract-leaves-open), decided per contact, first reason wins:
 * 1. `invalid_contact`: not a valid contact (bad or missing email or first name), the same address twice in
 *    one request, an address on the suppression list (unsubscribed, hard bounce), or an address whose email
 *    status is `invalid` (shared/email-status: malformed, disposable, no mail exchanger, or a hard bounce in
 *    any account's sending).
 * 2. `already_enrolled` (add-contacts): the address is in this sequence already.
 * 3. `already_in_automation`: a non-terminal enrollment of the account in another sequence.
 * 4. `recently_contacted`: the account sent to the address in the last 30 days.
 * 5. `not_enriched`: no company, profile URL or context, and the directory does not know the address.
 */
export const RECENT_CONTACT_MS = 30 * 86_400_000;
/** Contacts judged at once: each costs a handful of reads. */
const CONCURRENCY = 10;

export interface Eligibility {
  eligible: Contact[];
  /** Each eligible contact as the caller sent it (for a rejection decided later, at the reservation). */
  sent: unknown[];
  rejected: RejectedContact[];
}

async function reasonFor(accountId: string, contact: Contact, sequenceId: string, enrolled: ReadonlySet<string>, now: Date): Promise<RejectionReason | null> {
  const address = contact.email.toLowerCase();
  if (enrolled.has(address)) return 'already_enrolled';
  const [suppressed, enrollments, lead, status] = await Promise.all([
    isSuppressed(accountId, address),
    enrollmentsOfContact(accountId, address),
    getLead(accountId, address),
    emailStatusOf(address, { first_name: contact.first_name }),
  ]);
  if (suppressed || status.email_status === 'invalid') return 'invalid_contact';
  if (enrollments.some((e) => e.sequence_id !== sequenceId && !TERMINAL_ENROLLMENT.includes(e.status))) return 'already_in_automation';
  if (lead?.last_sent_at && now.getTime() - new Date(lead.last_sent_at).getTime() < RECENT_CONTACT_MS) return 'recently_contacted';
  if (!contact.company_name && !contact.professional_url && !contact.context?.trim() && !(await findContact({ email: address }, ['email']))) return 'not_enriched';
  return null;
}

/** Each contact's verdict, in the order given: the contact when eligible, else the first reason that applies. */
export async function judgeEach(accountId: string, raw: unknown[], opts: { sequenceId: string; enrolled: ReadonlySet<string>; now: Date }): Promise<(RejectionReason | Contact)[]> {
  const seen = new Set<string>();
  const verdicts: (RejectionReason | Contact)[] = raw.map((r) => {
    const contact = parseContact(r);
    if (!contact || seen.has(contact.email.toLowerCase())) return 'invalid_contact';
    seen.add(contact.email.toLowerCase());
    return contact;
  });
  for (let i = 0; i < verdicts.length; i += CONCURRENCY) {
    await Promise.all(
      verdicts.slice(i, i + CONCURRENCY).map(async (v, j) => {
        if (typeof v === 'object' && v !== null) {
          const reason = await reasonFor(accountId, v, opts.sequenceId, opts.enrolled, opts.now);
          if (reason) verdicts[i + j] = reason;
        }
      }),
    );
  }
  return verdicts;
}

export async function judgeContacts(accountId: string, raw: unknown[], opts: { sequenceId: string; enrolled: ReadonlySet<string>; now: Date }): Promise<Eligibility> {
  const verdicts = await judgeEach(accountId, raw, opts);
  const out: Eligibility = { eligible: [], sent: [], rejected: [] };
  verdicts.forEach((v, i) => {
    if (typeof v === 'string') out.rejected.push({ contact: raw[i], reason: v });
    else if (v) {
      out.eligible.push(v);
      out.sent.push(raw[i]);
    }
  });
  return out;
}
