import type * as z from '../core/zod.js';
import { acceptJob } from '../jobs/accept-job.js';
import type { PhoneEnrichSchema } from './enrichment.js';
import { PRICES } from '../accounts/prices.js';

/**
 * Accept a phone lookup (POST /enrich/phone/).
 *
 * Input: the caller, the validated request, an optional Idempotency-Key.
 * Output: the acceptance body `{id, status, created_at}`.
 *
 * 1. Reserve the phone price (50 credits), kept only on a hit, in the job's own transaction.
 * 2. Queue the lookup; its failure event and message are the phone enrichment's.
 */
export async function acceptPhoneEnrichment(caller: { accountId: string; keyId: string }, body: z.output<typeof PhoneEnrichSchema>, idempotencyKey: string | undefined) {
  const { body: accepted } = await acceptJob({
    accountId: caller.accountId,
    keyId: caller.keyId,
    tier: 'phone_enrich',
    operation: 'phone_enrich',
    request: body,
    reserve: PRICES.phone_enrich,
    idempotencyKey,
  });
  return accepted;
}
