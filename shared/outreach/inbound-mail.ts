import { createHash } from 'node:crypto';
import type { ParsedMail } from 'mailparser';
import * as z from '../core/zod.js';
import { serviceClock, type Clock } from '../core/clock.js';
import { logger } from '../core/logger.js';
import { countMetric } from '../core/metrics.js';
import { addressOf } from './inbound.js';
import { readRawMail, type MailReading } from './mail-reading.js';
import { findByMessageId, findLatestSendTo, getEmail, recordReply, transition, type EmailRef, type ReplyRecord } from './emails.repository.js';
import { markLead, suppress } from './leads.repository.js';
import { recordBounce } from './bounces.js';
import { reportInboundHardBounce } from '../email-status/mail-evidence.repository.js';
import { stopEnrollment } from '../sequences/cadence.js';
import { countOnce } from './deliverability.repository.js';
import { countFailedAttempt, recordInboundIssue, type InboundIssue } from './inbound-issues.repository.js';
import type { EmailRecord } from './model.js';

/**
 * Inbound mail (the Inbox port): a message as it arrived in a sending account's mailbox (a polled Gmail or
 * Graph mailbox, or SES receiving), read as a dedicated bounce parser would (shared/outreach/mail-reading.ts),
 * matched to the email it answers, and acted on. docs/outreach.md#inbound-mail has the rules; in short:
 * - **Matched within the receiving mailbox.** Only an email sent from the mailbox that received the message,
 *   or whose `reply_to` it is (and, for a polled mailbox, of the account that connected it), can match: by the original Message-ID
 *   (the returned headers of a report, then In-Reply-To and References), else, for a report, by its failed
 *   recipient and the mailbox's latest send to that address (within 30 days).
 * - **Acted on only on evidence.** A reply stops the lead's sequence only when it comes from the lead's own
 *   address; a bounce only when the report names the lead as the failed recipient. A hard bounce (user or
 *   host unknown) marks the lead bounced and suppresses the address in this account; the address becomes
 *   invalid for every account only when independent accounts report it (or an SES bounce event says so,
 *   shared/outreach/ses-events.ts). A soft bounce (mailbox full, temporary, policy) stops the sequence but
 *   marks nothing. A feedback report (complaint) suppresses the lead in this account.
 * - **Nothing stalls.** A message that cannot be read, or names no sender, is recorded as unprocessable for
 *   operators and skipped; over-long headers are ignored past their limit and the stored body is cut to
 *   `MAX_BODY_BYTES` of UTF-8. Every effect is idempotent, so a message handled again changes nothing.
 */
export const InboundSchema = z.strictObject({
  from: z.string().check(z.minLength(3), z.maxLength(400)),
  to: z.string().check(z.minLength(3), z.maxLength(400)),
  // A subject of any length is matched (threading uses the headers); only its first 1,000 characters are kept.
  subject: z.pipe(
    z._default(z.string().check(z.maxLength(200_000)), ''),
    z.transform((s: string) => s.slice(0, 1000)),
  ),
  text: z._default(z.string().check(z.maxLength(200_000)), ''),
  in_reply_to: z.optional(z.nullable(z.string().check(z.maxLength(1000)))),
  headers: z._default(z.record(z.string(), z.string()), {}),
});

/** The largest raw message `dev/inbound` takes (API Gateway's payload limit is 10 MB). */
const MAX_RAW_CHARS = 10_000_000;

/** `dev/inbound` with a message as it really arrives: the receiving mailbox and the RFC 5322 text. */
export const RawInboundSchema = z.strictObject({
  mailbox: z.string().check(z.minLength(3), z.maxLength(320), z.regex(/^[^\s@<>]+@[^\s@<>]+$/, 'Expected an email address.')),
  raw: z.string().check(z.minLength(1), z.maxLength(MAX_RAW_CHARS)),
});

/** The `dev/inbound` answer and the poll's outcome for one message. */
export interface InboundOutcome {
  matched: boolean;
  classification: ReplyRecord['classification'] | null;
  email_id: string | null;
  counted_as_lead_reply: boolean;
  /** Why nothing could be done with the message (it is listed for operators); absent when it was handled. */
  unprocessable?: string;
  /** The twin's `dev/inbound`: the poll that should have read it failed; the next poll reads it again. */
  poll_failed?: boolean;
}

