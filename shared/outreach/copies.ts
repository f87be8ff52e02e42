import type { MailAddress } from './mime.js';

/**
 * Who gets which message of one outreach email (issue 30 item 6; docs/outreach.md "CC/BCC copies and paged
 * lists"). The lead's message carries the email's tracking token: the unsubscribe link, the
 * `List-Unsubscribe` header and the open pixel. Every BCC recipient gets a message of their own with no Bcc
 * header, so no message reveals them. CC is visible to all (docs/decisions.md#outreach-emails), so every
 * message shows `To: <lead>` and `Cc: <cc>` wherever the engine allows it.
 *
 * How CC recipients get it depends on the engine:
 * - SES and SMTP deliver to the envelope, whatever the headers say: the lead's message goes to the lead
 *   alone, and the CC recipients get one copy together, showing the same To/Cc but without the token.
 * - The Gmail API and Microsoft Graph deliver to the message's own To/Cc/Bcc headers, so a message showing
 *   the CC recipients reaches them. There the lead's message goes to the lead and the CC recipients as one
 *   message (reply-all reaches everyone), so they see the lead's link and pixel (`sharedWith`): its
 *   unsubscribe link lets each visitor choose their own address (tracking.ts), and it offers no one-click
 *   unsubscribe. A BCC copy there shows only its own recipient.
 *
 * Addresses on the workspace's suppression list (`suppressed`) get nothing. The key of a BCC copy is its
 * place in the de-duplicated BCC list before that filter, so a copy keeps its key whatever is suppressed
 * between the send and a redelivery that resumes the copies.
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
  /** Only the lead's message carries the tracking token's unsubscribe link, header and pixel. */
  tracked: boolean;
  /** Who besides the lead gets this tracked message, and so its token: the CC recipients on Gmail and Graph. */
  sharedWith: string[];
}

const same = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

export function planMessages(
  email: { to: { email: string; name: string }; cc: string[]; bcc: string[] },
  envelopeDelivery: boolean,
  suppressed: (address: string) => boolean = () => false,
): PlannedMessage[] {
  const lead: MailAddress = { email: email.to.email, name: email.to.name };
  // An address that is the lead, or already on CC, gets the message once, as that.
  const allCc = email.cc.filter((a, i) => !same(a, lead.email) && email.cc.findIndex((b) => same(a, b)) === i);
  const bcc = email.bcc.filter((a, i) => !same(a, lead.email) && !allCc.some((c) => same(a, c)) && email.bcc.findIndex((b) => same(a, b)) === i);
  const cc = allCc.filter((a) => !suppressed(a));
  const shown = { to: [lead], cc };
  if (!envelopeDelivery) {
    const out: PlannedMessage[] = [{ key: 'lead', ...shown, deliver: { to: [lead.email], cc, bcc: [] }, tracked: true, sharedWith: cc }];
    bcc.forEach((address, i) => {
      if (!suppressed(address)) out.push({ key: `bcc${i}`, to: [{ email: address }], cc: [], deliver: { to: [address], cc: [], bcc: [] }, tracked: false, sharedWith: [] });
    });
    return out;
  }
  const out: PlannedMessage[] = [{ key: 'lead', ...shown, deliver: { to: [lead.email], cc: [], bcc: [] }, tracked: true, sharedWith: [] }];
  if (cc.length) out.push({ key: 'cc', ...shown, deliver: { to: [], cc, bcc: [] }, tracked: false, sharedWith: [] });
  bcc.forEach((address, i) => {
    if (!suppressed(address)) out.push({ key: `bcc${i}`, ...shown, deliver: { to: [], cc: [], bcc: [address] }, tracked: false, sharedWith: [] });
  });
  return out;
}

/** The CC and BCC addresses of an email, de-duplicated as `planMessages` does (the ones to check against the suppression list). */
export function copyAddresses(email: { to: { email: string }; cc: string[]; bcc: string[] }): string[] {
  const out: string[] = [];
  for (const a of [...email.cc, ...email.bcc]) if (!same(a, email.to.email) && !out.some((b) => same(a, b))) out.push(a);
  return out;
}

/** The state of each copy on the email record, from the send of the lead's message on. */
export type CopyState = 'due' | 'sending' | 'sent' | 'failed' | 'interrupted';
