import { publicRoute } from '../../shared/http/handler.js';
import { parseIdempotencyKey } from '../../shared/jobs/accept-job.js';
import { AgenticSearchSchema } from '../../shared/agentic/model.js';
import { AGENTIC_OPERATION, acceptAgenticSearch } from '../../shared/agentic/accept-agentic.js';

/** POST /agentic-search/: accept an agentic search (202); leads by webhook and polling. */
export const handler = publicRoute({ body: AgenticSearchSchema, paidOperation: AGENTIC_OPERATION }, async ({ accountId, keyId, body, headers }) => {
  const { body: accepted } = await acceptAgenticSearch({ accountId, keyId }, body, parseIdempotencyKey(headers));
  return { status: 202, body: accepted };
});
