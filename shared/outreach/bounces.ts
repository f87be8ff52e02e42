import { transition } from './emails.repository.js';
import { markLead } from './leads.repository.js';
import { recordHardBounce } from '../email-status/mail-evidence.repository.js';
import type { EmailRecord } from './model.js';

/**
 * A bounce of a sent email, however it was learnt (a delivery-status message in the inbox, an SES bounce
 * event): the lead is marked bounced, so later sends to them fail, and the email's `error` says so. Both
 * writes are idempotent. The address is also invalid from now on for every account's enrichments (the shared,
 * account-free evidence of shared/email-status). Apart from inbound-mail.ts so the SES event worker does not bundle the MIME parser.
 */
export async function recordBounce(email: EmailRecord, now: string): Promise<void> {
  await markLead(email.account_id, email.to.email, 'bounced_at', now);
  await recordHardBounce(email.to.email, now);
  await transition(email.account_id, email.id, ['sent', 'replied'], { error: { code: 'bounced', message: 'The recipient’s mail server returned the email as undeliverable.' }, updated_at: now });
}
