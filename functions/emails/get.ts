import { publicRoute } from '../../shared/http/handler.js';
import { emailCompanion } from '../../shared/outreach/emails.companion.js';
import { getOwnEmail } from '../../shared/outreach/get-email.js';

/** GET /emails/{id}/: read with the caller's key in one round trip once this process knows the key's account. */
export const handler = publicRoute(
  { companion: (params, accountId) => (accountId ? emailCompanion(accountId, params.id!) : null) },
  async ({ accountId, params, preloaded }) => ({ status: 200, body: await getOwnEmail(accountId, params.id!, preloaded) }),
);
