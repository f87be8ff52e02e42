import { serviceClock, type Clock } from '../core/clock.js';
import { findByTrackToken, getEmail, recordOpen as recordEmailOpen, type EmailRef } from './emails.repository.js';
import { suppress } from './leads.repository.js';
import { countOnce } from './deliverability.repository.js';
import { logger } from '../core/logger.js';

/**
 * The public, credential-free endpoints a recipient's mail client calls, addressed by an unguessable
 * per-email token (192 random bits): the open pixel and the unsubscribe link (one-click, RFC 8058, when the
 * lead alone got the token). On Gmail and Graph the CC recipients get the lead's own message (copies.ts):
 * their opens count as the lead's, and its link lets each of them unsubscribe only their own address.
 */
export async function recordOpen(token: string, clock: Clock = serviceClock): Promise<boolean> {
  const ref = await findByTrackToken(token);
  if (!ref) return false;
  // A pixel fetched before the send was recorded (or for a cancelled email) counts nothing.
  const now = clock.now();
  if (await recordEmailOpen(ref, now.toISOString())) await countOn(ref, 'opened', now);
  return true;
}

/** The first open or unsubscribe of an email counts on its sending account's deliverability record (once). */
async function countOn(ref: EmailRef & { ea_id?: string }, counter: 'opened' | 'unsubscribed', now: Date): Promise<void> {
  const eaId = ref.ea_id ?? (await getEmail(ref.account_id, ref.email_id))?.from_account;
  if (eaId) await countOnce(eaId, ref.email_id, counter, now);
}

/**
 * The addresses an unsubscribe link may unsubscribe: the lead, then whoever else got the message carrying
 * its token (`shared_with`: the CC recipients of a Gmail or Graph sender, who get the lead's own message).
 */
export function unsubscribeChoices(lead: string, sharedWith: string[] | undefined): string[] {
  const out = [lead.trim().toLowerCase()];
  for (const a of sharedWith ?? []) {
    const address = a.trim().toLowerCase();
    if (address && !out.includes(address)) out.push(address);
  }
  return out;
}

/**
 * Whom a POST unsubscribes. A link only the lead got unsubscribes the lead, whatever the body says (the page's
 * button or an RFC 8058 one-click POST). A link several people got unsubscribes only the address the visitor
 * chose on the page, one of its recipients; nothing otherwise (a one-click POST the message never offered, a
 * missing or foreign choice): a CC pressing a button must never stop the lead.
 */
export function chosenRecipient(choices: string[], chosen: string | null | undefined): string | null {
  if (choices.length === 1) return choices[0]!;
  const address = chosen?.trim().toLowerCase();
  return address && choices.includes(address) ? address : null;
}

/** The link behind a token: its email, and the addresses it may unsubscribe (the lead first). Null: unknown. */
export async function unsubscribeLink(token: string): Promise<{ ref: EmailRef & { ea_id?: string }; choices: string[] } | null> {
  const ref = await findByTrackToken(token);
  if (!ref) return null;
  const email = await getEmail(ref.account_id, ref.email_id);
  return { ref, choices: unsubscribeChoices(ref.recipient, email?.shared_with) };
}

/**
 * An unsubscribe through a token: the chosen address (`chosenRecipient`) goes on the workspace's suppression
 * list, and the email's first unsubscribe counts on its sending account's deliverability record. The lead's
 * address stops every later send to the lead (a sequence's next step ends `unsubscribed`); a CC's only
 * leaves that address off later emails. `unsubscribed` null: nothing done, the visitor has to choose. Null:
 * an unknown token.
 */
export async function unsubscribe(token: string, chosen: string | null = null, clock: Clock = serviceClock): Promise<{ unsubscribed: string | null; choices: string[] } | null> {
  const link = await unsubscribeLink(token);
  if (!link) return null;
  const address = chosenRecipient(link.choices, chosen);
  if (!address) return { unsubscribed: null, choices: link.choices };
  const now = clock.now();
  // The suppression is the unsubscribe, written first; once it holds the answer confirms it (RFC 8058: never
  // refused), even when the deliverability count after it fails (logged; the record stays as it was).
  await suppress(link.ref.account_id, address, 'unsubscribed', now.toISOString());
  await countOn(link.ref, 'unsubscribed', now).catch((error: unknown) => logger.error('unsubscribe recorded; its deliverability count failed', { email_id: link.ref.email_id, error: error as Error }));
  return { unsubscribed: address, choices: link.choices };
}

/** A 1×1 transparent GIF. */
export const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
