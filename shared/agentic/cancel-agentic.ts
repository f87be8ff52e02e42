import { serviceClock, type Clock } from '../core/clock.js';
import { NotFoundError } from '../core/errors.js';
import { getJob } from '../jobs/jobs.repository.js';
import { acceptanceView } from '../jobs/model.js';
import { endAgenticJob } from './agentic.repository.js';
import { requireAgenticEnabled } from './agentic-enabled.js';
import { isAgenticJob, type AgenticJob } from './model.js';
import { completeRun } from './run-end.js';

/**
 * Cancel an agentic search (docs/decisions.md#agentic-search); idempotent, answers `{id, status, created_at}`.
 * - `pending`: `cancelled`, the whole reservation released, both concurrency slots given back.
 * - running: `completed` now, `partial` true, `user_cancelled`, with the leads saved so far; what the run
 *   has used stays charged (nothing at all if no candidate was evaluated yet: `zero_result`).
 * - finished: unchanged, nothing refunded.
 * A step that saves meanwhile makes the end lose its guard; the job is read again and the cancel retried.
 */
const ATTEMPTS = 5;

async function ownJob(accountId: string, jobId: string): Promise<AgenticJob> {
  const job = await getJob(jobId);
  if (!isAgenticJob(job) || job.account_id !== accountId) throw new NotFoundError('Job not found.');
  return job;
}

export async function cancelAgenticSearch(accountId: string, jobId: string, clock: Clock = serviceClock) {
  await requireAgenticEnabled(accountId);
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const job = await ownJob(accountId, jobId);
    if (job.status === 'pending') {
      if (await endAgenticJob(job, { status: 'cancelled' }, 'pending', clock.now())) break;
    } else if (job.status === 'running') {
      if (await completeRun(job, 'user_cancelled', clock)) break;
    } else {
      break;
    }
  }
  return acceptanceView(await ownJob(accountId, jobId));
}
