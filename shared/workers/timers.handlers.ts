import type { MessageHandlers } from './dispatch.js';
import { webhookRetryDue } from '../jobs/job-webhooks.js';
import { sendDue } from '../outreach/send-email.js';
import { expireReview } from '../outreach/review.js';
import { endInFlightTestEmail } from '../test-emails/send-test-email.js';

/** The timers queue: every one-time Scheduler schedule lands here as a timer message. */
export const timerHandlers: MessageHandlers<'timers'> = {
  webhook_retry: (m) => webhookRetryDue({ job_id: m.job_id, attempt: m.attempt }),
  send_due: (m) => sendDue(m.account_id, m.email_id),
  review_expired: (m) => expireReview(m.account_id, m.email_id),
  test_email_timeout: async (m) => {
    await endInFlightTestEmail(m.account_id, m.test_email_id);
  },
};
