import { publicRoute } from '../../shared/http/handler.js';
import { parseIdempotencyKey } from '../../shared/jobs/accept-job.js';
import { BulkEnrichSchema } from '../../shared/enrichment/bulk.schema.js';
import { acceptBulkEnrichment } from '../../shared/enrichment/accept-bulk-enrichment.js';

/** POST /enrich/bulk/: accept 1–100 enrichments as one job (202); each item's single-call price reserved, settled per item. */
export const handler = publicRoute({ body: BulkEnrichSchema, paidOperation: 'bulk_enrich' }, async ({ accountId, keyId, body, headers }) => ({
  status: 202,
  body: await acceptBulkEnrichment({ accountId, keyId }, body, parseIdempotencyKey(headers)),
}));
