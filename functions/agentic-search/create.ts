import { publicRoute } from '../../shared/http/handler.js';
import { parseIdempotencyKey } from '../../shared/jobs/accept-job.js';
import { AgenticSearchSchema } from '../../shared/agentic/model.js';
import { AGENTIC_OPERATION, acceptAgenticSearch } from '../../shared/agentic/accept-agentic.js';
import { requireAgenticEnabled } from '../../shared/agentic/agentic-enabled.js';

/**
 * POST /agentic-search/: accept an agentic search (202); leads by webhook and polling. For an account not
 * enrolled the route does not exist: 404 before the body is judged, with no audit record.
 */
export const handler = publicRoute({ admit: ({ accountId }) => requireAgenticEnabled(accountId), body: AgenticSearchSchema, paidOperation: AGENTIC_OPERATION }, async ({ accountId, keyId, body, headers }) => {
  const { body: accepted } = await acceptAgenticSearch({ accountId, keyId }, body, parseIdempotencyKey(headers));
  return { status: 202, body: accepted };
});
