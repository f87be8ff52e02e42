import type * as z from '../core/zod.js';
import { serviceClock } from '../core/clock.js';
import { newId } from '../core/ids.js';
import { acceptJob } from '../jobs/accept-job.js';
import { bulkReservation, planBulkItem, type BulkEnrichSchema } from './bulk.schema.js';
import type { BulkPlanEntry } from './bulk-progress.js';

/**
 * Accept a bulk enrichment (POST /enrich/bulk/).
 *
 * Input: the caller, the validated body (`items`, `webhook_url`), an optional Idempotency-Key.
 * Output: the acceptance body `{id, status, created_at}` (a replay: the existing job's current state).
 *
 * 1. Plan each item: its kind, its ledger operation, the most it can cost (its single call's price; 0 when it
 *    is invalid) and the id its own charge record will have.
 * 2. Accept the job as any other (accept-job.ts): the sum of the items' prices reserved in one record (402
 *    when the balance cannot cover it), on condition of an active webhook signing secret (409), with the job,
 *    its plan and its Idempotency-Key, in one transaction; then the search-queue message that runs it.
 */
export async function acceptBulkEnrichment(caller: { accountId: string; keyId: string }, body: z.output<typeof BulkEnrichSchema>, idempotencyKey: string | undefined) {
  const planned = body.items.map(planBulkItem);
  const at = serviceClock.now().getTime();
  const plan: BulkPlanEntry[] = planned.map((p) => ({ kind: p.kind, operation: p.operation, reserve: p.reserve, charge_id: newId('chg', at) }));
  const { body: accepted } = await acceptJob({
    accountId: caller.accountId,
    keyId: caller.keyId,
    tier: 'bulk_enrich',
    operation: 'bulk_enrich',
    request: body,
    reserve: bulkReservation(planned),
    idempotencyKey,
    extra: { bulk_plan: plan, bulk_next: 0, bulk_results: [] },
  });
  return accepted;
}
