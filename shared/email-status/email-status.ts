import { mailExchangers } from '../adapters/mail-exchangers.js';
import { addressLists, type AddressLists } from './address-lists.js';
import { classifyEmail, parseAddress, type EmailStatusFields, type MailEvidence } from './classify.js';
import { mailEvidenceFor } from './mail-evidence.repository.js';
import type { MailExchangers } from '../ports/mail-exchangers.js';

/**
 * The email status of one address (classify.ts has the rules): the one function every result that carries a
 * person's email calls, so the email finder, deep search, bulk enrichment and sequence eligibility agree.
 *
 * Input: the address; what the directory knows of its owner (names, whether the domain accepts all).
 * Output: `{email_status, email_status_reason}`.
 * 1. A malformed address is `invalid` at once, with no lookup.
 * 2. Otherwise the domain's mail exchangers (DNS port), the address lists and the shared sending evidence
 *    are gathered in parallel and classified.
 */
export interface EmailStatusDeps {
  mx: MailExchangers;
  evidence: (address: string) => Promise<MailEvidence>;
  lists: () => Promise<AddressLists>;
}

export interface KnownOwner {
  first_name?: string | null;
  last_name?: string | null;
  /** The directory's company record says its domain accepts every recipient. */
  accept_all?: boolean;
}

const defaults = (): EmailStatusDeps => ({ mx: mailExchangers(), evidence: mailEvidenceFor, lists: addressLists });


/** `deps`: any port left out is this environment's (a request's bounded lookups replace only `mx`: lookups.ts). */
export async function emailStatusOf(address: string, owner: KnownOwner = {}, given: Partial<EmailStatusDeps> = {}): Promise<EmailStatusFields> {
  const deps = { ...defaults(), ...given };
  const parsed = parseAddress(address);
  if (!parsed) return { email_status: 'invalid', email_status_reason: 'syntax' };
  const [mx, evidence, lists] = await Promise.all([deps.mx(parsed.domain), deps.evidence(address), deps.lists()]);
  return classifyEmail(address, {
    mx,
    evidence,
    disposable: lists.isDisposableDomain(parsed.domain),
    role: lists.isRoleLocalPart(parsed.local),
    accept_all_domain: owner.accept_all === true,
    first_name: owner.first_name ?? undefined,
    last_name: owner.last_name ?? undefined,
  });
}

/** A found email as the email finder answers it (and bulk enrichment's email items): the address and its status. */
export async function foundEmail(address: string, owner: KnownOwner = {}, deps?: Partial<EmailStatusDeps>): Promise<{ email: string } & EmailStatusFields> {
  return { email: address, ...(await emailStatusOf(address, owner, deps)) };
}
