import { consoleRoute } from '../../shared/http/handler.js';
import { InboundIssuesQuerySchema, inboundIssues } from '../../shared/outreach/inbound-issues.js';

/** GET /api/console/v1/inbound-issues/: inbound messages that were unprocessable or repaired, newest first. */
export const handler = consoleRoute({ query: InboundIssuesQuerySchema }, async ({ queryParams }) => ({ status: 200, body: await inboundIssues(queryParams) }));
