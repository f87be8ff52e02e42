import { userRoute } from '../../shared/http/handler.js';
import { ListSequencesQuerySchema } from '../../shared/sequences/schemas.js';
import { listSequences } from '../../shared/sequences/sequence-views.js';

/** GET /api/app/v1/sequences/: as the public list, newest first. */
export const handler = userRoute({ query: ListSequencesQuerySchema }, async ({ accountId, queryParams }) => ({ status: 200, body: await listSequences(accountId, queryParams) }));
