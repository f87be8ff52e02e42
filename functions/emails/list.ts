import { parseQueryParams, publicRoute } from '../../shared/http/handler.js';
import { ListEmailsQuerySchema } from '../../shared/outreach/schemas.js';
import { listEmails } from '../../shared/outreach/list-emails.js';

/** GET /emails/: newest first, only API-created, `{count, page, page_size, total_pages, results}`; queried alongside the key check. */
export const handler = publicRoute({ readOnly: true }, async ({ accountId, query }) => ({ status: 200, body: await listEmails(accountId, parseQueryParams(ListEmailsQuerySchema, query)) }));
