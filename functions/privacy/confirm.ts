import { openRoute } from '../../shared/http/handler.js';
import { confirmPrivacyRequest } from '../../shared/privacy-requests/confirm-request.js';

/** POST /api/public/v1/privacy-requests/{token}/confirm/ (no key): carries the request out once; a repeat answers the same. */
export const handler = openRoute(async ({ params }) => ({ status: 200, body: await confirmPrivacyRequest(params.token!) }));
