import { serviceClock, type Clock } from '../core/clock.js';
import { itemChargeWrites, pendingSettleWrites, type ItemCharge } from '../accounts/ledger.repository.js';
import { finishJob, getJob, markRunning, saveBulkProgress } from '../jobs/jobs.repository.js';
import { sendFirstDelivery } from '../jobs/queue-delivery.js';
import type { Job } from '../jobs/model.js';
import { countJobEnded } from '../jobs/job-metrics.js';
import { countMetric } from '../core/metrics.js';
import type { BulkItemKind, BulkItemResult, BulkItemStatus } from '../webhooks/events.js';

/**
 * A bulk enrichment's progress, apart from its lookups (bulk-job.ts), so the sweeper and the dead-letter
 * handler can end a lost one without loading the directory.
 *
 * The job carries its plan (`bulk_plan`: per item the kind, the ledger operation, what it reserved and the id
 * of its own charge record, all fixed at acceptance), its checkpoint (`bulk_next`) and the results so far
 * (`bulk_results`). Each checkpoint appends a chunk's results and settles the chunk's items out of the job's
 * reservation in the same transaction, conditioned on the checkpoint, so a redelivery resumes at the next item
 * and no item is charged twice.
 */
export interface BulkPlanEntry {
  kind: BulkItemKind | null;
  operation: string;
  reserve: number;
  charge_id: string;
}

export type BulkJob = Omit<Job, 'bulk_plan' | 'bulk_next' | 'bulk_results'> & { bulk_plan: BulkPlanEntry[]; bulk_next: number; bulk_results: BulkItemResult[] | null };

/** What an item came to: its result, and how its own charge record settles. */
export interface ItemOutcome {
  status: BulkItemStatus;
  data: Record<string, unknown> | null;
  error: { code: string; message: string } | null;
  charged: number;
  chargeStatus: ItemCharge['status'];
  reason?: string;
}

/**
 * The results are kept in the job item, which DynamoDB holds to 400 KB, beside the request (up to 100 items of
 * bounded fields), the plan, the envelope and the webhook delivery log (at most 50 attempts). The results may
 * take what is left of ITEM_BUDGET_BYTES once the request and the plan are counted, less RESERVED_BYTES for the
 * rest; a result that would pass it is reported `failed` (`result_too_large`) and not charged. Measured: the
 * largest profile of 3,000 sample people is 1.3 KB as JSON, and a finished job of 100 of them is a 151 KB item
 * (test/unit/enrichment/bulk-size.test.ts).
 */
export const ITEM_BUDGET_BYTES = 390_000;
export const RESERVED_BYTES = 30_000;
export const resultBytes = (r: unknown) => Buffer.byteLength(JSON.stringify(r));
export const resultsBudget = (job: Pick<BulkJob, 'request' | 'bulk_plan'>) => ITEM_BUDGET_BYTES - RESERVED_BYTES - resultBytes(job.request) - resultBytes(job.bulk_plan);

export const failedItem = (code: string, message: string): ItemOutcome => ({ status: 'failed', data: null, error: { code, message }, charged: 0, chargeStatus: 'released', reason: `${code}: ${message}` });
export const ITEM_ERROR_MESSAGE = 'the lookup failed; not charged, retry the item';

/**
 * Checkpoint the items `from`… with their outcomes. False when the job was not at `from` any more (a
 * redelivery got there first, or it ended): nothing was written.
 */
export async function saveItems(job: BulkJob, from: number, outcomes: readonly ItemOutcome[], clock: Clock = serviceClock): Promise<boolean> {
  const now = clock.now();
  const results: BulkItemResult[] = [];
  let bytes = resultBytes(job.bulk_results ?? []);
  const budget = resultsBudget(job);
  const charges: ItemCharge[] = outcomes.map((o, i) => {
    const index = from + i;
    const plan = job.bulk_plan[index]!;
    let outcome = o;
    const result = (x: ItemOutcome): BulkItemResult => ({ index, kind: plan.kind, status: x.status, credits_charged: x.charged, data: x.data, error: x.error });
    if (bytes + resultBytes(result(outcome)) > budget) outcome = failedItem('result_too_large', 'the result is too large to hold with the others; not charged, enrich it on its own');
    results.push(result(outcome));
    bytes += resultBytes(results.at(-1));
    return { chargeId: plan.charge_id, operation: plan.operation, reference: job.id, reserved: plan.reserve, charged: outcome.charged, status: outcome.chargeStatus, ...(outcome.reason ? { reason: outcome.reason } : {}) };
  });
  const found = (job.leads_returned ?? 0) + results.filter((r) => r.status === 'found').length;
  const saved = await saveBulkProgress(job.id, from, results, found, now.toISOString(), itemChargeWrites(job.account_id, job.charge_id, charges, now));
  if (saved) {
    // Each item's lookup, once: the checkpoint's condition lets one delivery save a chunk.
    for (const r of results) if (r.status !== 'invalid_input') countMetric('enrichments', 1, { kind: 'bulk', outcome: r.status === 'found' ? 'found' : r.status === 'not_found' ? 'not_found' : 'error' });
    job.bulk_next = from + results.length;
    job.bulk_results = [...(job.bulk_results ?? []), ...results];
    job.leads_returned = found;
  }
  return saved;
}

/**
 * Every item has its result: complete the job in one transaction with the settle of its reservation (by now
 * nothing is left in it, so `released` at 0) and its queued `bulk_enrich.completed` webhook, then send it.
 */
export async function finishBulk(job: BulkJob, clock: Clock = serviceClock): Promise<void> {
  const now = clock.now();
  const results = job.bulk_results ?? [];
  const settle = await pendingSettleWrites(job.account_id, job.charge_id, 'released', 0, now);
  const ended = await finishJob(
    job.id,
    {
      status: 'completed',
      now: now.toISOString(),
      result: { results, total_items: results.length, credits_charged: results.reduce((n, r) => n + r.credits_charged, 0) },
      error: null,
      leads_returned: results.filter((r) => r.status === 'found').length,
      event_type: 'bulk_enrich.completed',
      // The results now live in `result`: the item holds them once.
      extra: { bulk_results: null },
    },
    settle,
  );
  if (ended) countJobEnded(job, 'completed', { at: now, leads: results.filter((r) => r.status === 'found').length });
  const finished = await getJob(job.id);
  if (finished) await sendFirstDelivery(finished);
}

const CHUNK = 10;

/**
 * A bulk enrichment whose run was lost (its message dead-lettered, or its deadline passed): the items not yet
 * done are `failed` and released, and the job completes with every result it has, so nothing done is lost
 * and nothing undone is charged.
 */
export async function endLostBulkJob(jobId: string, clock: Clock = serviceClock): Promise<void> {
  for (;;) {
    const job = (await getJob(jobId)) as BulkJob | null;
    if (!job || (job.status !== 'pending' && job.status !== 'running')) return;
    if (job.status === 'pending' || job.bulk_next >= job.bulk_plan.length) {
      if (job.status === 'running') return finishBulk(job, clock);
      // Never started: nothing was settled; the whole reservation goes back with the items failed.
      await markRunning(job, clock.now().toISOString());
      continue;
    }
    const from = job.bulk_next;
    const outcomes = job.bulk_plan.slice(from, from + CHUNK).map(() => failedItem('error', ITEM_ERROR_MESSAGE));
    await saveItems(job, from, outcomes, clock);
  }
}

