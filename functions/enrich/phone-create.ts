import { publicRoute } from '../../shared/http/handler.js';
import { parseIdempotencyKey } from '../../shared/jobs/accept-job.js';
import { PhoneEnrichSchema } from '../../shared/enrichment/enrichment.js';
import { acceptPhoneEnrichment } from '../../shared/enrichment/accept-phone-enrichment.js';

/** POST /enrich/phone/: accept a phone lookup (202); 50 credits reserved, kept only on a hit. */
export const handler = publicRoute({ body: PhoneEnrichSchema, paidOperation: 'phone_enrich' }, async ({ accountId, keyId, body, headers }) => ({
  status: 202,
  body: await acceptPhoneEnrichment({ accountId, keyId }, body, parseIdempotencyKey(headers)),
}));
