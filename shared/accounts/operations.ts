/**
 * Every operation name the charge ledger records, as written by the use cases that reserve and settle
 * (people-search.ts, deep-search-accept.ts, accept-agentic.ts, enrichment.ts, accept-phone-enrichment.ts,
 * create-email.ts, reserve-pass.ts, accept-bulk-enrichment.ts, bulk.schema.ts). The charge lists filter by exactly these: any other name is a 400, never an
 * empty page that looks like "no charges".
 */
export const LEDGER_OPERATIONS = [
  'people_search',
  'deep_search',
  'agentic_search',
  'email_enrich',
  'professional_url_enrich',
  'professional_profile_enrich',
  'phone_enrich',
  'outreach_email',
  'sequence',
  'bulk_enrich',
  'bulk_enrich_item',
] as const;

export type LedgerOperation = (typeof LEDGER_OPERATIONS)[number];
