import { userRoute } from '../../shared/http/handler.js';
import { approveSequence } from '../../shared/sequences/sequence-actions.js';

/** POST /api/app/v1/sequences/{sequence_id}/approve/: as POST /sequences/{id}/approve/. */
export const handler = userRoute({}, async ({ accountId, params }) => ({ status: 200, body: await approveSequence(accountId, params.sequence_id!) }));
