import type { MessageHandlers } from './dispatch.js';
import { runPeopleSearchJob } from '../search/people-search.js';
import { runPhoneEnrichJob } from '../enrichment/phone-job.js';

/** The search queue: people search and phone enrichment jobs. */
export const searchHandlers: MessageHandlers<'search'> = {
  people_search: (m, r) => runPeopleSearchJob(m.job_id, r),
  phone_enrich: (m, r) => runPhoneEnrichJob(m.job_id, r),
};
