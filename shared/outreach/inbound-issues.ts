import * as z from '../core/zod.js';
import { serviceClock, type Clock } from '../core/clock.js';
import { listInboundIssues, type InboundIssue } from './inbound-issues.repository.js';

/** `days` back from today (UTC, 1–30, default 7) and at most `limit` entries (1–200, default 50). */
export const InboundIssuesQuerySchema = z.strictObject({
  days: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(30)), 7),
  status: z.optional(z.enum(['unprocessable', 'repaired'])),
  limit: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(200)), 50),
});

/** The operators' list: what inbound mail could not be handled (and why), or was handled after trimming. */
export async function inboundIssues(q: z.output<typeof InboundIssuesQuerySchema>, clock: Clock = serviceClock): Promise<{ results: InboundIssue[] }> {
  const all = await listInboundIssues(clock.now(), q.days, q.status ? 200 : q.limit);
  return { results: (q.status ? all.filter((i) => i.status === q.status) : all).slice(0, q.limit) };
}
