import * as z from '../../shared/core/zod.js';
import { userRoute } from '../../shared/http/handler.js';
import { listAccountJobs } from '../../shared/jobs/account-jobs.js';

const JobsQuerySchema = z.strictObject({
  cursor: z.optional(z.string().check(z.maxLength(200))),
  limit: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(100)), 25),
});

/** GET /api/app/v1/jobs/: the account's search and phone jobs, newest first. */
export const handler = userRoute({ query: JobsQuerySchema }, async ({ accountId, queryParams }) => ({ status: 200, body: await listAccountJobs(accountId, queryParams) }));
