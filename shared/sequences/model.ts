import { emailView, type Contact, type EmailRecord } from '../outreach/model.js';

/**
 * Sequences (docs/decisions.md#sequences, docs/decisions.md#decisions-the-contract-leaves-open): multi-step outreach to many contacts. Stored in the caller's
 * partition of the outreach table beside its emails: the sequence (SEQ#<sq_id>) and one enrollment per
 * contact (ENROLL#<email>#<sq_id>). Each step of an enrollment is a regular email record with `step`.
 *
 * A drafting pass (create, or each add-contacts) reserves 2 credits per email in the transaction that
 * records it; its enrollments are written from its pending items (`pending_pass_id`) right after (again by the sweeper after a
 * crash); each step draft counts into `pass_drafted` / `pass_failed` in the transaction that ends it, and
 * the pass settles its reservation once every email of it is counted.
 */
export const SEQUENCE_STATUSES = ['drafting', 'pending_review', 'active', 'completed', 'cancelled', 'failed'] as const;
export type SequenceStatus = (typeof SEQUENCE_STATUSES)[number];
export const TERMINAL_SEQUENCE: readonly SequenceStatus[] = ['completed', 'cancelled', 'failed'];

export const ENROLLMENT_STATUSES = ['drafting', 'pending_review', 'active', 'completed', 'replied', 'bounced', 'cancelled', 'failed'] as const;
export type EnrollmentStatus = (typeof ENROLLMENT_STATUSES)[number];
export const TERMINAL_ENROLLMENT: readonly EnrollmentStatus[] = ['completed', 'replied', 'bounced', 'cancelled', 'failed'];

export const MAX_ENROLLMENTS = 500;
export const DEFAULT_STEPS = 3;
/** Enrollments per page of GET /sequences/{id}/ (as the lists page: default 50, at most 200); approve and cancel answer the first page. */
export const ENROLLMENT_PAGE_SIZE = { default: 50, max: 200 } as const;
/** GET /sequences/{id}/replies/: replies a page holds by default and at most (fewer when they would pass the answer's size). */
export const REPLY_PAGE_SIZE = { default: 50, max: 200 } as const;

/** One contact of a pass whose enrollment is still to be written, with the ids its steps will have. */
export interface PendingEnrollment {
  contact: Contact;
  email_ids: string[];
  recipient_timezone: string | null;
}

export interface DraftingPass {
  id: string;
  charge_id: string;
  review: 'required' | 'none';
  /** Emails in the pass (contacts × steps). */
  total: number;
  /** Where the sequence goes back to when an add-contacts pass settles (null for the first pass). */
  prior_status: SequenceStatus | null;
  from_account: string;
  from_email: string;
  timezone: string;
}

export interface SequenceRecord {
  id: string;
  account_id: string;
  name: string | null;
  status: SequenceStatus;
  created_at: string;
  updated_at: string;
  instructions: string;
  steps: number;
  reply_to: string | null;
  cc: string[];
  bcc: string[];
  /** Every enrolled address, lower-cased, in enrollment order. */
  contacts: string[];
  total_emails: number;
  drafted: number;
  pass?: DraftingPass;
  /** The open pass's pending enrollments inline: only a pass recorded before they had items of their own. */
  pass_pending?: PendingEnrollment[];
  /** The pass whose pending enrollments wait in items of their own (sequences.repository.ts putPendingEnrollments). */
  pending_pass_id?: string;
  /** How many enrollments of the open pass are still to be written (0 once they all are). */
  pending_count?: number;
  pass_drafted?: number;
  pass_failed?: number;
}

export interface EnrollmentRecord {
  sequence_id: string;
  account_id: string;
  contact: Contact;
  status: EnrollmentStatus;
  email_ids: string[];
  pass_id: string;
  created_at: string;
  updated_at: string;
}

export type RejectionReason = 'invalid_contact' | 'already_in_automation' | 'recently_contacted' | 'not_enriched' | 'already_enrolled' | 'opted_out';
export interface RejectedContact {
  contact: unknown;
  reason: RejectionReason;
}

export const contactName = (c: Contact) => [c.first_name, c.last_name].filter(Boolean).join(' ');

/** The fields every sequence payload carries. */
export function sequenceSummary(s: SequenceRecord) {
  return { id: s.id, name: s.name, status: s.status, created_at: s.created_at, instructions: s.instructions, total_emails: s.total_emails, drafted: s.drafted };
}

/** One enrollment as GET /sequences/{id}/ shows it: the contact, its status and every step's email. */
export function enrollmentView(e: EnrollmentRecord, emails: Map<string, EmailRecord>) {
  return {
    contact: { email: e.contact.email, name: contactName(e.contact) },
    status: e.status,
    emails: e.email_ids.map((id) => emails.get(id)).filter((m): m is EmailRecord => m !== undefined).map(emailView),
  };
}

/** A list item: the sequence without enrollments. */
export function sequenceListItem(s: SequenceRecord) {
  return sequenceSummary(s);
}
