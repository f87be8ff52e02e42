import { parseJsonBody, parseWith, publicRoute } from '../../shared/http/handler.js';
import { routeOf } from '../../shared/catalog/routes.js';
import { CreateTestEmailSchema } from '../../shared/test-emails/test-email.schema.js';
import { createTestEmail, requireIdempotencyKey } from '../../shared/test-emails/create-test-email.js';
import { requirePilotAccount } from '../../shared/test-emails/pilot-account.js';

/**
 * POST /test-emails/: the key is checked here (401), then the pilot (403) before the request is judged, so
 * a caller outside the pilot learns nothing from validation answers.
 */
export const handler = publicRoute({ auth: 'handler', perKeyThrottle: routeOf('POST', 'functions/test-emails/create.ts') }, async ({ accountId, headers, event }) => {
  const account = await requirePilotAccount(accountId);
  const idempotencyKey = requireIdempotencyKey(headers);
  const request = parseWith(CreateTestEmailSchema, parseJsonBody(event) ?? {});
  const out = await createTestEmail({ account, idempotencyKey, request });
  return { status: out.status, body: out.body };
});
