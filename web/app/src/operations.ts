// Type only (erased by esbuild): the ledger's list of names, so nothing of shared/ enters the bundle.
import type { LedgerOperation } from '../../../shared/accounts/operations.js';

/**
 * The charge ledger's operation names (LEDGER_OPERATIONS in shared/accounts/operations.ts, which the charge
 * lists accept as `operation`) and how the app names them: `tsc -p web` fails when a name is missing or extra.
 */
export const OPERATION_NAMES: Record<LedgerOperation, string> = {
  people_search: 'People search',
  deep_search: 'Deep search',
  agentic_search: 'Agentic search',
  email_enrich: 'Email lookup',
  professional_url_enrich: 'Profile URL lookup',
  professional_profile_enrich: 'Profile lookup',
  phone_enrich: 'Phone lookup',
  outreach_email: 'Outreach email',
  sequence: 'Sequence drafts',
  bulk_enrich: 'Bulk enrichment (reservation)',
  bulk_enrich_item: 'Bulk enrichment (invalid item)',
};

export const operationName = (op: string) => OPERATION_NAMES[op as LedgerOperation] ?? op;

/** What each charge status means for the customer's balance, shown when the record itself carries no reason. */
export const STATUS_MEANING: Record<string, string> = {
  pending: 'In progress: the credits are reserved until the work finishes.',
  charged: 'Charged.',
  zero_result: 'Nothing found: no charge.',
  released: 'Released: not charged (the call was rejected, failed, or did less than reserved).',
  lost_released: 'Released after an interruption: not charged.',
};
