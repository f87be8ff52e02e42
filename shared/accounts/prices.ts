/**
 * The price list (docs/decisions.md#billing-model), in credits, keyed by the ledger's operation name. Every
 * reservation and every settled charge reads its amount from here; when a charge is kept (per call,
 * per lead, per draft, only on a hit) is decided by the use case that settles it.
 */
export const PRICES = {
  /** Per completed call, a no-match included. */
  email_enrich: 5,
  /** Per completed call, a no-match included. */
  professional_url_enrich: 3,
  /** Per completed call, a no-match included. */
  professional_profile_enrich: 2,
  /** Reserved at acceptance, kept only on a hit. */
  phone_enrich: 50,
  /** Per lead returned; `max_results` leads are reserved. */
  people_search_per_lead: 1,
  /** By tier, in full on a successful run whatever `total_returned` is. */
  deep_search: { standard: 200, extended: 400 },
  /** Base for a completed run (all it costs when nothing qualified) plus each lead; never above `max_credits`. */
  agentic_search: { base: 100, per_lead: 10 },
  /** Per successfully drafted email. */
  outreach_email: 2,
  /** Per drafted email (contacts × steps). */
  sequence_per_draft: 2,
  test_email: 0,
} as const;
