import { serviceClock, type Clock } from '../core/clock.js';
import { logger } from '../core/logger.js';
import { findByMessageId, getEmail } from './emails.repository.js';
import { suppress } from './leads.repository.js';
import { recordBounce } from './bounces.js';
import { stopEnrollment } from '../sequences/cadence.js';
import { mailEventApplied, recordMailEvent } from './mail-events.repository.js';
import { interpretSesEvent, type SesEvent, type SesFeedback } from '../catalog/ses-event-schema.js';
import { countOnce } from './deliverability.repository.js';
import { recordDelivery, recordHardBounce } from '../email-status/mail-evidence.repository.js';
import { patternOf } from '../email-status/classify.js';

/**
 * SES bounce and complaint events (configuration set → EventBridge → the mail-events queue → this use case).
 * The event's `mail.messageId` is the id SES returned at sending, stored as one of the email's Message-ID
 * pointers, so it finds the email as a reply would.
 * - permanent bounce: the email and its lead are marked bounced, as a bounce message in the inbox does, and
 *   every bounced address is suppressed (a hard bounce is honoured for good);
 * - complaint: every complaining address is suppressed, so a later email to it is refused as for an
 *   unsubscribed address;
 * - anything else (transient bounces included): logged only.
 * - every bounce (hard or soft), complaint and delivery is counted on the sending account's deliverability
 *   record, once per email and kind (shared/outreach/deliverability.repository.ts).
 * - a hard bounce of any recipient, and a delivery to the email's recipient, are kept as the shared evidence
 *   that decides email statuses for every account (shared/email-status), naming no account.
 * Every effect is idempotent, and an event id seen before is skipped outright: the same event twice has one
 * effect, and a late redelivery cannot act again on an email that has moved on.
 */
export interface SesEventOutcome {
  kind: SesFeedback['kind'] | 'duplicate' | 'unmatched';
  email_id: string | null;
}

export async function applySesEvent(event: SesEvent, clock: Clock = serviceClock): Promise<SesEventOutcome> {
  const feedback = interpretSesEvent(event);
  if (feedback.kind === 'ignored') {
    if (feedback.counts) {
      const pointer = await findByMessageId(`<${feedback.sesMessageId}>`);
      const email = pointer ? await getEmail(pointer.account_id, pointer.email_id) : null;
      if (email) await countOnce(email.from_account, email.id, feedback.counts, clock.now());
      if (email && feedback.counts === 'delivered') await recordDelivery(email.to.email, deliveredPattern(email.to), clock.now().toISOString());
    }
    logger.info('SES event ignored', { eventId: feedback.eventId, sesMessageId: feedback.sesMessageId, reason: feedback.reason });
    return { kind: 'ignored', email_id: null };
  }
  if (await mailEventApplied(feedback.eventId)) return { kind: 'duplicate', email_id: null };
  const now = clock.now();
  const pointer = await findByMessageId(`<${feedback.sesMessageId}>`);
  const email = pointer ? await getEmail(pointer.account_id, pointer.email_id) : null;
  if (!email) {
    // Not one of ours any more (expired), or a send of another kind (a test email): nothing to mark.
    logger.warn('SES event for no known email', { eventId: feedback.eventId, kind: feedback.kind, sesMessageId: feedback.sesMessageId });
    await recordMailEvent(feedback.eventId, { kind: 'unmatched', email_id: null }, now);
    return { kind: 'unmatched', email_id: null };
  }
  const iso = now.toISOString();
  if (feedback.kind === 'bounce') {
    if (feedback.recipients.includes(email.to.email.toLowerCase())) {
      await recordBounce(email, iso);
      if (email.sequence_id) await stopEnrollment(email.account_id, email.to.email, email.sequence_id, 'bounced', 'recipient_bounced', { clock });
    }
    for (const address of feedback.recipients) {
      await suppress(email.account_id, address, 'bounced', iso);
      await recordHardBounce(address, iso);
    }
    await countOnce(email.from_account, email.id, 'bounced_hard', now);
  } else {
    for (const address of feedback.recipients) await suppress(email.account_id, address, 'complained', iso);
    await countOnce(email.from_account, email.id, 'complained', now);
  }
  await recordMailEvent(feedback.eventId, { kind: feedback.kind, email_id: email.id }, now);
  return { kind: feedback.kind, email_id: email.id };
}

/** The pattern a delivered address confirms, read against the recipient's name as the email was addressed. */
function deliveredPattern(to: { email: string; name: string }): string | null {
  const words = to.name.trim().split(/\s+/).filter(Boolean);
  if (words.length < 2) return null;
  return patternOf(to.email.slice(0, to.email.lastIndexOf('@')), words[0], words.at(-1));
}
