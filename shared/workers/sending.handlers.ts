import type { MessageHandlers } from './dispatch.js';
import { sendEmail } from '../outreach/send-email.js';
import { sendTestEmail } from '../test-emails/send-test-email.js';

/** The sending queue: one send per message. */
export const sendingHandlers: MessageHandlers<'sending'> = {
  send_email: (m) => sendEmail(m.account_id, m.email_id),
  send_test_email: (m) => sendTestEmail(m.account_id, m.test_email_id),
};
