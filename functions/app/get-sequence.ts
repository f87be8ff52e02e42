import { userRoute } from '../../shared/http/handler.js';
import { getOwnSequence } from '../../shared/sequences/sequence-views.js';

/** GET /api/app/v1/sequences/{sequence_id}/: the sequence with its enrollments and their steps. */
export const handler = userRoute({}, async ({ accountId, params }) => ({ status: 200, body: await getOwnSequence(accountId, params.sequence_id!) }));
