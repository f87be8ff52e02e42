import { parseQueryParams, publicRoute } from '../../shared/http/handler.js';
import { ListEmailsQuerySchema } from '../../shared/outreach/model.js';
import { listEmails } from '../../shared/outreach/list-emails.js';

/** GET /emails/: newest first, only API-created, `{count, page, page_size, total_pages, results}`. */
export const handler = publicRoute({}, async ({ account, query }) => ({ status: 200, body: await listEmails(account.id, parseQueryParams(ListEmailsQuerySchema, query)) }));
