import { paidUserRoute, userCallerId } from '../../shared/http/handler.js';
import { parseIdempotencyKey } from '../../shared/jobs/accept-job.js';
import { DeepSearchSchema, acceptDeepSearch } from '../../shared/search/deep-search-accept.js';

/** POST /api/app/v1/deep-search/: a deep search started from the web app, accepted and charged as POST /deep-search/ is. */
export const handler = paidUserRoute('deep_search', { body: DeepSearchSchema }, async ({ accountId, userSub, body, headers }) => ({
  status: 202,
  body: await acceptDeepSearch({ accountId, keyId: userCallerId(userSub) }, body, parseIdempotencyKey(headers)),
}));
