import { parseQueryParams, publicRoute } from '../../shared/http/handler.js';
import { ListSequencesQuerySchema } from '../../shared/sequences/schemas.js';
import { listSequences } from '../../shared/sequences/sequence-views.js';

/** GET /sequences/: newest first, `{count, page, page_size, total_pages, results}` without enrollments. */
export const handler = publicRoute({ readOnly: true }, async ({ accountId, query }) => ({ status: 200, body: await listSequences(accountId, parseQueryParams(ListSequencesQuerySchema, query)) }));
