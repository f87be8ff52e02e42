import { publicRoute } from '../../shared/http/handler.js';
import { acceptJob, parseIdempotencyKey } from '../../shared/jobs/accept-job.js';
import { PhoneEnrichSchema, PRICES } from '../../shared/enrichment/enrichment.js';
import { FAILURE_MESSAGES } from '../../shared/webhooks/events.js';

/** POST /enrich/phone/: accept a phone lookup (202); 50 credits reserved, kept only on a hit. */
export const handler = publicRoute({ body: PhoneEnrichSchema, paidOperation: 'phone_enrich' }, async ({ account, keyId, body, headers }) => {
  const { body: accepted } = await acceptJob({
    accountId: account.id,
    keyId,
    tier: 'phone_enrich',
    operation: 'phone_enrich',
    request: body,
    reserve: PRICES.phone,
    idempotencyKey: parseIdempotencyKey(headers),
    failedEvent: 'phone_enrich.failed',
    failedMessage: FAILURE_MESSAGES.phone_enrich.error,
  });
  return { status: 202, body: accepted };
});
