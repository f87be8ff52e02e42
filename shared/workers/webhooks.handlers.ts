import type { MessageHandlers } from './dispatch.js';
import { deliverJobEvent } from '../jobs/job-webhooks.js';

/** The webhooks queue: one delivery attempt per message. */
export const webhooksHandlers: MessageHandlers<'webhooks'> = {
  deliver_job_event: (m) => deliverJobEvent(m.job_id, m.attempt),
};
