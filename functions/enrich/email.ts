import { publicRoute } from '../../shared/http/handler.js';
import { EmailEnrichSchema, enrichEmail } from '../../shared/enrichment/enrichment.js';

/** POST /enrich/email/: 5 credits per completed call, including a no-match 404. */
export const handler = publicRoute({ body: EmailEnrichSchema, paidOperation: 'email_enrich' }, async ({ accountId, body, requestId }) => ({
  status: 200,
  body: await enrichEmail(accountId, requestId, body),
}));
