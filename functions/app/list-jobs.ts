import * as z from 'zod';
import { userRoute } from '../../shared/http/handler.js';
import { listAccountJobs } from '../../shared/jobs/account-jobs.js';

const JobsQuerySchema = z.strictObject({
  cursor: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(25),
});

/** GET /api/app/v1/jobs/: the account's search and phone jobs, newest first. */
export const handler = userRoute({ query: JobsQuerySchema }, async ({ accountId, queryParams }) => ({ status: 200, body: await listAccountJobs(accountId, queryParams) }));
