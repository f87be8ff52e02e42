import type { MessageHandlers } from './dispatch.js';
import { runPeopleSearchJob } from '../search/people-search-run.js';
import { runPhoneEnrichJob } from '../enrichment/phone-job.js';
import { runBulkEnrichJob } from '../enrichment/bulk-job.js';
import { runDeepSearchJob } from '../search/deep-search.js';
import { runAgenticStep } from '../agentic/research-step.js';

/** The search queue: people search, deep search, phone and bulk enrichment jobs, and the steps of agentic searches. */
export const searchHandlers: MessageHandlers<'search'> = {
  people_search: (m, r) => runPeopleSearchJob(m.job_id, r),
  phone_enrich: (m, r) => runPhoneEnrichJob(m.job_id, r),
  deep_search: (m, r) => runDeepSearchJob(m.job_id, r),
  bulk_enrich: (m, r) => runBulkEnrichJob(m.job_id, r),
  agentic_step: (m) => runAgenticStep(m.job_id, m.step),
};
