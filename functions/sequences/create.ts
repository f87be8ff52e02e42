import { publicRoute } from '../../shared/http/handler.js';
import { CreateSequenceSchema } from '../../shared/sequences/schemas.js';
import { createSequence } from '../../shared/sequences/create-sequence.js';

/** POST /sequences/: accept a sequence for drafting (202 with the accepted and rejected contacts). */
export const handler = publicRoute({ body: CreateSequenceSchema, paidOperation: 'sequence' }, async ({ accountId, body }) => ({ status: 202, body: await createSequence(accountId, body) }));
