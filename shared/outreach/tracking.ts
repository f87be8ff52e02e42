import { serviceClock, type Clock } from '../core/clock.js';
import { findByTrackToken, getEmail, recordOpen as recordEmailOpen, type EmailRef } from './emails.repository.js';
import { suppress } from './leads.repository.js';
import { countOnce } from './deliverability.repository.js';

/**
 * The public, credential-free endpoints a recipient's mail client calls, addressed by an unguessable
 * per-email token (192 random bits): the open pixel and the one-click unsubscribe (RFC 8058).
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

export async function unsubscribe(token: string, clock: Clock = serviceClock): Promise<boolean> {
  const ref = await findByTrackToken(token);
  if (!ref) return false;
  const now = clock.now();
  await suppress(ref.account_id, ref.recipient, 'unsubscribed', now.toISOString());
  await countOn(ref, 'unsubscribed', now);
  return true;
}

/** A 1×1 transparent GIF. */
export const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