/** Where a message was received. */
export interface ReceivingMailbox {
  /** `google` / `microsoft` (a polled mailbox) or `ses` (SES receiving). */
  source: string;
  /** The mailbox's address; for SES receiving, every address the message was delivered to (envelope and headers). */
  addresses: string[];
  /** A polled mailbox belongs to the account that connected it: only that account's emails can match. */
  accountId?: string;
  /** Names the message for idempotency (the reply record's id): the same message handled twice writes one record. */
  key: string;
}

/** A reply record always fits DynamoDB's 400 KB item: the body is cut to this many UTF-8 bytes. */
export const MAX_BODY_BYTES = 100_000;
const MAX_SUBJECT_CHARS = 1000;
const MAX_NAME_CHARS = 200;
/** RFC 5322's line limit; a header value longer than this is read only up to it. */
const MAX_HEADER_CHARS = 998;
/** Addresses read from To/Cc (a group email's long list is read no further). */
const MAX_RECIPIENTS = 20;
/** Message-IDs tried per message. */
const MAX_IDS = 20;
/** A report without a Message-ID of ours matches a send to its failed recipient this recent. */
const RECENT_SEND_MS = 30 * 86_400_000;
/** Failed attempts at one message before it is given up as unprocessable. */
export const MAX_ATTEMPTS = 3;

/** `s` cut to at most `max` UTF-8 bytes, never inside a character. */
export function cutUtf8(s: string, max: number): { text: string; cut: boolean } {
  if (s.length <= max / 3 || Buffer.byteLength(s, 'utf8') <= max) return { text: s, cut: false };
  const bytes = Buffer.from(s, 'utf8');
  let end = max;
  // Back up over continuation bytes (10xxxxxx) so the cut falls between characters.
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end -= 1;
  return { text: bytes.subarray(0, end).toString('utf8'), cut: true };
}

interface MessageFields {
  sender: string;
  senderName: string;
  subject: string;
  body: string;
  bodyTruncated: boolean;
  messageId: string | null;
  /** Every address the message says it was delivered to (Received `for`, Delivered-To, X-Original-To, To, Cc). */
  deliveredTo: string[];
  repairs: string[];
}

function headerText(parsed: ParsedMail, name: string): string[] {
  return parsed.headerLines.filter((l) => l.key === name).map((l) => l.line.slice(l.line.indexOf(':') + 1).trim());
}

function fieldsOf(parsed: ParsedMail): MessageFields {
  const repairs = new Set<string>();
  for (const l of parsed.headerLines) if (l.line.length - l.key.length - 1 > MAX_HEADER_CHARS && ['from', 'to', 'cc', 'subject', 'in-reply-to', 'references', 'message-id'].includes(l.key)) repairs.add(`header_trimmed:${l.key}`);
  const fromText = (Array.isArray(parsed.from) ? parsed.from[0] : parsed.from)?.value?.[0];
  const rawFrom = headerText(parsed, 'from')[0] ?? '';
  const sender = (fromText?.address && addressOf(fromText.address)) || addressOf(rawFrom);
  const subjectFull = parsed.subject ?? '';
  if (subjectFull.length > MAX_SUBJECT_CHARS) repairs.add('header_trimmed:subject');
  const body = cutUtf8((parsed.text ?? '').replace(/\s+$/, ''), MAX_BODY_BYTES);
  if (body.cut) repairs.add('body_truncated');
  const listed = [parsed.to, parsed.cc].flatMap((a) => (Array.isArray(a) ? a : a ? [a] : [])).flatMap((a) => a.value.map((v) => (v.address ?? '').toLowerCase())).filter(Boolean);
  if (listed.length > MAX_RECIPIENTS) repairs.add('recipients_trimmed');
  const received = headerText(parsed, 'received').slice(0, 3).flatMap((r) => [...r.slice(0, 2000).matchAll(/\bfor\s+<?([^\s<>;]{1,320}@[^\s<>;]{1,255})>?/gi)].map((m) => m[1]!.toLowerCase()));
  const delivered = [...headerText(parsed, 'delivered-to'), ...headerText(parsed, 'x-original-to')].map((v) => addressOf(v)).filter(Boolean);
  const messageId = parsed.messageId && parsed.messageId.length <= MAX_HEADER_CHARS ? parsed.messageId : null;
  return {
    sender,
    senderName: (fromText?.name ?? '').slice(0, MAX_NAME_CHARS),
    subject: subjectFull.slice(0, MAX_SUBJECT_CHARS),
    body: body.text,
    bodyTruncated: body.cut,
    messageId,
    deliveredTo: [...new Set([...received, ...delivered, ...listed.slice(0, MAX_RECIPIENTS)])],
    repairs: [...repairs],
  };
}

