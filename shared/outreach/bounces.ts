import { transition } from './emails.repository.js';
import { markLead } from './leads.repository.js';
import type { EmailRecord } from './model.js';

/**
 * A hard bounce of a sent email, however it was learnt (a delivery report in the receiving mailbox naming the
 * lead, an SES bounce event): the lead is marked bounced, so later sends to them fail, and the email's `error`
 * says so. Both writes are idempotent and stay within the email's account. Whether the address becomes invalid
 * for every account is the caller's decision (shared/email-status/mail-evidence.repository.ts): an SES event
 * says so by itself, a report in a mailbox only once independent accounts agree.
 */
export async function recordBounce(email: EmailRecord, now: string): Promise<void> {
  await markLead(email.account_id, email.to.email, 'bounced_at', now);
  await transition(email.account_id, email.id, ['sent', 'replied'], { error: { code: 'bounced', message: 'The recipient’s mail server returned the email as undeliverable.' }, updated_at: now });
}
