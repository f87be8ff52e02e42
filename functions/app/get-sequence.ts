import { userRoute } from '../../shared/http/handler.js';
import { SequenceReadQuerySchema } from '../../shared/sequences/schemas.js';
import { getOwnSequence } from '../../shared/sequences/sequence-views.js';

/** GET /api/app/v1/sequences/{sequence_id}/: as the public read, one page of enrollments after `cursor`. */
export const handler = userRoute({ query: SequenceReadQuerySchema }, async ({ accountId, params, queryParams }) => ({ status: 200, body: await getOwnSequence(accountId, params.sequence_id!, queryParams) }));
