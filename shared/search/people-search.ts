import * as z from '../core/zod.js';
import { NotFoundError, ValidationError } from '../core/errors.js';
import { PRICES } from '../accounts/prices.js';
import { acceptJob } from '../jobs/accept-job.js';
import { getOwnJob } from '../jobs/jobs.repository.js';

/**
 * People search (docs/decisions.md#search-and-enrichment): 1 credit per lead returned, `max_results` reserved at
 * acceptance; `search_id` continues a completed search of the caller's with the next page that overlaps
 * none of the earlier pages. The worker's run is in people-search-run.ts, so that acceptance does not load the
 * search engine and its object store client.
 */
export const PeopleSearchSchema = z.lazy(() =>
  z
    .strictObject({
      // the 500 characters of docs/decisions.md#limits bound the query as sent, surrounding spaces included.
      query: z.optional(z.string().check(z.maxLength(500), z.refine((q) => q.trim().length > 0, 'must not be blank'))),
      search_id: z.optional(z.string().check(z.regex(/^dj_[0-9a-z]{26}$/, 'must be a dj_<id> people search id'))),
      max_results: z.number().check(z.int(), z.gte(25), z.lte(100)),
      webhook_url: z.string().check(z.maxLength(2048)),
    })
    .check(
      z.superRefine((v, ctx) => {
        if (v.query === undefined && v.search_id === undefined) ctx.addIssue({ code: 'custom', path: ['query'], message: 'query is required for a new search' });
        if (v.query !== undefined && v.search_id !== undefined) ctx.addIssue({ code: 'custom', path: ['query'], message: 'omit query when continuing with search_id' });
      }),
    ),
);

export async function acceptPeopleSearch(
  caller: { accountId: string; keyId: string },
  body: z.output<typeof PeopleSearchSchema>,
  idempotencyKey: string | undefined,
) {
  let extra: Record<string, unknown> = { search_query: body.query };
  if (body.search_id) {
    const parent = await getOwnJob(caller.accountId, body.search_id, 'people_search');
    if (!parent) throw new NotFoundError('search_id does not name one of your people searches.');
    if (parent.status !== 'completed') throw new ValidationError('search_id must name a completed people search.', [{ path: 'search_id', message: `that search is ${parent.status}` }]);
    extra = { search_query: (parent as unknown as { search_query: string }).search_query, parent_id: parent.id };
  }
  return acceptJob({
    accountId: caller.accountId,
    keyId: caller.keyId,
    tier: 'people_search',
    operation: 'people_search',
    request: body as Record<string, unknown> & { webhook_url: string },
    reserve: body.max_results * PRICES.people_search_per_lead,
    idempotencyKey,
    extra: extra as never,
  });
}
