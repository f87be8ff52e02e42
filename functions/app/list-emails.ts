import { userRoute } from '../../shared/http/handler.js';
import { ListEmailsQuerySchema } from '../../shared/outreach/schemas.js';
import { listEmails } from '../../shared/outreach/list-emails.js';

/** The account's emails as the public GET /emails/ lists them: newest first, filtered by status, paged. */
export const handler = userRoute({ query: ListEmailsQuerySchema }, async ({ accountId, queryParams }) => ({ status: 200, body: await listEmails(accountId, queryParams) }));
