import { parseQueryParams, publicRoute } from '../../shared/http/handler.js';
import { SequenceRepliesQuerySchema } from '../../shared/sequences/schemas.js';
import { sequenceReplies } from '../../shared/sequences/sequence-views.js';

/** GET /sequences/{id}/replies/: `{replies: [Reply, ...], next_cursor}`, one page (`page_size`, `cursor`). */
export const handler = publicRoute({ readOnly: true }, async ({ accountId, params, query }) => ({ status: 200, body: await sequenceReplies(accountId, params.id!, parseQueryParams(SequenceRepliesQuerySchema, query)) }));
