import { userRoute } from '../../shared/http/handler.js';
import { SequenceRepliesQuerySchema } from '../../shared/sequences/schemas.js';
import { sequenceReplies } from '../../shared/sequences/sequence-views.js';

/** GET /api/app/v1/sequences/{sequence_id}/replies/: `{replies: [Reply, ...], next_cursor}`, one page (`page_size`, `cursor`). */
export const handler = userRoute({ query: SequenceRepliesQuerySchema }, async ({ accountId, params, queryParams }) => ({ status: 200, body: await sequenceReplies(accountId, params.sequence_id!, queryParams) }));
