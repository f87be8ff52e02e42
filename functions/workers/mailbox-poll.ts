import { pollAllMailboxes } from '../../shared/outreach/poll-mailboxes.js';

/** EventBridge Scheduler invokes this every MAILBOX_POLL.rateMinutes: new mail in every connected mailbox. */
export const handler = async () => pollAllMailboxes();
