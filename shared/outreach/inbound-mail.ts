import * as z from '../core/zod.js';
import { simpleParser, type ParsedMail } from 'mailparser';
import { serviceClock, type Clock } from '../core/clock.js';
import { newId } from '../core/ids.js';
import { addressOf, classifyInbound, extractMessageIds, type InboundClassification } from './inbound.js';
import { findByMessageId, getEmail, recordReply, transition, type EmailRef } from './emails.repository.js';
import { markLead } from './leads.repository.js';
import { recordBounce } from './bounces.js';
import { stopEnrollment } from '../sequences/cadence.js';
import { countOnce } from './deliverability.repository.js';

/**
 * Inbound mail (the Inbox port): a received message is matched to the email it answers through
 * In-Reply-To / References and classified `reply`, `bounce` or `auto_reply`.
 * - reply from the lead: `replied_at`, wire status `replied`, and the lead is marked so further sends to
 *   them stop; a reply from a cc address does not count as the lead replying;
 * - bounce: the lead is marked bounced (later sends to them fail) and the email's `error` says so;
 * - auto_reply: recorded only.
 * A lead's reply and a bounce also count on the sending account's deliverability record, once per email.
 * In AWS, SES receiving (to S3) feeds this; locally `POST /api/console/v1/dev/inbound/`.
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

export interface InboundOutcome {
  matched: boolean;
  classification: InboundClassification;
  email_id: string | null;
  counted_as_lead_reply: boolean;
}

/**
 * `replyId`: a mailbox poller names the reply record after the provider's message id, so a message seen
 * twice (a poll that ended before its cursor moved) writes the same record again rather than a second one.
 */
export async function receiveInbound(msg: z.output<typeof InboundSchema>, clock: Clock = serviceClock, replyId?: string): Promise<InboundOutcome> {
  const classification = classifyInbound({ ...msg, in_reply_to: msg.in_reply_to ?? null });
  const headerValue = (name: string) => Object.entries(msg.headers).find(([k]) => k.toLowerCase() === name)?.[1];
  const ids = [...extractMessageIds(msg.in_reply_to ?? headerValue('in-reply-to')), ...extractMessageIds(headerValue('references'))];
  let pointer: EmailRef | null = null;
  for (const id of ids) {
    pointer = await findByMessageId(id);
    if (pointer) break;
  }
  if (!pointer) return { matched: false, classification, email_id: null, counted_as_lead_reply: false };
  const accountId = pointer.account_id;
  const emailId = pointer.email_id;
  const email = await getEmail(accountId, emailId);
  if (!email) return { matched: false, classification, email_id: null, counted_as_lead_reply: false };
  const now = clock.now().toISOString();
  const sender = addressOf(msg.from).toLowerCase();

  await recordReply(accountId, replyId ?? newId('em', clock.now().getTime()).slice(3), {
    email_id: emailId,
    from_email: sender,
    from_name: msg.from.includes('<') ? msg.from.slice(0, msg.from.indexOf('<')).trim().replace(/^"|"$/g, '') : '',
    subject: msg.subject,
    body_plain: msg.text,
    classification,
    received_at: now,
    sequence_id: email.sequence_id,
  });

  let counted = false;
  if (classification === 'reply') {
    const fromCc = email.cc.some((c) => c.toLowerCase() === sender) && sender !== email.to.email.toLowerCase();
    if (!fromCc) {
      counted = true;
      await markLead(accountId, email.to.email, 'replied_at', now);
      await transition(accountId, emailId, ['sent'], { status: 'replied', replied_at: now, updated_at: now });
      if (email.sequence_id) await stopEnrollment(accountId, email.to.email, email.sequence_id, 'replied', 'recipient_replied', { clock });
      await countOnce(email.from_account, emailId, 'replied', clock.now());
    }
  } else if (classification === 'bounce') {
    await recordBounce(email, now);
    if (email.sequence_id) await stopEnrollment(accountId, email.to.email, email.sequence_id, 'bounced', 'recipient_bounced', { clock });
    // A delivery-status message is a permanent failure (a delay-only notice is an auto-reply).
    await countOnce(email.from_account, emailId, 'bounced_hard', clock.now());
  }
  return { matched: true, classification, email_id: emailId, counted_as_lead_reply: counted };
}

/** Every header of a parsed message as sent (lower-case name → raw value). */
export function headerMap(m: ParsedMail): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const l of m.headerLines) headers[l.key] = l.line.slice(l.line.indexOf(':') + 1).trim();
  return headers;
}

/**
 * A received message as raw MIME (SES receiving stores each one in S3): parsed with mailparser into the
 * same shape `dev/inbound` takes, then matched and classified the same way.
 */
export async function receiveRawInbound(raw: Buffer, clock: Clock = serviceClock, replyId?: string): Promise<InboundOutcome> {
  const m = await simpleParser(raw);
  const headers = headerMap(m);
  const text = (a: typeof m.from | typeof m.to) => (Array.isArray(a) ? a.map((x) => x.text).join(', ') : (a?.text ?? ''));
  return receiveInbound(
    InboundSchema.parse({
      from: text(m.from) || 'unknown@unknown.invalid',
      to: text(m.to) || 'unknown@unknown.invalid',
      subject: m.subject ?? '',
      // The line break that ends the last line of a MIME body is not part of what the sender wrote.
      text: (m.text ?? '').replace(/\s+$/, '').slice(0, 200_000),
      in_reply_to: m.inReplyTo ?? null,
      headers,
    }),
    clock,
    replyId,
  );
}
