import { simpleParser, type AddressObject } from 'mailparser';

/**
 * `GET /api/console/v1/dev/mailbox/`: what was sent, read from the SES stand-in's store and reshaped to
 * DESIGN.md §2's message fields. Raw MIME messages are parsed so headers (Message-ID, List-Unsubscribe…)
 * show as sent.
 */
export interface MailboxMessage {
  message_id: string | null;
  from: string | null;
  to: string[];
  cc: string[];
  bcc: string[];
  reply_to: string | null;
  subject: string;
  text: string;
  html: string;
  headers: Record<string, string>;
  sent_at: string;
}

interface StoredEmail {
  messageId: string;
  from: string;
  replyTo?: string[];
  destination: { to?: string[]; cc?: string[]; bcc?: string[] };
  subject: string;
  body: { text?: string; html?: string };
  rawEmail?: string;
  at: number;
}

const addrs = (a: AddressObject | AddressObject[] | undefined): string[] =>
  (Array.isArray(a) ? a : a ? [a] : []).flatMap((x) => x.value.map((v) => v.address ?? '')).filter(Boolean);

export async function localMailbox(sesEndpoint: string): Promise<MailboxMessage[]> {
  const res = await fetch(`${sesEndpoint}/store`);
  const { emails } = (await res.json()) as { emails: StoredEmail[] };
  const out: MailboxMessage[] = [];
  for (const e of emails) {
    const sentAt = new Date(e.at * (e.at < 1e12 ? 1000 : 1)).toISOString();
    if (e.rawEmail) {
      const m = await simpleParser(e.rawEmail);
      const headers: Record<string, string> = {};
      for (const [k, v] of m.headers) headers[k] = typeof v === 'string' ? v : JSON.stringify(v);
      for (const l of m.headerLines) headers[l.key] = l.line.slice(l.line.indexOf(':') + 1).trim();
      out.push({
        message_id: m.messageId ?? null,
        from: addrs(m.from)[0] ?? e.from,
        to: addrs(m.to).length ? addrs(m.to) : (e.destination.to ?? []),
        cc: addrs(m.cc),
        bcc: e.destination.bcc ?? [],
        reply_to: addrs(m.replyTo)[0] ?? null,
        subject: m.subject ?? '',
        text: m.text ?? '',
        html: typeof m.html === 'string' ? m.html : '',
        headers,
        sent_at: sentAt,
      });
    } else {
      out.push({
        message_id: e.messageId,
        from: e.from,
        to: e.destination.to ?? [],
        cc: e.destination.cc ?? [],
        bcc: e.destination.bcc ?? [],
        reply_to: e.replyTo?.[0] ?? null,
        subject: e.subject,
        text: e.body.text ?? '',
        html: e.body.html ?? '',
        headers: {},
        sent_at: sentAt,
      });
    }
  }
  return out;
}