/** The public classification of a reading: a complaint (a feedback report) is listed as an auto-reply. */
const publicClass = (kind: MailReading['kind']): ReplyRecord['classification'] => (kind === 'complaint' ? 'auto_reply' : kind);

interface Match {
  email: EmailRecord;
  by: 'message_id' | 'failed_recipient';
}

/** The email the message answers, among the emails sent from the receiving mailbox (and account). */
async function matchEmail(reading: MailReading, mailbox: ReceivingMailbox, clock: Clock): Promise<Match | null> {
  const addresses = new Set(mailbox.addresses.map((a) => a.toLowerCase()));
  const mine = (ref: EmailRef | null): boolean => !!ref && (!mailbox.accountId || ref.account_id === mailbox.accountId);
  // The mailbox that sent it, or the caller's mailbox it asked replies to go to (`reply_to`, one of its own accounts).
  const sentFromHere = (e: EmailRecord | null): e is EmailRecord => !!e && [e.from_email, e.reply_to].some((a) => !!a && addresses.has(a.toLowerCase()));
  const ids = [...new Set(reading.original_message_ids.filter((id) => id.length <= MAX_HEADER_CHARS))].slice(0, MAX_IDS);
  for (const id of ids) {
    const ref = await findByMessageId(id);
    if (!mine(ref)) continue;
    const email = await getEmail(ref!.account_id, ref!.email_id);
    if (sentFromHere(email)) return { email, by: 'message_id' };
  }
  if (reading.kind !== 'bounce' && reading.kind !== 'complaint') return null;
  for (const failed of reading.failed.slice(0, MAX_RECIPIENTS)) {
    for (const address of addresses) {
      const ref = await findLatestSendTo(address, failed.address);
      if (!mine(ref) || clock.now().getTime() - Date.parse(ref!.sent_at) > RECENT_SEND_MS) continue;
      const email = await getEmail(ref!.account_id, ref!.email_id);
      if (sentFromHere(email)) return { email, by: 'failed_recipient' };
    }
  }
  return null;
}

/** A message nothing could be done with: listed for operators, counted, and skipped. */
async function unprocessable(mailbox: ReceivingMailbox, now: Date, reason: string, detail: { error?: unknown; parsed?: ParsedMail | null }): Promise<InboundOutcome> {
  const e = detail.error as Error | undefined;
  const from = detail.parsed ? headerText(detail.parsed, 'from')[0]?.slice(0, 320) ?? null : null;
  await recordInboundIssue({
    key: mailbox.key,
    status: 'unprocessable',
    reasons: [reason],
    error: e ? `${e.name}: ${String(e.message).slice(0, 300)}` : null,
    source: mailbox.source,
    mailbox: mailbox.addresses[0] ?? null,
    from,
    subject: detail.parsed?.subject?.slice(0, 200) ?? null,
    message_id: detail.parsed?.messageId?.slice(0, 300) ?? null,
    received_at: now.toISOString(),
  });
  countMetric('messages_unprocessable');
  logger.warn('inbound message unprocessable', { key: mailbox.key, source: mailbox.source, reason, error: e?.name });
  return { matched: false, classification: null, email_id: null, counted_as_lead_reply: false, unprocessable: reason };
}

/**
 * One received message, as raw MIME, read, matched and acted on. Never throws for what the message holds
 * (unreadable, no sender, too long): that is recorded as unprocessable. A failure of the service itself (a
 * DynamoDB error) throws, so the caller retries; `handleInbound` counts those and gives up after three.
 */
