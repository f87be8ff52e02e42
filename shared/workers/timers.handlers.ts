import type { MessageHandler } from './dispatch.js';
import { webhookRetryDue } from '../webhooks/job-webhooks.js';
import { sendDue } from '../outreach/send-email.js';
import { expireReview } from '../outreach/review.js';

/** The timers queue: every one-time Scheduler schedule lands here as `{kind, ...}`. */
export const timerHandlers: Record<string, MessageHandler> = {
  webhook_retry: (m) => webhookRetryDue({ job_id: m.job_id as string, attempt: Number(m.attempt) }),
  send_due: (m) => sendDue(m.account_id as string, m.email_id as string),
  review_expired: (m) => expireReview(m.account_id as string, m.email_id as string),
};
