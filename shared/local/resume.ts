import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../adapters/aws.js';
import { tableName } from '../core/env.js';
import { serviceClock, type Clock } from '../core/clock.js';
import { sendMessage } from '../adapters/queue.js';
import type { Job } from '../jobs/model.js';
import type { EmailRecord } from '../outreach/model.js';

/**
 * Local restarts: the SQS stand-in keeps its messages in memory, so work that sat on a queue when the
 * service stopped is put back from the tables (the Scheduler emulator's schedules are durable already).
 * Every use case it re-triggers is idempotent, so a message that did survive does no harm.
 */
async function scanAll(table: string, filter: string, values: Record<string, unknown>, names?: Record<string, string>): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await documentClient().send(new ScanCommand({ TableName: table, FilterExpression: filter, ExpressionAttributeValues: values, ExpressionAttributeNames: names, ExclusiveStartKey: start }));
    items.push(...(out.Items ?? []));
    start = out.LastEvaluatedKey;
  } while (start);
  return items;
}

export async function resumeInFlight(clock: Clock = serviceClock): Promise<{ jobs: number; webhooks: number; drafts: number; sends: number }> {
  const now = clock.now().getTime();
  const counts = { jobs: 0, webhooks: 0, drafts: 0, sends: 0 };
  const jobs = (await scanAll(tableName('jobs'), 'begins_with(pk, :p)', { ':p': 'JOB#' })) as unknown as Job[];
  for (const job of jobs) {
    if (job.status === 'pending' || job.status === 'running') {
      await sendMessage('search', { kind: job.tier, job_id: job.id });
      counts.jobs++;
    } else if (job.webhook_status === 'queued') {
      const attempts = job.webhook_attempts ?? [];
      const last = attempts[attempts.length - 1];
      const due = last?.next_retry_at ? new Date(last.next_retry_at).getTime() : now;
      // Long waits live in the durable Scheduler emulator; only short (SQS-delayed) ones need putting back.
      if (due - now <= 60_000) {
        await sendMessage('webhooks', { kind: 'deliver_job_event', job_id: job.id, attempt: attempts.length + 1 }, Math.max(0, (due - now) / 1000));
        counts.webhooks++;
      }
    }
  }
  const emails = (await scanAll(tableName('outreach'), 'begins_with(sk, :p) AND #s IN (:d, :q, :s)', { ':p': 'EMAIL#', ':d': 'drafting', ':q': 'queued', ':s': 'sending' }, { '#s': 'status' })) as unknown as EmailRecord[];
  for (const e of emails) {
    if (e.status === 'drafting') {
      await sendMessage('drafting', { kind: 'draft_email', account_id: e.account_id, email_id: e.id });
      counts.drafts++;
    } else if (e.status === 'sending' || (e.scheduled_for && new Date(e.scheduled_for).getTime() <= now)) {
      await sendMessage('sending', { kind: 'send_email', account_id: e.account_id, email_id: e.id });
      counts.sends++;
    }
  }
  return counts;
}
