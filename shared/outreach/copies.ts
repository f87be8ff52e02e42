import type { MailAddress } from './mime.js';

/**
 * Who gets which message of one outreach email (issue 30 item 6). The lead's copy alone carries the lead's
 * unsubscribe link, its `List-Unsubscribe` headers and the open pixel, all keyed by the email's tracking
 * token: a colleague on CC must not be able to unsubscribe the lead, and their opens are not the lead's.
 * So CC and BCC recipients get copies of their own, without any of those, and every BCC recipient gets a
 * message of their own with no Bcc header, so no copy reveals them.
 *
 * What a message shows depends on the engine:
 * - SES and SMTP deliver to the envelope, whatever the headers say: every message shows `To: lead` and
 *   `Cc: <cc>` (docs/decisions.md#outreach-emails: CC is visible to all) and goes only to its own recipients.
 * - The Gmail API and Microsoft Graph deliver to the message's own To/Cc/Bcc headers, so a message shown to
 *   the lead with a Cc header would reach the CC recipients too, link and pixel included. There the lead's
 *   copy shows only the lead, and each copy shows only its own recipients.
 */
export type CopyKey = 'cc' | `bcc${number}`;

export interface PlannedMessage {
  /** `lead`, or the copy's key in the email's `copies` map. */
  key: 'lead' | CopyKey;
  /** Headers. */
  to: MailAddress[];
  cc: string[];
  /** Where the engine delivers it (envelope engines), the same as the headers otherwise. */
  deliver: { to: string[]; cc: string[]; bcc: string[] };
  /** Only the lead's copy carries the tracking token's unsubscribe link, headers and pixel. */
  tracked: boolean;
}

export function planMessages(email: { to: { email: string; name: string }; cc: string[]; bcc: string[] }, envelopeDelivery: boolean): PlannedMessage[] {
  const lead: MailAddress = { email: email.to.email, name: email.to.name };
  const same = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();
  // An address that is the lead, or already on CC, gets the message once, as that.
  const cc = email.cc.filter((a, i) => !same(a, lead.email) && email.cc.findIndex((b) => same(a, b)) === i);
  const bcc = email.bcc.filter((a, i) => !same(a, lead.email) && !cc.some((c) => same(a, c)) && email.bcc.findIndex((b) => same(a, b)) === i);
  const shown = envelopeDelivery ? { to: [lead], cc } : null;
  const out: PlannedMessage[] = [{ key: 'lead', to: [lead], cc: shown ? cc : [], deliver: { to: [lead.email], cc: [], bcc: [] }, tracked: true }];
  if (cc.length) out.push({ key: 'cc', ...(shown ?? { to: cc.map((email) => ({ email })), cc: [] }), deliver: shown ? { to: [], cc, bcc: [] } : { to: cc, cc: [], bcc: [] }, tracked: false });
  bcc.forEach((address, i) =>
    out.push({ key: `bcc${i}`, ...(shown ?? { to: [{ email: address }], cc: [] }), deliver: shown ? { to: [], cc: [], bcc: [address] } : { to: [address], cc: [], bcc: [] }, tracked: false }),
  );
  return out;
}

/** The state of each copy on the email record, from the send of the lead's copy on. */
export type CopyState = 'due' | 'sending' | 'sent' | 'failed' | 'interrupted';
