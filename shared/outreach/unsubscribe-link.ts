import { NotFoundError } from '../core/errors.js';
import { unsubscribe, unsubscribeLink } from './tracking.js';

/**
 * The unsubscribe link (docs/decisions.md#decisions-the-contract-leaves-open): a GET only shows a confirmation page, because link scanners and
 * mail-security gateways fetch links without a person clicking; the page's button, and an RFC 8058
 * one-click POST from the mail client, suppress the address at once. An unknown token is a 404 either way.
 *
 * A link several people got (the lead's message with its CC recipients on Gmail and Graph) lists them
 * instead, one button each: the visitor chooses their own address, and a POST without a choice (such a
 * message offers no one-click) suppresses nobody and shows the page again (docs/outreach.md, CC section).
 */
export async function confirmUnsubscribeLink(token: string): Promise<{ choices: string[] }> {
  const link = await unsubscribeLink(token);
  if (!link) throw new NotFoundError('Unknown unsubscribe link.');
  return { choices: link.choices };
}

/** `unsubscribed` null: nothing suppressed, the visitor has to choose among `choices`. */
export async function followUnsubscribeLink(token: string, chosen: string | null = null): Promise<{ unsubscribed: string | null; choices: string[] }> {
  const out = await unsubscribe(token, chosen);
  if (!out) throw new NotFoundError('Unknown unsubscribe link.');
  return out;
}
