import type { SQSRecord } from 'aws-lambda';
import { serviceClock, type Clock } from '../core/clock.js';
import { logger } from '../core/logger.js';
import { QUEUES } from '../catalog/queues.js';
import { getJob, markRunning } from '../jobs/jobs.repository.js';
import { TERMINAL } from '../jobs/model.js';
import { sendFirstDelivery } from '../jobs/queue-delivery.js';
import { lookupEmail, lookupPhone, lookupProfessionalUrl, lookupProfile } from './enrichment.js';
import { planBulkItem, type PlannedItem } from './bulk.schema.js';
import { ITEM_ERROR_MESSAGE, failedItem, finishBulk, saveItems, type BulkJob, type ItemOutcome } from './bulk-progress.js';
import type { BulkItemKind } from '../webhooks/events.js';

/**
 * The bulk enrichment worker (search queue, `bulk_enrich`): the items in input order, a chunk at a time.
 * Each chunk's lookups run together; its results and its items' charges are checkpointed in one transaction
 * (bulk-progress.ts), so a crash at any point resumes at the next unsaved item and a redelivery never charges
 * an item twice. Each item is charged as its single call is: email, professional URL and profile at full
 * price found or not, a phone only on a hit; an invalid item is reported `invalid_input` and costs nothing.
 * A lookup that fails is retried with the message; on its last delivery the chunk's items are `failed` and
 * released, and the run goes on.
 */
const CHUNK = 10;

const LOOKUPS: Record<BulkItemKind, (input: any) => Promise<object | null>> = {
  email: lookupEmail,
  professional_url: lookupProfessionalUrl,
  professional_profile: lookupProfile,
  phone: lookupPhone,
};

/** What one item comes to (exported for the crash tests, which leave a run half done as a crash would). */
export async function runItem(item: PlannedItem): Promise<ItemOutcome> {
  if (!item.valid) return { status: 'invalid_input', data: null, error: { code: 'invalid_input', message: item.message }, charged: 0, chargeStatus: 'released', reason: `invalid_input: ${item.message}` };
  const data = await LOOKUPS[item.kind](item.input);
  if (data) return { status: 'found', data: data as Record<string, unknown>, error: null, charged: item.reserve, chargeStatus: 'charged' };
  // A miss: the synchronous kinds keep their price (docs/decisions.md: a no-match is a completed call); a phone costs nothing.
  const charged = item.kind === 'phone' ? 0 : item.reserve;
  return { status: 'not_found', data: null, error: { code: 'not_found', message: 'No match.' }, charged, chargeStatus: charged === 0 ? 'zero_result' : 'charged' };
}

export async function runBulkEnrichJob(jobId: string, record: SQSRecord | null, clock: Clock = serviceClock): Promise<void> {
  let job = (await getJob(jobId)) as BulkJob | null;
  if (!job) return;
  if (TERMINAL.includes(job.status)) return sendFirstDelivery(job);
  if (job.status === 'pending') {
    await markRunning(job, clock.now().toISOString());
    job = (await getJob(jobId)) as BulkJob | null;
    if (!job) return;
  }
  const lastDelivery = Number(record?.attributes.ApproximateReceiveCount ?? 1) >= QUEUES.search.maxReceiveCount;
  const items = job.request.items as unknown[];
  while (job.status === 'running' && job.bulk_next < items.length) {
    const from: number = job.bulk_next;
    const chunk = items.slice(from, from + CHUNK).map(planBulkItem);
    let outcomes: ItemOutcome[];
    try {
      outcomes = await Promise.all(chunk.map(runItem));
    } catch (e) {
      if (!lastDelivery) throw e;
      logger.error('bulk enrichment lookups failed on the last delivery; the chunk is released', { jobId, from, error: e as Error });
      outcomes = chunk.map(() => failedItem('error', ITEM_ERROR_MESSAGE));
    }
    if (!(await saveItems(job, from, outcomes, clock))) {
      // Another delivery saved this chunk (or the job ended): carry on from where the job now stands.
      job = (await getJob(jobId)) as BulkJob | null;
      if (!job) return;
    }
  }
  if (job.status !== 'running') return sendFirstDelivery(job);
  await finishBulk(job, clock);
}
