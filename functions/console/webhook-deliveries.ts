import { consoleRoute } from '../../shared/http/handler.js';
import { getJob } from '../../shared/jobs/jobs.repository.js';
import { NotFoundError } from '../../shared/core/errors.js';

/** The delivery log of a job's webhook: each attempt's time, status code or error, and the next retry. */
export const handler = consoleRoute({}, async ({ params }) => {
  const job = await getJob(params.job_id!);
  if (!job || job.account_id !== params.id) throw new NotFoundError('Job not found.');
  return { status: 200, body: { job_id: job.id, event_type: job.event_type ?? null, status: job.webhook_status ?? null, attempts: job.webhook_attempts ?? [] } };
});
