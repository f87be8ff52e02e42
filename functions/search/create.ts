import { publicRoute } from '../../shared/http/handler.js';
import { parseIdempotencyKey } from '../../shared/jobs/accept-job.js';
import { PeopleSearchSchema, acceptPeopleSearch } from '../../shared/search/people-search.js';

/** POST /search/: accept a people search (202); results by webhook and polling. */
export const handler = publicRoute({ body: PeopleSearchSchema, paidOperation: 'people_search' }, async ({ accountId, keyId, body, headers }) => {
  const { body: accepted } = await acceptPeopleSearch({ accountId: accountId, keyId }, body, parseIdempotencyKey(headers));
  return { status: 202, body: accepted };
});
