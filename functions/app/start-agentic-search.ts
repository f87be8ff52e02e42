import { paidUserRoute, userCallerId } from '../../shared/http/handler.js';
import { parseIdempotencyKey } from '../../shared/jobs/accept-job.js';
import { AgenticSearchSchema } from '../../shared/agentic/model.js';
import { AGENTIC_OPERATION, acceptAgenticSearch } from '../../shared/agentic/accept-agentic.js';
import { requireAgenticEnabled } from '../../shared/agentic/agentic-enabled.js';

/**
 * POST /api/app/v1/agentic-search/: an agentic search started from the web app, as POST /agentic-search/: 404 for
 * an account not enrolled, the cap reserved, at most 2 running per signed-in user and 3 per account.
 */
export const handler = paidUserRoute(AGENTIC_OPERATION, { admit: requireAgenticEnabled, body: AgenticSearchSchema }, async ({ accountId, userSub, body, headers }) => {
  const { body: accepted } = await acceptAgenticSearch({ accountId, keyId: userCallerId(userSub) }, body, parseIdempotencyKey(headers));
  return { status: 202, body: accepted };
});
