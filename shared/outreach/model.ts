
/**
 * Outreach emails (docs/decisions.md#outreach-emails). Stored in the caller's partition of the outreach table
 * (ACCOUNT#<id> / EMAIL#<em_id>), so every read is tenant-scoped by construction and a list is one
 * strongly consistent query, newest first (ids are time-ordered ULIDs).
 */
export type SendMode = 'best_time' | 'now' | 'at';

export const EMAIL_STATUSES = ['drafting', 'pending_review', 'queued', 'sending', 'sent', 'replied', 'failed', 'cancelled'] as const;
export type EmailStatus = (typeof EMAIL_STATUSES)[number];

/** How long a draft waits in `pending_review` for approval; an edit during review starts it again. */
export const REVIEW_WINDOW_MS = 7 * 24 * 3600 * 1000;

export interface Contact {
  email: string;
  first_name: string;
  last_name?: string;
  company_name?: string;
  professional_url?: string;
  context?: string;
}

export interface EmailRecord {
  id: string;
  account_id: string;
  status: EmailStatus;
  contact: Contact;
  to: { email: string; name: string };
  from_account: string;
  from_email: string;
  reply_to: string | null;
  cc: string[];
  bcc: string[];
  review: 'required' | 'none';
  subject: string;
  body_plain: string;
  body_html: string;
  instructions: string;
  created_at: string;
  updated_at: string;
  drafted_at: string | null;
  scheduled_for: string | null;
  sent_at: string | null;
  opened_at: string | null;
  replied_at: string | null;
  open_count: number;
  review_expires_at: string | null;
  error: { code: string; message: string } | null;
  charge_id: string;
  message_id: string | null;
  track_token: string;
  timezone: string;
  /** The recipient's zone when the directory or the lead knows where they are (best time uses it). */
  recipient_timezone?: string | null;
  /** Approved while the sending account had no daily capacity: the send waits for it, as asked. */
  awaiting_capacity?: { mode: SendMode; send_at: string | null };
  /** How the send time is to be chosen, kept from the approval (or review `none`) until the email has its slot. */
  send_request?: { mode: SendMode; send_at: string | null };
  step?: number;
  sequence_id?: string;
  /** Every step of the enrollment in order (this one included), so a step finds its neighbours by id. */
  step_ids?: string[];
  /** Threading of a follow-up: the earlier step's Message-ID, and every earlier step's, oldest first. */
  in_reply_to?: string;
  references?: string[];
  /** The sending account's local day whose capacity this email booked. */
  slot_day?: string;
  provider_message_id?: string;
  /** The provider thread (Gmail threadId, Graph conversationId): set when sent; a follow-up created with it is sent into that thread. */
  thread_id?: string;
  /** The claim of the one send attempt, and until when (wall clock, ms) it counts as live. */
  send_attempt?: string;
  send_lease_until_ms?: number;
  /**
   * The CC/BCC copies of a sent email (shared/outreach/copies.ts), each sent after the lead's copy, with the
   * claim of the attempt sending them.
   */
  copies?: Record<string, 'due' | 'sending' | 'sent' | 'failed' | 'interrupted'>;
  copy_attempt?: string;
  copy_lease_until_ms?: number;
  /**
   * The CC addresses (lower case) that get the lead's own message, and so its tracking token (Gmail and
   * Graph senders, copies.ts): written with the send's claim, before the message can go out. Its unsubscribe
   * link then lets the visitor choose among the lead and these (tracking.ts).
   */
  shared_with?: string[];
  /** Created through the public API (GET /emails/ lists only these). */
  api_created?: boolean;
}


/** The fields of an email that GET /emails/ shows or filters on: every one but the bodies. */
export const EMAIL_LIST_FIELDS = ['id', 'status', 'to', 'from_email', 'subject', 'instructions', 'created_at', 'scheduled_for', 'sent_at', 'opened_at', 'replied_at', 'open_count', 'review_expires_at', 'error', 'step', 'api_created'] as const;
export type EmailListRecord = Pick<EmailRecord, (typeof EMAIL_LIST_FIELDS)[number]>;

/**
 * An item of GET /emails/: the record without `body_plain` and `body_html`. An edit may make each body 50,000
 * characters, so 200 of them would pass Lambda's 6 MB answer; the bodies are read with GET /emails/{id}/.
 */
export function emailListItem(e: EmailListRecord): Record<string, unknown> {
  const v: Record<string, unknown> = {
    id: e.id,
    status: e.status,
    to: e.to,
    from_email: e.from_email,
    subject: e.subject,
    instructions: e.instructions,
    created_at: e.created_at,
    scheduled_for: e.scheduled_for,
    sent_at: e.sent_at,
    opened_at: e.opened_at,
    replied_at: e.replied_at,
    open_count: e.open_count,
    review_expires_at: e.review_expires_at,
    error: e.error,
  };
  if (e.step !== undefined) v.step = e.step;
  return v;
}

/** The wire record: exactly docs/decisions.md's fields (plus `step` for sequence steps), the bodies after the subject. */
export function emailView(e: EmailRecord): Record<string, unknown> {
  const { id, status, to, from_email, subject, ...rest } = emailListItem(e);
  return { id, status, to, from_email, subject, body_plain: e.body_plain, body_html: e.body_html, ...rest };
}

const ISO_8601 =
  /^(\d{4})-?(\d{2})-?(\d{2})(?:[T ](\d{2})(?::?(\d{2})(?::?(\d{2})(?:[.,](\d{1,9}))?)?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/;

/**
 * An instant from any ISO 8601 calendar date or date-time a client may send (extended or basic form,
 * hours with optional minutes, seconds and fraction, `Z` or a ±hh[:mm] offset). A date alone is its
 * midnight; no offset means UTC (docs/decisions.md#conventions: timestamps are UTC). Null when it is not one.
 */
export function parseIsoInstant(text: string): number | null {
  const m = ISO_8601.exec(text.trim());
  if (!m) return null;
  const [, y, mo, d, h = '00', mi = '00', sec = '00', frac = '', zone = 'Z'] = m;
  const [year, month, day, hour, minute, second] = [y, mo, d, h, mi, sec].map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || hour > 24 || minute > 59 || second > 60) return null;
  if (hour === 24 && (minute > 0 || second > 0 || /[1-9]/.test(frac))) return null;
  const utc = Date.UTC(year, month - 1, day, hour, minute, Math.min(second, 59), Number(`0.${frac || '0'}`) * 1000);
  if (new Date(Date.UTC(year, month - 1, day)).getUTCDate() !== day) return null;
  if (zone === 'Z') return utc;
  const sign = zone.startsWith('-') ? -1 : 1;
  const digits = zone.slice(1).replace(':', '');
  const offsetMinutes = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || '0');
  if (offsetMinutes > 18 * 60) return null;
  return utc - sign * offsetMinutes * 60_000;
}
