/**
 * Inbound mail triage for sequences: a reply stops the contact's remaining steps, a bounce marks the
 * enrollment bounced, an auto-reply (out of office, autoresponders, delay notices) changes nothing.
 *
 * `classifyInbound` reads the flattened shape `dev/inbound` and the SES receiver pass around (from, to,
 * subject, text, headers) with the same recogniser as `readParsedMail` (shared/outreach/mail-reading.ts);
 * given the raw message, prefer `readRawMail`, which also sees the report parts and names the failed
 * recipients. A bounce needs evidence (a delivery-status report, or a mail-system sender with a bounce
 * subject or a failure naming a recipient): a person's "Undeliverable: …" subject, or an
 * X-Failed-Recipients header on an ordinary message, is not one. An ARF complaint has no class of its
 * own here and is returned as `auto_reply` (recorded, nothing else changes).
 */
import { recognise } from './mail-reading/recognise.js';
import { parseContentType } from './mail-reading/text.js';
import { emptyView } from './mail-reading/view.js';

export { addressOf, extractMessageIds } from './mail-reading/text.js';

export type InboundClassification = 'reply' | 'bounce' | 'auto_reply';

export interface InboundMessage {
  from: string;
  to: string;
  subject: string;
  text: string;
  headers: Record<string, string>;
  in_reply_to?: string | null;
}

export function classifyInbound(msg: InboundMessage): InboundClassification {
  const view = emptyView();
  for (const [name, value] of Object.entries(msg.headers ?? {})) {
    const key = name.trim().toLowerCase();
    const list = view.headers.get(key);
    if (list) list.push(String(value ?? ''));
    else view.headers.set(key, [String(value ?? '')]);
  }
  if (!view.headers.has('from')) view.headers.set('from', [msg.from ?? '']);
  if (!view.headers.has('to')) view.headers.set('to', [msg.to ?? '']);
  if (!view.headers.has('subject')) view.headers.set('subject', [msg.subject ?? '']);
  if (msg.in_reply_to && !view.headers.has('in-reply-to')) view.headers.set('in-reply-to', [msg.in_reply_to]);
  const { type, params } = parseContentType(view.headers.get('content-type')?.[0]);
  view.contentType = type || 'text/plain';
  view.reportType = (params.get('report-type') ?? '').toLowerCase();
  view.notice = [(msg.text ?? '').slice(0, 200_000)];
  const { kind } = recognise(view);
  return kind === 'complaint' ? 'auto_reply' : kind;
}
