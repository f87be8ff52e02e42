import { publicRoute } from '../../shared/http/handler.js';
import { approveSequence } from '../../shared/sequences/sequence-actions.js';

/** POST /sequences/{id}/approve/: every drafted enrollment goes live; answers the sequence with enrollments. */
export const handler = publicRoute({}, async ({ accountId, params }) => ({ status: 200, body: await approveSequence(accountId, params.id!) }));
