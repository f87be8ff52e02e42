import { userRoute } from '../../shared/http/handler.js';
import { cancelSequence } from '../../shared/sequences/sequence-actions.js';

/** POST /api/app/v1/sequences/{sequence_id}/cancel/: as POST /sequences/{id}/cancel/. */
export const handler = userRoute({}, async ({ accountId, params }) => ({ status: 200, body: await cancelSequence(accountId, params.sequence_id!) }));