export async function receiveRawInbound(raw: Buffer, mailbox: ReceivingMailbox, clock: Clock = serviceClock): Promise<InboundOutcome> {
  const now = clock.now();
  let parsed: ParsedMail;
  let reading: MailReading;
  try {
    ({ parsed, reading } = await readRawMail(raw));
  } catch (e) {
    return unprocessable(mailbox, now, 'unparseable', { error: e });
  }
  const f = fieldsOf(parsed);
  if (!f.sender) return unprocessable(mailbox, now, 'no_sender', { parsed });
  // A polled mailbox's address is known; SES receiving says where it delivered, and so do the headers.
  const receiving: ReceivingMailbox = mailbox.accountId ? mailbox : { ...mailbox, addresses: [...new Set([...mailbox.addresses, ...f.deliveredTo])] };
  const match = await matchEmail(reading, receiving, clock);
  if (f.repairs.length) {
    await recordInboundIssue({ key: mailbox.key, status: 'repaired', reasons: f.repairs, error: null, source: mailbox.source, mailbox: receiving.addresses[0] ?? null, from: f.sender, subject: f.subject, message_id: f.messageId, received_at: now.toISOString() });
  }
  const classification = publicClass(reading.kind);
  if (!match) return { matched: false, classification, email_id: null, counted_as_lead_reply: false };
  const { email } = match;
  const accountId = email.account_id;
  const iso = now.toISOString();
  const lead = email.to.email.toLowerCase();
  const failure = reading.kind === 'bounce' || reading.kind === 'complaint' ? reading.failed.find((x) => x.address === lead) : undefined;

  await recordReply(accountId, replyIdOf(mailbox.key), {
    email_id: email.id,
    from_email: f.sender,
    from_name: f.senderName,
    subject: f.subject,
    body_plain: f.body,
    classification,
    received_at: iso,
    sequence_id: email.sequence_id,
    kind: reading.kind,
    ...(failure && reading.kind === 'bounce' ? { bounce: { recipient: failure.address, status: failure.status, hard: failure.hard, reason: failure.reason } } : {}),
    ...(f.bodyTruncated ? { body_truncated: true } : {}),
  });

  let counted = false;
  if (reading.kind === 'reply') {
    // Only the lead's own address speaks for the lead: a CC's answer (or anyone else's) is recorded, not counted.
    if (f.sender === lead) {
      counted = true;
      await markLead(accountId, email.to.email, 'replied_at', iso);
      await transition(accountId, email.id, ['sent'], { status: 'replied', replied_at: iso, updated_at: iso });
      if (email.sequence_id) await stopEnrollment(accountId, email.to.email, email.sequence_id, 'replied', 'recipient_replied', { clock });
      // Counted once per email, the service's `replies` metric with it (deliverability.repository.ts).
      await countOnce(email.from_account, email.id, 'replied', now);
    }
  } else if (reading.kind === 'bounce' && failure) {
    if (failure.hard) {
      await recordBounce(email, iso);
      await suppress(accountId, email.to.email, 'bounced', iso);
      await reportInboundHardBounce(email.to.email, accountId, iso);
    }
    if (email.sequence_id) await stopEnrollment(accountId, email.to.email, email.sequence_id, 'bounced', 'recipient_bounced', { clock });
    await countOnce(email.from_account, email.id, failure.hard ? 'bounced_hard' : 'bounced_soft', now);
  } else if (reading.kind === 'complaint' && (failure || reading.failed.length === 0)) {
    // A feedback report names the complaining recipient, or redacts it: either way it is about this email's lead.
    await suppress(accountId, email.to.email, 'complained', iso);
    if (email.sequence_id) await stopEnrollment(accountId, email.to.email, email.sequence_id, 'cancelled', 'recipient_complained', { clock });
    await countOnce(email.from_account, email.id, 'complained', now);
  }
  return { matched: true, classification, email_id: email.id, counted_as_lead_reply: counted };
}

/** The reply record's id for a message key (26 characters, as the ids it sits beside). */
const replyIdOf = (key: string) => createHash('sha256').update(`reply\u0000${key}`).digest('hex').slice(0, 26);

/** DynamoDB refuses the request itself (an item too large, a key too long): trying again cannot help. */
function isPermanent(e: unknown): boolean {
  const name = (e as { name?: string } | null)?.name ?? '';
  return name === 'ValidationException' || e instanceof TypeError || e instanceof RangeError || e instanceof SyntaxError;
}

/**
 * `receiveRawInbound` for a caller that must move on (a mailbox poll, the SES-receiving function): a failure
 * the message itself causes is unprocessable at once; any other failure is counted and thrown, so the poll
 * (or Lambda) tries again, until the third failed attempt at the same message, which is unprocessable too.
 * So no message can stall a mailbox, and a passing outage loses nothing.
 */
export async function handleInbound(raw: Buffer, mailbox: ReceivingMailbox, clock: Clock = serviceClock): Promise<InboundOutcome> {
  try {
    return await receiveRawInbound(raw, mailbox, clock);
  } catch (e) {
    if (isPermanent(e)) return unprocessable(mailbox, clock.now(), 'failed', { error: e });
    const attempts = await countFailedAttempt(mailbox.key, clock.now());
    if (attempts >= MAX_ATTEMPTS) return unprocessable(mailbox, clock.now(), 'failed', { error: e });
    throw e;
  }
}

/** Every header of a parsed message as sent (lower-case name → raw value). */
export function headerMap(m: ParsedMail): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const l of m.headerLines) headers[l.key] = l.line.slice(l.line.indexOf(':') + 1).trim();
  return headers;
}
