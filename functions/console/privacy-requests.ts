import { consoleRoute } from '../../shared/http/handler.js';
import { PrivacyRequestListQuerySchema, listPrivacyRequests } from '../../shared/privacy-requests/privacy-requests.js';

/** GET /api/console/v1/privacy-requests/: the people's privacy requests, newest first, by `status`, paged by `cursor`. */
export const handler = consoleRoute({ query: PrivacyRequestListQuerySchema }, async ({ queryParams }) => ({ status: 200, body: await listPrivacyRequests(queryParams) }));
