import { serviceClock, type Clock } from '../core/clock.js';
import { sendMessage } from '../adapters/queue.js';
import { isSearchJobKind, messages } from '../catalog/messages.js';
import { scanUnfinishedOrUndelivered } from '../jobs/jobs.repository.js';
import { scanInFlightEmails } from '../outreach/emails.repository.js';
import { isAgenticJob } from '../agentic/model.js';

/**
 * Local restarts: the SQS stand-in keeps its messages in memory, so work that sat on a queue when the
 * service stopped is put back from the tables (the Scheduler emulator's schedules are durable already).
 * Every use case it re-triggers is idempotent, so a message that did survive does no harm.
 */
export async function resumeInFlight(clock: Clock = serviceClock): Promise<{ jobs: number; webhooks: number; drafts: number; sends: number }> {
  const now = clock.now().getTime();
  const counts = { jobs: 0, webhooks: 0, drafts: 0, sends: 0 };
  for (const job of await scanUnfinishedOrUndelivered()) {
    if (isAgenticJob(job) && (job.status === 'pending' || job.status === 'running')) {
      await sendMessage('search', messages.agenticStep(job.id, job.checkpoint.step));
      counts.jobs++;
    } else if (job.status === 'pending' || job.status === 'running') {
      if (!isSearchJobKind(job.tier)) continue;
      await sendMessage('search', messages.job(job.tier, job.id));
      counts.jobs++;
    } else if (job.webhook_status === 'queued') {
      const attempts = job.webhook_attempts ?? [];
      const last = attempts[attempts.length - 1];
      const due = last?.next_retry_at ? new Date(last.next_retry_at).getTime() : now;
      // Long waits live in the durable Scheduler emulator; only short (SQS-delayed) ones need putting back.
      if (due - now <= 60_000) {
        await sendMessage('webhooks', messages.deliverJobEvent(job.id, attempts.length + 1), Math.max(0, (due - now) / 1000));
        counts.webhooks++;
      }
    }
  }
  for (const e of await scanInFlightEmails()) {
    if (e.status === 'drafting') {
      await sendMessage('drafting', messages.draftEmail(e.account_id, e.id));
      counts.drafts++;
    } else if (e.status === 'sending' || (e.scheduled_for && new Date(e.scheduled_for).getTime() <= now)) {
      await sendMessage('sending', messages.sendEmail(e.account_id, e.id));
      counts.sends++;
    }
  }
  return counts;
}
