import * as z from '../core/zod.js';
import { PRICES } from '../accounts/prices.js';
import { acceptJob } from '../jobs/accept-job.js';

/**
 * Deep search (docs/decisions.md#search-and-enrichment): a researched shortlist at a fixed price per run, 200 credits
 * `standard` (up to 25 people) or 400 `extended` (up to 100), reserved at acceptance and charged in full on
 * a successful run whatever `total_returned` is; released when the query cannot be understood, when the run
 * fails, or when it is never dispatched (the sweeper and the dead-letter consumer end it as `error`).
 * Kept apart from the run (deep-search.ts) so the create function bundles neither the index nor the gazetteer.
 */
export const DeepSearchSchema = z.lazy(() =>
  z.strictObject({
    // the 500 characters of docs/decisions.md#limits bound the query as sent, surrounding spaces included.
    query: z.string().check(z.maxLength(500), z.refine((q) => q.trim().length > 0, 'must not be blank')),
    mode: z._default(z.enum(['standard', 'extended']), 'standard'),
    webhook_url: z.string().check(z.maxLength(2048)),
  }),
);
export type DeepSearchRequest = z.output<typeof DeepSearchSchema>;

/**
 * Accept a deep search.
 *
 * Input: the caller, the validated request, an optional Idempotency-Key.
 * Output: the acceptance body `{id, status, created_at}`.
 *
 * 1. Reserve the mode's price in the job's own transaction (409 without a signing secret, 402 without credits).
 * 2. Queue the run on the search queue.
 */
export async function acceptDeepSearch(caller: { accountId: string; keyId: string }, body: DeepSearchRequest, idempotencyKey: string | undefined) {
  const { body: accepted } = await acceptJob({
    accountId: caller.accountId,
    keyId: caller.keyId,
    tier: 'deep_search',
    operation: 'deep_search',
    request: body,
    reserve: PRICES.deep_search[body.mode],
    idempotencyKey,
  });
  return accepted;
}
