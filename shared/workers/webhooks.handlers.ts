import type { MessageHandler } from './dispatch.js';
import { deliverJobEvent } from '../webhooks/job-webhooks.js';

/** The webhooks queue: one delivery attempt per message. */
export const webhooksHandlers: Record<string, MessageHandler> = {
  deliver_job_event: (m) => deliverJobEvent(m.job_id as string, Number(m.attempt ?? 1)),
};
