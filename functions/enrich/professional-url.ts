import { publicRoute } from '../../shared/http/handler.js';
import { ProfessionalUrlEnrichSchema, enrichProfessionalUrl } from '../../shared/enrichment/enrichment.js';

/** POST /enrich/professional-url/: 3 credits per completed call, including a no-match 404. */
export const handler = publicRoute({ body: ProfessionalUrlEnrichSchema, paidOperation: 'professional_url_enrich' }, async ({ accountId, body, requestId }) => ({
  status: 200,
  body: await enrichProfessionalUrl(accountId, requestId, body),
}));
