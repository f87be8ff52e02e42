import { publicRoute } from '../../shared/http/handler.js';
import { sequenceReplies } from '../../shared/sequences/sequence-views.js';

/** GET /sequences/{id}/replies/: `{replies: [Reply, ...]}`. */
export const handler = publicRoute({ readOnly: true }, async ({ accountId, params }) => ({ status: 200, body: await sequenceReplies(accountId, params.id!) }));
