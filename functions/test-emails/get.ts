import { publicRoute } from '../../shared/http/handler.js';
import { routeOf } from '../../shared/catalog/routes.js';
import { requirePilotAccount } from '../../shared/test-emails/pilot-account.js';
import { getOwnTestEmail } from '../../shared/test-emails/get-test-email.js';

/** GET /test-emails/{id}/: key checked here (401), pilot (403), then only the creating account's record (404). */
export const handler = publicRoute({ auth: 'handler', perKeyThrottle: routeOf('GET', 'functions/test-emails/get.ts') }, async ({ accountId, params }) => {
  await requirePilotAccount(accountId);
  return { status: 200, body: await getOwnTestEmail(accountId, params.id!) };
});
