import type { MessageHandler } from './dispatch.js';
import { sendEmail } from '../outreach/send-email.js';

/** The sending queue: one send per message. */
export const sendingHandlers: Record<string, MessageHandler> = {
  send_email: (m) => sendEmail(m.account_id as string, m.email_id as string),
};
