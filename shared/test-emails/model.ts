/**
 * A pilot test email (docs/decisions.md#test-emails-pilot): finished copy sent once to the shared test inbox. Kept apart
 * from outreach history, leads, reservations, credits and daily counters.
 */
export const TEST_EMAIL_STATUSES = ['queued', 'sending', 'sent', 'failed', 'unknown'] as const;
export type TestEmailStatus = (typeof TEST_EMAIL_STATUSES)[number];

export interface AttachmentMeta {
  filename: string;
  content_type: string;
  size_bytes: number;
}

export interface TestEmailError {
  code: string;
  message: string;
}

export interface TestEmailRecord {
  id: string;
  account_id: string;
  status: TestEmailStatus;
  to: string;
  from_account: string;
  from_email: string;
  /** The sender's engine at creation: a different engine at send time is a changed sender. */
  from_type: 'google' | 'microsoft' | 'smtp';
  subject: string;
  body_html: string;
  /** The text part of the message: the caller's `body_plain`, or the sanitised HTML rendered as text. */
  body_text: string;
  signature_html: string;
  attachments: AttachmentMeta[];
  /** How many stored chunks each attachment's bytes were split into, in attachment order. */
  attachment_chunks: number[];
  idempotency_key: string;
  body_hash: string;
  created_at: string;
  updated_at: string;
  sent_at: string | null;
  message_id: string | null;
  internet_message_id: string | null;
  error: TestEmailError | null;
  /** The single attempt that claimed the send (`queued` → `sending`); only it may record the outcome. */
  send_attempt?: string;
  claimed_at?: string;
}

/** POST and GET return the same fields (docs/decisions.md): nothing internal, never attachment contents. */
export function testEmailView(r: TestEmailRecord) {
  return {
    id: r.id,
    status: r.status,
    to: r.to,
    from_account: r.from_account,
    from_email: r.from_email,
    subject: r.subject,
    body_html: r.body_html,
    signature_html: r.signature_html,
    attachments: r.attachments.map((a) => ({ filename: a.filename, content_type: a.content_type, size_bytes: a.size_bytes })),
    created_at: r.created_at,
    sent_at: r.sent_at,
    message_id: r.message_id,
    internet_message_id: r.internet_message_id,
    error: r.error,
  };
}

/** A replay answers 202 while the send is still to come or under way, 200 once it has an outcome. */
export const replayStatus = (status: TestEmailStatus): 200 | 202 => (status === 'queued' || status === 'sending' ? 202 : 200);

/** How long a claimed send may stay `sending` before it is `unknown` (docs/decisions.md#limits). */
export const IN_FLIGHT_MS = 10 * 60_000;

/** Rolling quotas per account across its keys (docs/decisions.md#limits). */
export const QUOTAS = [
  { window: 'hour', limit: 10, ms: 3600_000 },
  { window: 'day', limit: 50, ms: 24 * 3600_000 },
] as const;
