import type { MessageHandler } from './dispatch.js';
import { runPeopleSearchJob } from '../search/people-search.js';
import { runPhoneEnrichJob } from '../enrichment/phone-job.js';

/** The search queue: people search and phone enrichment jobs. */
export const searchHandlers: Record<string, MessageHandler> = {
  people_search: (m, r) => runPeopleSearchJob(m.job_id as string, r),
  phone_enrich: (m, r) => runPhoneEnrichJob(m.job_id as string, r),
};
