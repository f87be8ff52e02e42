import type { MessageHandlers } from './dispatch.js';
import { draftEmail } from '../outreach/drafting.js';

/** The drafting queue: one outreach draft per message. */
export const draftingHandlers: MessageHandlers<'drafting'> = {
  draft_email: (m, r) => draftEmail(m.account_id, m.email_id, r),
};
