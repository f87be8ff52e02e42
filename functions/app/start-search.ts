import { paidUserRoute, userCallerId } from '../../shared/http/handler.js';
import { parseIdempotencyKey } from '../../shared/jobs/accept-job.js';
import { PeopleSearchSchema, acceptPeopleSearch } from '../../shared/search/people-search.js';

/** POST /api/app/v1/search/: a people search started from the web app, accepted and charged as POST /search/ is. */
export const handler = paidUserRoute('people_search', { body: PeopleSearchSchema }, async ({ accountId, userSub, body, headers }) => {
  const { body: accepted } = await acceptPeopleSearch({ accountId, keyId: userCallerId(userSub) }, body, parseIdempotencyKey(headers));
  return { status: 202, body: accepted };
});
