import { isEmptyQuery } from '../search-engine/query.js';
import type { SQSRecord } from 'aws-lambda';
import { QUEUES } from '../catalog/queues.js';
import { FAILURE_MESSAGES } from '../webhooks/events.js';
import { PRICES } from '../accounts/prices.js';
import { runJob, type JobOutcome } from '../jobs/run-job.js';
import type { Job } from '../jobs/model.js';
import { toDeepSearchItem } from '../directory/shape.js';
import { emailStatusOf } from '../email-status/email-status.js';
import type { Company, Person } from '../directory/types.js';
import { findContact } from '../enrichment/identity.js';
import { understanding } from '../understanding/understanding.js';
import { withSearchEngine } from './engine-source.js';
import type { SearchEngine } from '../search-engine/search-port.js';
import { deepShortlist } from '../search-engine/deep-search-shortlist.js';
import { FIT_WEIGHTS } from '../search-engine/fit-score.js';
import type { DeepSearchRequest } from './deep-search-accept.js';
import { optedOutCheck, type OptedOutCheck } from './visible-page.js';

/**
 * Running a deep search (accepted by deep-search-accept.ts): up to 25 people `standard`, 100 `extended`.
 */
export const DEEP_SEARCH_SIZE = { standard: 25, extended: 100 } as const;

/** What researching one candidate asks of the outside world: their work email, or null when none is known. */
export interface DeepSearchResearch {
  workEmail(person: Person, company: Company): Promise<string | null>;
}

/** The enrichment engine's own lookup (as POST /enrich/email/ resolves it): profile URL, then name + domain. */
export const enrichmentResearch: DeepSearchResearch = {
  workEmail: async (person, company) => {
    const hit = await findContact({ professional_url: person.professional_url, first_name: person.first_name, last_name: person.last_name, domain: company.domain }, ['url', 'namedomain']);
    return hit?.work_email ?? null;
  },
};

/** Lookups in flight at once while researching a shortlist. */
const RESEARCH_CONCURRENCY = 8;

async function mapBounded<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return out;
}

/**
 * The outcome of one run, deterministic for a job (recency is dated from its acceptance), so a retry after
 * a crash computes the same list.
 * 1. An empty reading of the query fails as `invalid_input` (released).
 * 2. The shortlist (deep-search-shortlist.ts) for the mode's size.
 * 3. Every candidate researched: work email from the enrichment engine, experience from the directory.
 * 4. Charged the mode's price, zero results included; the polling envelope also keeps each score's parts.
 */
export async function deepSearchOutcome(job: Job, engine: SearchEngine, research: DeepSearchResearch, optedOut: OptedOutCheck = optedOutCheck): Promise<JobOutcome> {
  const request = job.request as DeepSearchRequest;
  const parsed = await understanding().parseQuery(request.query);
  if (isEmptyQuery(parsed)) return { status: 'failed', event_type: 'deep_search.failed', code: 'invalid_input', message: FAILURE_MESSAGES.deep_search.invalid_input };
  // People who opted out are left out of the shortlist, which fills past them (visible-page.ts).
  const shortlist = await deepShortlist(engine, parsed, { size: DEEP_SEARCH_SIZE[request.mode], asOf: new Date(job.created_at), hidden: optedOut });
  const emails = await mapBounded(shortlist, RESEARCH_CONCURRENCY, (e) => research.workEmail(e.person, e.company));
  // Each found email with its status (shared/email-status), as the email finder answers it; none without an email.
  const statuses = await mapBounded(
    shortlist.map((e, i) => ({ e, email: emails[i] })),
    RESEARCH_CONCURRENCY,
    ({ e, email }) => (email ? emailStatusOf(email, { first_name: e.person.first_name, last_name: e.person.last_name, accept_all: e.company.accept_all }) : Promise.resolve(null)),
  );
  const results = shortlist.map((e, i) => ({ ...toDeepSearchItem(e.person, e.company, e.score), email: emails[i] ?? '', ...statuses[i] }));
  return {
    status: 'completed',
    event_type: 'deep_search.completed',
    result: { results, total_returned: results.length },
    leads_returned: results.length,
    charge: PRICES.deep_search[request.mode],
    extra: {
      parsed_query: parsed,
      score_breakdown: { weights: FIT_WEIGHTS, items: shortlist.map((e, i) => ({ professional_url: results[i]!.professional_url, score: e.score, parts: e.parts })) },
    },
  };
}

export function runDeepSearchJob(jobId: string, record: SQSRecord | null, research: DeepSearchResearch = enrichmentResearch): Promise<void> {
  return runJob(
    jobId,
    record,
    (job) => withSearchEngine({ event_type: 'deep_search.failed', message: FAILURE_MESSAGES.deep_search.error }, (engine) => deepSearchOutcome(job, engine, research)),
    () => ({ status: 'failed', event_type: 'deep_search.failed', code: 'error', message: FAILURE_MESSAGES.deep_search.error }),
    { maxReceiveCount: QUEUES.search.maxReceiveCount },
  );
}
