import { applySesEvent } from '../outreach/ses-events.js';
import type { MessageHandlers } from './dispatch.js';

export const mailEventHandlers: MessageHandlers<'mail-events'> = {
  ses_event: async (m) => {
    await applySesEvent(m.event);
  },
};
