import { serviceClock, type Clock } from '../core/clock.js';
import { findByTrackToken, recordOpen as recordEmailOpen } from './emails.repository.js';
import { suppress } from './leads.repository.js';

/**
 * The public, credential-free endpoints a recipient's mail client calls, addressed by an unguessable
 * per-email token (192 random bits): the open pixel and the one-click unsubscribe (RFC 8058).
 */
export async function recordOpen(token: string, clock: Clock = serviceClock): Promise<boolean> {
  const ref = await findByTrackToken(token);
  if (!ref) return false;
  // A pixel fetched before the send was recorded (or for a cancelled email) counts nothing.
  await recordEmailOpen(ref, clock.now().toISOString());
  return true;
}

export async function unsubscribe(token: string, clock: Clock = serviceClock): Promise<boolean> {
  const ref = await findByTrackToken(token);
  if (!ref) return false;
  await suppress(ref.account_id, ref.recipient, 'unsubscribed', clock.now().toISOString());
  return true;
}

/** A 1×1 transparent GIF. */
export const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
