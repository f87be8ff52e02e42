import { paidUserRoute } from '../../shared/http/handler.js';
import { CreateSequenceSchema } from '../../shared/sequences/schemas.js';
import { createSequence } from '../../shared/sequences/create-sequence.js';

/** POST /api/app/v1/sequences/: as POST /sequences/ (202 with the accepted and rejected contacts). */
export const handler = paidUserRoute('sequence', { body: CreateSequenceSchema }, async ({ accountId, body }) => ({ status: 202, body: await createSequence(accountId, body) }));
