import { addressRef } from '../core/logger.js';
import { findContact } from '../enrichment/identity.js';
import { emailStatusOf } from '../email-status/email-status.js';
import { mailEvidenceOfEach } from '../email-status/mail-evidence.repository.js';
import { startLookups, type DomainLookups, type LookupDeps } from '../email-status/lookups.js';
import type { EmailStatusFields } from '../email-status/classify.js';
import { ValidationError } from '../core/errors.js';
import type { Contact } from '../outreach/model.js';
import type { ContactFacts } from './sequences.repository.js';
import { TERMINAL_ENROLLMENT, type RejectedContact, type RejectionReason } from './model.js';
import { parseContact } from './schemas.js';
import { inBatches } from '../core/batches.js';
import { optedOutAddresses } from '../privacy/opt-outs.repository.js';

/**
 * Sequence eligibility (docs/decisions.md#decisions-the-contract-leaves-open), decided per contact, first reason wins:
 * 1. `invalid_contact`: not a valid contact (bad or missing email or first name), the same address twice in
 *    one request, an address on the suppression list (unsubscribed, hard bounce), or an address whose email
 *    status is `invalid` (shared/email-status: malformed, disposable, no mail exchanger, or a hard bounce in
 *    any account's sending).
 * 2. `already_enrolled` (add-contacts): the address is in this sequence already.
 * 3. `opted_out`: the address's owner opted out of (or asked for erasure from) every account's outreach through a
 *    privacy request (docs/privacy.md): one privacy-table read for the request's addresses.
 * 4. `invalid_contact` again for an address on the suppression list or of status `invalid` (as in 1).
 * 5. `already_in_automation`: a non-terminal enrollment of the account in another sequence.
 * 6. `recently_contacted`: the account sent to the address in the last 30 days.
 * 7. `not_enriched`: no company, profile URL or context, and the directory does not know the address.
 */
export const RECENT_CONTACT_MS = 30 * 86_400_000;
/** Contacts whose directory entry is read at once; their outreach facts (contactFacts) and mail evidence are read gathered. */
const CONCURRENCY = 10;

export interface Eligibility {
  eligible: Contact[];
  /** Each eligible contact as the caller sent it (for a rejection decided later, at the reservation). */
  sent: unknown[];
  rejected: RejectedContact[];
}

type Verdict = RejectionReason | Contact;
type Judge = {
  sequenceId: string;
  enrolled: ReadonlySet<string>;
  now: Date;
  /** The account whose daily lookup budget the contacts' domains are taken from (email-status/lookups.ts); without it only the deadlines hold. */
  accountId?: string;
  /** Tests: the lookups' ports and limits. */
  lookupDeps?: Partial<LookupDeps>;
  /** The request's lookups, already started (the contact checks start them before reading the contacts' facts). */
  lookups?: DomainLookups;
};

/** Each contact as parsed, in the order given, or `invalid_contact` (not a valid contact, or its address twice). */
function parsed(raw: unknown[]): Verdict[] {
  const seen = new Set<string>();
  return raw.map((r) => {
    const contact = parseContact(r);
    if (!contact || seen.has(contact.email.toLowerCase())) return 'invalid_contact';
    seen.add(contact.email.toLowerCase());
    return contact;
  });
}

/**
 * The addresses (lower-cased, each once) of the valid contacts of a request: what the judge needs read
 * (contactFacts) of all but those already in the sequence. Nothing is read.
 */
export function contactAddresses(raw: unknown[]): string[] {
  return parsed(raw).flatMap((v) => (typeof v === 'object' ? [v.email.toLowerCase()] : []));
}

const unenriched = (c: Contact) => !c.company_name && !c.professional_url && !c.context?.trim();

/** Reasons 1 (suppressed, invalid status), 3 and 4, decided on what was read; null when none applies. */
function reasonOf(facts: ContactFacts, status: EmailStatusFields, sequenceId: string, now: Date): RejectionReason | null {
  if (facts.suppressed || status.email_status === 'invalid') return 'invalid_contact';
  if (facts.enrollments.some((e) => e.sequence_id !== sequenceId && !TERMINAL_ENROLLMENT.includes(e.status))) return 'already_in_automation';
  if (facts.lead?.last_sent_at && now.getTime() - new Date(facts.lead.last_sent_at).getTime() < RECENT_CONTACT_MS) return 'recently_contacted';
  return null;
}

/**
 * Each contact's verdict, in the order given: the contact when eligible, else the first reason that applies.
 * `known` holds the outreach facts (contactFacts) of every address of contactAddresses(raw) not in
 * `enrolled`; the judge reads nothing of the outreach table itself. It reads the remaining contacts' shared mail
 * evidence gathered (mailEvidenceOfEach), and the directory (CONCURRENCY at once) only for an unenriched contact
 * that no other reason rules out.
 */
export async function judgeEach(raw: unknown[], known: ReadonlyMap<string, ContactFacts>, opts: Judge): Promise<Verdict[]> {
  const verdicts = parsed(raw).map((v) => (typeof v === 'object' && opts.enrolled.has(v.email.toLowerCase()) ? 'already_enrolled' : v));
  const open = verdicts.flatMap((v, i) => (typeof v === 'object' ? [{ i, contact: v, address: v.email.toLowerCase() }] : []));
  // The domains' mail exchangers are looked up once for the request, within the account's daily budget and one
  // deadline; a domain not looked up answers `unavailable`, so its addresses are `unknown`, never rejected for it.
  const lookups = opts.lookups ?? startLookups(opts.accountId ?? null, open.map((o) => o.address), opts.lookupDeps);
  // The shared sending evidence is read meanwhile, so the reads do not wait on a slow domain: the addresses' and
  // their distinct domains' records by key, 100 a BatchGetItem (never a GetItem per address on the table every account shares).
  const evidence = mailEvidenceOfEach(open.map((o) => o.address));
  evidence.catch(() => {});
  // The opt-outs of every account's outreach, read meanwhile: one BatchGetItem per 100 addresses.
  const optedOut = optedOutAddresses(open.map((o) => o.address));
  optedOut.catch(() => {});
  const statuses = await Promise.all(open.map((o, n) => emailStatusOf(o.address, { first_name: o.contact.first_name }, { mx: lookups.mx, evidence: async () => (await evidence)[n]! })));
  const outOf = await optedOut;
  const passed = open.filter((o, n) => {
    const facts = known.get(o.address);
    if (!facts) throw new Error(`the facts of contact ${addressRef(o.address)} were not read`);
    const reason = outOf.has(o.address) ? 'opted_out' : reasonOf(facts, statuses[n]!, opts.sequenceId, opts.now);
    if (reason) verdicts[o.i] = reason;
    return !reason && unenriched(o.contact);
  });
  await lookups.done;
  const inDirectory = await inBatches(passed, CONCURRENCY, (o) => findContact({ email: o.address }, ['email']));
  passed.forEach((o, n) => {
    if (!inDirectory[n]) verdicts[o.i] = 'not_enriched';
  });
  return verdicts;
}

export async function judgeContacts(raw: unknown[], known: ReadonlyMap<string, ContactFacts>, opts: Judge): Promise<Eligibility> {
  const verdicts = await judgeEach(raw, known, opts);
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

/** The 400 of a request of which no contact is eligible, each contact's reason in the details. */
export function noneEligible(rejected: RejectedContact[]): ValidationError {
  return new ValidationError(
    'No contact is eligible for the sequence.',
    rejected.map((r, i) => ({ path: `contacts.${i}`, message: r.reason })),
  );
}
