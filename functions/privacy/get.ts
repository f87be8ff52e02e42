import { openRoute } from '../../shared/http/handler.js';
import { viewPrivacyRequest } from '../../shared/privacy-requests/privacy-requests.js';

/** GET /api/public/v1/privacy-requests/{token}/ (no key): what is held about the link's address; 404 for an unknown or expired link. */
export const handler = openRoute(async ({ params }) => ({ status: 200, body: await viewPrivacyRequest(params.token!) }));
