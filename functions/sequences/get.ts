import { publicRoute } from '../../shared/http/handler.js';
import { getOwnSequence } from '../../shared/sequences/sequence-views.js';

/** GET /sequences/{id}/: the sequence with its enrollments and their steps. */
export const handler = publicRoute({ readOnly: true }, async ({ accountId, params }) => ({ status: 200, body: await getOwnSequence(accountId, params.id!) }));
