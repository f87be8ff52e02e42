import type { SQSRecord } from 'aws-lambda';
import { QUEUES } from '../catalog/queues.js';
import { FAILURE_MESSAGES } from '../webhooks/events.js';
import { PRICES } from '../accounts/prices.js';
import { getJob } from '../jobs/jobs.repository.js';
import { runJob } from '../jobs/run-job.js';
import { toLead } from '../directory/shape.js';
import { understanding } from '../understanding/understanding.js';
import { isEmptyQuery, type ParsedQuery } from '../search-engine/query.js';
import { withSearchEngine } from './engine-source.js';
import { visiblePage } from './visible-page.js';

/** The queue worker's run of a people search accepted by people-search.ts: one page of leads from the engine. */
export function runPeopleSearchJob(jobId: string, record: SQSRecord | null): Promise<void> {
  return runJob(
    jobId,
    record,
    async (job) => {
      const j = job as typeof job & { search_query: string; parent_id?: string };
      const parent = j.parent_id ? await getJob(j.parent_id) : null;
      // A next page reads the query as its first page did (a language model may read it differently twice).
      const parsed = (parent?.parsed_query as ParsedQuery | undefined) ?? (await understanding().parseQuery(j.search_query));
      if (isEmptyQuery(parsed)) return { status: 'failed', event_type: 'search.failed', code: 'invalid_input', message: FAILURE_MESSAGES.search.invalid_input };
      const earlier = parent?.returned_ids ?? [];
      return withSearchEngine({ event_type: 'search.failed', message: FAILURE_MESSAGES.search.error }, async (engine) => {
        // The cursor lets an engine seek to the next page; the ids keep a page clear of earlier ones even when
        // the directory version changed between pages. People who opted out are left out (and not charged), and the
        // page is filled past them (visible-page.ts).
        const page = await visiblePage(engine, parsed, { limit: Number(job.request.max_results), exclude: new Set(earlier), after: parent?.search_after ?? undefined });
        const hits = page.hits;
        const results = hits.map((h) => toLead(h.person, h.company));
        return {
          status: 'completed',
          event_type: 'search.completed',
          result: { results, total_returned: results.length },
          leads_returned: results.length,
          charge: results.length * PRICES.people_search_per_lead,
          extra: { returned_ids: [...earlier, ...hits.map((h) => h.person.id)], search_after: page.after ?? parent?.search_after ?? null, parsed_query: parsed },
        };
      });
    },
    () => ({ status: 'failed', event_type: 'search.failed', code: 'error', message: FAILURE_MESSAGES.search.error }),
    { maxReceiveCount: QUEUES.search.maxReceiveCount },
  );
}
