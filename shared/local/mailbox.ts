import { createHash } from 'node:crypto';
import { simpleParser, type AddressObject } from 'mailparser';
import type { CapturedSend } from './ses-capture.js';
import { headerMap } from '../outreach/inbound-mail.js';

/**
 * `GET /api/console/v1/dev/mailbox/`: what was sent through SES (as captured on its way to the SES
 * stand-in), reshaped to the message fields of docs/decisions.md#dev-controls. Raw MIME is parsed so the headers show as sent.
 */
export interface MailboxMessage {
  message_id: string | null;
  from: string | null;
  to: string[];
  cc: string[];
  bcc: string[];
  /** Who the message was actually delivered to: the SES destination or SMTP envelope, or a mailbox provider's header recipients. */
  delivered_to: string[];
  reply_to: string | null;
  subject: string;
  text: string;
  html: string;
  headers: Record<string, string>;
  /** Attached files as received: name, type, size and a SHA-256 of the bytes (contents stay out of the listing). */
  attachments: { filename: string; content_type: string; size_bytes: number; sha256: string }[];
  sent_at: string;
}

const addrs = (a: AddressObject | AddressObject[] | undefined): string[] =>
  (Array.isArray(a) ? a : a ? [a] : []).flatMap((x) => x.value.map((v) => v.address ?? '')).filter(Boolean);

export async function localMailbox(sends: CapturedSend[]): Promise<MailboxMessage[]> {
  const out: MailboxMessage[] = [];
  for (const s of sends) {
    const sent_at = new Date(s.at).toISOString();
    const d = s.destination;
    if (s.raw) {
      const m = await simpleParser(s.raw);
      const headers = headerMap(m);
      const to = d.ToAddresses ?? addrs(m.to);
      const cc = d.CcAddresses ?? addrs(m.cc);
      const visible = new Set([...to, ...cc].map((a) => a.toLowerCase()));
      const delivered = s.envelope_to ?? (s.provider ? [...addrs(m.to), ...addrs(m.cc), ...(d.BccAddresses ?? [])] : [...(d.ToAddresses ?? []), ...(d.CcAddresses ?? []), ...(d.BccAddresses ?? [])]);
      out.push({
        message_id: m.messageId ?? null,
        from: addrs(m.from)[0] ?? s.from,
        to,
        cc,
        bcc: d.BccAddresses ?? (s.envelope_to ?? []).filter((a) => !visible.has(a.toLowerCase())),
        delivered_to: delivered,
        reply_to: addrs(m.replyTo)[0] ?? null,
        subject: m.subject ?? '',
        text: m.text ?? '',
        html: typeof m.html === 'string' ? m.html : '',
        headers,
        attachments: m.attachments.map((a) => ({ filename: a.filename ?? '', content_type: a.contentType, size_bytes: a.size, sha256: createHash('sha256').update(a.content).digest('hex') })),
        sent_at,
      });
    } else {
      out.push({
        message_id: s.provider_message_id,
        from: s.from,
        to: d.ToAddresses ?? [],
        cc: d.CcAddresses ?? [],
        bcc: d.BccAddresses ?? [],
        delivered_to: [...(d.ToAddresses ?? []), ...(d.CcAddresses ?? []), ...(d.BccAddresses ?? [])],
        reply_to: null,
        subject: s.simple?.subject ?? '',
        text: s.simple?.text ?? '',
        html: s.simple?.html ?? '',
        headers: {},
        attachments: [],
        sent_at,
      });
    }
  }
  return out;
}
