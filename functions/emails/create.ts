import { publicRoute } from '../../shared/http/handler.js';
import { CreateEmailSchema } from '../../shared/outreach/schemas.js';
import { createEmail } from '../../shared/outreach/create-email.js';

/** POST /emails/: accept an email for drafting (202 `{id, status: drafting, created_at}`). */
export const handler = publicRoute({ body: CreateEmailSchema, paidOperation: 'outreach_email' }, async ({ accountId, body }) => ({ status: 202, body: await createEmail(accountId, body) }));
