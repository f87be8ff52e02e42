import { publicRoute } from '../../shared/http/handler.js';
import { cancelAgenticSearch } from '../../shared/agentic/cancel-agentic.js';

/** POST /agentic-search/{job_id}/cancel/: idempotent; 202 with the job's `{id, status, created_at}` after the cancel. */
export const handler = publicRoute({}, async ({ accountId, params }) => ({ status: 202, body: await cancelAgenticSearch(accountId, params.job_id!) }));
