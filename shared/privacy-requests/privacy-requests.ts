import { randomBytes } from 'node:crypto';
import { monotonicFactory } from 'ulid';
import * as z from '../core/zod.js';
import { serviceClock, type Clock } from '../core/clock.js';
import { NotFoundError } from '../core/errors.js';
import { findByEmail, findByProfessionalUrl } from '../directory/directory.repository.js';
import { toProfessionalProfile, type ProfessionalProfile } from '../directory/shape.js';
import { normalizeProfessionalUrl } from '../directory/urls.js';
import { emailedSummary, forgetEmailed, recordOptOut } from '../privacy/opt-outs.repository.js';
import {
  completeRequest,
  deleteAddressMailEvidence,
  forgetAddressInRequests,
  getLiveToken,
  getRequest,
  listRequests,
  putPendingRequest,
  takeVerificationSlot,
  type PrivacyRequestKind,
  type PrivacyRequestRecord,
  type PrivacyRequestStatus,
} from './requests.repository.js';

/**
 * Privacy requests of the people in the directory (docs/privacy.md; DESIGN "Privacy requests"): anyone asks, by
 * address, to see what is held (`access`), to be left out (`opt_out`) or to be erased (`erase`); a single-use link
 * mailed to that address proves the asker owns it, and only then is anything read or done.
 *
 * No enumeration: the request itself never reads the directory, the opt-out lists or the outreach history. Known
 * or unknown address, the work is the same (a counter, one transaction, one message) and so is the answer; a
 * fourth request of an address in a UTC day answers the same and sends nothing.
 */
export const PRIVACY_REQUESTS = ['access', 'opt_out', 'erase'] as const;
/** Verification messages one address may be sent in a UTC day. */
export const VERIFICATIONS_PER_ADDRESS_PER_DAY = 3;

/** RFC 5321's sizes: a local part of at most 64 octets, a domain of at most 253 in labels of at most 63. */
function withinMailSizes(address: string): boolean {
  const at = address.lastIndexOf('@');
  const domain = address.slice(at + 1);
  return at <= 64 && domain.length <= 253 && domain.split('.').every((label) => label.length <= 63);
}

/** An address the link can be mailed to. */
export const CreatePrivacyRequestSchema = z.strictObject({
  email: z.email().check(z.maxLength(320), z.refine(withinMailSizes, 'an address with a local part of at most 64 characters and a domain of at most 253')),
  request: z.enum(PRIVACY_REQUESTS),
});

export const PrivacyRequestListQuerySchema = z.strictObject({
  status: z.optional(z.enum(['pending', 'completed'])),
  limit: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(200)), 50),
  cursor: z.optional(z.string().check(z.maxLength(200))),
});

const ulid = monotonicFactory();
export const newRequestId = (at: Date) => `pr_${ulid(at.getTime()).toLowerCase()}`;
/** 32 random bytes, base64url (43 characters): the link's token. Only its sha256 is stored. */
export const newLinkToken = () => randomBytes(32).toString('base64url');

/** The live token's request: 404 for a token never issued, or whose link expired (whether used or not). */
export async function requestOfToken(token: string, now: Date): Promise<PrivacyRequestRecord> {
  const t = await getLiveToken(token, now);
  const request = t ? await getRequest(t.request_id) : null;
  if (!request) throw new NotFoundError('Unknown or expired link.');
  return request;
}

/** The directory's records of a work address: the person its entry names, as enrichment answers a profile. */
export async function directoryRecordsOf(email: string): Promise<{ url: string; profile: HeldRecord }[]> {
  const contact = await findByEmail(`email#${email.trim().toLowerCase()}`);
  if (!contact) return [];
  const url = normalizeProfessionalUrl(contact.professional_url) ?? contact.professional_url;
  const entry = await findByProfessionalUrl(url);
  if (!entry) return [];
  // Access (GDPR Art. 15): everything the record holds about the person, the contact points too.
  const { person } = entry;
  return [{ url, profile: { ...toProfessionalProfile(person, entry.company), professional_url: person.professional_url, work_email: person.work_email, phone: person.phone, skills: person.skills } }];
}

/** The start of the "last 12 months" an access answer counts sends over. */
function twelveMonthsBefore(now: Date): string {
  const d = new Date(now);
  d.setUTCFullYear(d.getUTCFullYear() - 1);
  return d.toISOString();
}

/** One directory record as an access answer shows it: the enrichment profile and the contact points held with it. */
export interface HeldRecord extends ProfessionalProfile {
  professional_url: string;
  work_email: string | null;
  phone: string | null;
  skills: string[];
}

export interface PrivacyRequestView {
  /** Null once an erasure of the address has completed: the service no longer holds it. */
  email: string | null;
  request: PrivacyRequestKind;
  status: PrivacyRequestStatus;
  directory: HeldRecord[];
  outreach: { accounts_that_emailed: number; last_emailed_at: string | null };
}

/**
 * GET /privacy-requests/{token}/: what is held about the address, read now (after an opt-out the directory record
 * is still shown: it is held, and left out of every answer). A link answers until it expires, also after its
 * request was confirmed (then `status` is `completed`).
 */
export async function viewPrivacyRequest(token: string, clock: Clock = serviceClock): Promise<PrivacyRequestView> {
  const now = clock.now();
  const r = await requestOfToken(token, now);
  const email = r.email ?? null;
  const [records, outreach] = email ? await Promise.all([directoryRecordsOf(email), emailedSummary(email, twelveMonthsBefore(now))]) : [[], { accounts_that_emailed: 0, last_emailed_at: null }];
  return { email, request: r.request, status: r.status, directory: records.map((x) => x.profile), outreach };
}

/** An address as the console shows it while its request is pending: `j•••@example.com`. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at < 1) return '•••';
  return `${email.slice(0, 1)}•••${email.slice(at)}`;
}

export interface PrivacyRequestListItem {
  id: string;
  request: PrivacyRequestKind;
  status: PrivacyRequestStatus;
  created_at: string;
  completed_at: string | null;
  /** Masked, and only while the request is pending; null once it is completed. */
  email: string | null;
}

/** GET /api/console/v1/privacy-requests/: newest first, optionally by status, paged by `cursor`. */
export async function listPrivacyRequests(q: z.output<typeof PrivacyRequestListQuerySchema>, clock: Clock = serviceClock): Promise<{ results: PrivacyRequestListItem[]; next_cursor: string | null }> {
  const page = await listRequests(q, clock.now());
  return {
    results: page.results.map((r) => ({
      id: r.id,
      request: r.request,
      status: r.status,
      created_at: r.created_at,
      completed_at: r.completed_at ?? null,
      email: r.status === 'pending' && r.email ? maskEmail(r.email) : null,
    })),
    next_cursor: page.next_cursor,
  };
}
