import { publicRoute } from '../../shared/http/handler.js';
import { cancelSequence } from '../../shared/sequences/sequence-actions.js';

/** POST /sequences/{id}/cancel/: every unsent step cancelled; answers the sequence with enrollments. */
export const handler = publicRoute({}, async ({ accountId, params }) => ({ status: 200, body: await cancelSequence(accountId, params.id!) }));
