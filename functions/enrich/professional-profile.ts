import { publicRoute } from '../../shared/http/handler.js';
import { ProfileEnrichSchema, enrichProfile } from '../../shared/enrichment/enrichment.js';

/** POST /enrich/professional-profile/: 2 credits per completed call, including a no-match 404. */
export const handler = publicRoute({ body: ProfileEnrichSchema, paidOperation: 'professional_profile_enrich' }, async ({ accountId, body, requestId }) => ({
  status: 200,
  body: await enrichProfile(accountId, requestId, body),
}));
