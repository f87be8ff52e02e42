import { pollAllMailboxes } from '../../shared/mailboxes/poll-mailboxes.js';

/** EventBridge Scheduler invokes this every MAILBOX_POLL.rateMinutes: new mail in every connected mailbox. */
export const handler = async () => pollAllMailboxes();
