import { publicRoute } from '../../shared/http/handler.js';
import { parseIdempotencyKey } from '../../shared/jobs/accept-job.js';
import { DeepSearchSchema, acceptDeepSearch } from '../../shared/search/deep-search-accept.js';

/** POST /deep-search/: accept a deep search (202); the researched shortlist by webhook and polling. */
export const handler = publicRoute({ body: DeepSearchSchema, paidOperation: 'deep_search' }, async ({ accountId, keyId, body, headers }) => ({
  status: 202,
  body: await acceptDeepSearch({ accountId, keyId }, body, parseIdempotencyKey(headers)),
}));
