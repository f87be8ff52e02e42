import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { QUEUE_LIST, type QueueKey } from '../catalog/queues.js';
import { MalformedMessageError } from '../catalog/messages.js';
import { logger } from '../core/logger.js';
import { countMetric, flushMetrics } from '../core/metrics.js';
import { serviceClock } from '../core/clock.js';
import { getJob } from '../jobs/jobs.repository.js';
import { endLostJob } from './sweep-job.js';
import { TERMINAL } from '../jobs/model.js';
import { getEmail, transition } from '../outreach/emails.repository.js';
import { failDraft } from '../outreach/drafting.js';
import { failInterruptedSend, SendInProgressError } from '../outreach/send-email.js';
import { releaseSlot } from '../outreach/send-slots.repository.js';
import { stepEndedUnsent } from '../sequences/cadence.js';
import { endDeadTestEmailSend } from '../test-emails/send-test-email.js';
import { recordDeadAttempt } from '../jobs/job-webhooks.js';
import { handleRecord, type MessageHandlers } from './dispatch.js';
import { failRun } from '../agentic/run-end.js';
import { timerHandlers } from './timers.handlers.js';
import { mailEventHandlers } from './mail-events.handlers.js';
import { deadDirectoryFinalizeHandlers, deadDirectoryImportHandlers } from './directory-import.handlers.js';

/**
 * The dead-letter consumer: one function with an event source on every DLQ. A message that gave up (its
 * worker failed, timed out or ran out of memory on every receive) ends its workflow in the same clean
 * terminal state a handled failure would have reached:
 * - a job (or an agentic search's step): `failed`, its reservation released and its webhook queued, in one
 *   transaction (an agentic search's concurrency slots given back in it too);
 * - a draft: `failed`, released (a sequence step: its enrollment `failed`, its pass counts it); a send not
 *   yet claimed: `failed` (a sequence step's enrollment with it); a claimed one: judged after its lease;
 * - a test email's send: `failed` if not yet claimed, `unknown` if claimed (it may have been sent);
 * - a webhook delivery: the attempt logged as failed, the next one planned on the retry ladder;
 * - a timer or an SES event: run once more (each is idempotent);
 * - a directory import's chunk or finalize step: the import marked `failed` with the reason.
 * A message it cannot act on yet (a send inside its lease) stays in the DLQ and comes back; a malformed one
 * is logged and dropped, since nothing can ever run it.
 */
const DEAD: { [Q in QueueKey]: MessageHandlers<Q> } = {
  search: {
    people_search: (m) => failLostJob(m.job_id),
    phone_enrich: (m) => failLostJob(m.job_id),
    deep_search: (m) => failLostJob(m.job_id),
    bulk_enrich: (m) => failLostJob(m.job_id),
    agentic_step: (m) => failRun(m.job_id),
  },
  drafting: {
    draft_email: async (m) => {
      const email = await getEmail(m.account_id, m.email_id);
      if (email?.status === 'drafting') await failDraft(email, 'The draft could not be written; nothing was charged.', serviceClock);
    },
  },
  sending: {
    send_email: async (m) => {
      const email = await getEmail(m.account_id, m.email_id);
      if (email?.status === 'sending') {
        if ((email.send_lease_until_ms ?? 0) > Date.now()) throw new SendInProgressError(email.id);
        await failInterruptedSend(email);
      } else if (email?.status === 'queued') {
        const failed = await transition(email.account_id, email.id, ['queued'], {
          status: 'failed',
          updated_at: serviceClock.now().toISOString(),
          error: { code: 'send_failed', message: 'The email could not be sent.' },
        });
        if (failed && email.slot_day) await releaseSlot(email.from_account, email.slot_day);
        if (failed?.sequence_id) await stepEndedUnsent(failed, 'send_failed');
      }
    },
    send_test_email: (m) => endDeadTestEmailSend(m.account_id, m.test_email_id),
  },
  webhooks: {
    deliver_job_event: (m) => recordDeadAttempt(m.job_id, m.attempt),
  },
  timers: timerHandlers,
  'mail-events': mailEventHandlers,
  'directory-import': deadDirectoryImportHandlers,
  'directory-finalize': deadDirectoryFinalizeHandlers,
};

async function failLostJob(jobId: string): Promise<void> {
  const job = await getJob(jobId);
  if (job && !TERMINAL.includes(job.status)) await endLostJob(job);
}

/** Which queue a DLQ record came from: DLQs are named `<prefix>-<queue>-dlq` (queueName in queues.ts). */
export function queueOfDeadLetterArn(arn: string): QueueKey | null {
  const name = arn.slice(arn.lastIndexOf(':') + 1);
  return QUEUE_LIST.find((q) => name.endsWith(`-${q.key}-dlq`))?.key ?? null;
}

async function handleDeadLetter(r: SQSRecord): Promise<void> {
  const queue = queueOfDeadLetterArn(r.eventSourceARN);
  if (!queue) {
    logger.error('dead letter from an unknown queue; dropped', { source: r.eventSourceARN, messageId: r.messageId });
    return;
  }
  logger.warn('a message gave up; ending its workflow', { queue, messageId: r.messageId });
  // Once a receive: a message that comes back (a send inside its lease) is counted again.
  countMetric('dead_letters', 1, { queue });
  try {
    await handleRecord(queue, DEAD[queue] as MessageHandlers<typeof queue>, r);
  } catch (e) {
    if (e instanceof MalformedMessageError) return; // logged by handleRecord; nothing can run it
    throw e;
  }
}

export function deadLetterWorker(): (event: SQSEvent, context: Context) => Promise<SQSBatchResponse> {
  const processor = new BatchProcessor(EventType.SQS);
  return async (event, context) => {
    logger.addContext(context);
    try {
      return await processPartialResponse(event, handleDeadLetter, processor, { context });
    } finally {
      await flushMetrics();
    }
  };
}

export const deadLetterHandler = deadLetterWorker();
