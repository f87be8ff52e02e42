import type { MessageHandler } from './dispatch.js';
import { draftEmail } from '../outreach/drafting.js';

/** The drafting queue: one outreach draft per message. */
export const draftingHandlers: Record<string, MessageHandler> = {
  draft_email: (m, r) => draftEmail(m.account_id as string, m.email_id as string, r),
};
