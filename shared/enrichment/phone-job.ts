import type { SQSRecord } from 'aws-lambda';
import { QUEUES } from '../catalog/queues.js';
import { FAILURE_MESSAGES } from '../webhooks/events.js';
import { runJob } from '../jobs/run-job.js';
import type { IdentityInput } from './identity.js';
import { lookupPhone } from './enrichment.js';
import { PRICES } from '../accounts/prices.js';

/** Phone enrichment worker: 50 credits on a hit, 0 on a miss (a clean completion with `phone: null`). */
export function runPhoneEnrichJob(jobId: string, record: SQSRecord | null): Promise<void> {
  return runJob(
    jobId,
    record,
    async (job) => {
      const phone = (await lookupPhone(job.request as IdentityInput))?.phone ?? null;
      return { status: 'completed', event_type: 'phone_enrich.completed', result: { phone }, leads_returned: 0, charge: phone ? PRICES.phone_enrich : 0 };
    },
    () => ({ status: 'failed', event_type: 'phone_enrich.failed', code: 'error', message: FAILURE_MESSAGES.phone_enrich.error }),
    { maxReceiveCount: QUEUES.search.maxReceiveCount },
  );
}
