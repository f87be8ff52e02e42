import { openRoute, parseJsonBody, parseWith } from '../../shared/http/handler.js';
import { CreatePrivacyRequestSchema } from '../../shared/privacy-requests/privacy-requests.js';
import { createPrivacyRequest } from '../../shared/privacy-requests/create-request.js';

/**
 * POST /api/public/v1/privacy-requests/ (no key): `{email, request}`; 202 `{status: "verification_sent"}` whether
 * or not the address is known, and a single-use link mailed to it (docs/privacy.md).
 */
export const handler = openRoute(async ({ event }) => {
  const body = parseWith(CreatePrivacyRequestSchema, parseJsonBody(event) ?? {});
  return { status: 202, body: await createPrivacyRequest(body) };
});
