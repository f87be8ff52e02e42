import { parseQueryParams, publicRoute } from '../../shared/http/handler.js';
import { SequenceReadQuerySchema } from '../../shared/sequences/schemas.js';
import { getOwnSequence } from '../../shared/sequences/sequence-views.js';

/** GET /sequences/{id}/: the sequence with one page of its enrollments and their steps, and `next_cursor`. */
export const handler = publicRoute({ readOnly: true }, async ({ accountId, params, query }) => ({ status: 200, body: await getOwnSequence(accountId, params.id!, parseQueryParams(SequenceReadQuerySchema, query)) }));
