import { userRoute } from '../../shared/http/handler.js';
import { sequenceReplies } from '../../shared/sequences/sequence-views.js';

/** GET /api/app/v1/sequences/{sequence_id}/replies/: `{replies: [Reply, ...]}`. */
export const handler = userRoute({}, async ({ accountId, params }) => ({ status: 200, body: await sequenceReplies(accountId, params.sequence_id!) }));
