import { ConflictError, NotFoundError, ValidationError } from '../core/errors.js';
import { getJob, queryAccountJobs } from './jobs.repository.js';
import { pollingView, TERMINAL, type Job } from './model.js';

/**
 * The web app's view of an account's jobs (people, deep and agentic search, phone enrichment). A job of
 * another account is a 404 exactly like a missing one.
 */
export async function requireAccountJob(accountId: string, jobId: string): Promise<Job> {
  const job = await getJob(jobId);
  if (!job || job.account_id !== accountId) throw new NotFoundError('Job not found.');
  return job;
}

/**
 * The public polling envelope of any of the account's jobs, whatever its tier, with the `request` it was started
 * with (the query and its options), which the job's page shows.
 */
export async function accountJobView(accountId: string, jobId: string) {
  const job = await requireAccountJob(accountId, jobId);
  return { ...pollingView(job), request: job.request };
}

const JOB_ID = /^dj_[0-9a-hjkmnp-tv-z]{26}$/;

function decodeJobCursor(cursor: string): string {
  const id = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!JOB_ID.test(id)) throw new ValidationError('Invalid query parameters.', [{ path: 'cursor', message: 'not a cursor from this list' }]);
  return id;
}

/** One page of the account's jobs, newest first; `next_cursor` is null on the last page. */
export async function listAccountJobs(accountId: string, q: { cursor?: string; limit: number }) {
  const page = await queryAccountJobs(accountId, q.limit, q.cursor ? decodeJobCursor(q.cursor) : undefined);
  return {
    results: page.jobs.map((j) => ({
      id: j.id,
      tier: j.tier,
      status: j.status,
      created_at: j.created_at,
      completed_at: j.completed_at ?? null,
      leads_returned: j.leads_returned ?? 0,
      query: typeof j.request?.query === 'string' ? j.request.query : null,
      has_webhook: typeof j.request?.webhook_url === 'string',
      webhook_status: j.webhook_status ?? null,
    })),
    next_cursor: page.last ? Buffer.from(page.last, 'utf8').toString('base64url') : null,
  };
}

/**
 * Attempts a job's delivery log may hold: the automatic ones (8) and manual redeliveries up to this many in
 * all. The log lives on the job item, so it is bounded (50 attempts are about 8 KB of the item's 400 KB).
 */
export const WEBHOOK_LOG_MAX_ATTEMPTS = 50;

/** A job's event can be delivered again once it has a webhook, has finished, no delivery is queued, and its log has room. */
export function assertRedeliverable(job: Job): void {
  if (typeof job.request.webhook_url !== 'string' || !job.event_type) throw new ConflictError('This job has no webhook.');
  if (!TERMINAL.includes(job.status)) throw new ConflictError('This job has not finished yet.');
  if (job.webhook_status !== 'delivered' && job.webhook_status !== 'failed') throw new ConflictError('A delivery of this job is already queued.');
  if ((job.webhook_attempts?.length ?? 0) >= WEBHOOK_LOG_MAX_ATTEMPTS) throw new ConflictError(`This job's event has been sent ${WEBHOOK_LOG_MAX_ATTEMPTS} times, the most its delivery log keeps; it is not sent again.`);
}
