import * as z from '../../shared/core/zod.js';
import { userRoute } from '../../shared/http/handler.js';
import { getSendingAccount } from '../../shared/accounts/sending-accounts.repository.js';
import { withCapacity } from '../../shared/outreach/sending-capacity.js';
import { pageDays } from '../../shared/outreach/deliverability.repository.js';
import { addDays, utcDay } from '../../shared/outreach/warmup.js';
import { NotFoundError, ValidationError } from '../../shared/core/errors.js';
import { serviceClock } from '../../shared/core/clock.js';

/**
 * GET /api/app/v1/sending-accounts/{ea_id}/deliverability/: the mailbox's effective limit and why, and its
 * per-day deliverability record (UTC days), newest first. A day with no event at all is absent (its counters
 * are all 0). `from`/`to` default to the 30 days that end today; `cursor` is opaque (the last day of the
 * previous page). Another account's `ea_` is 404.
 */
const day = z.iso.date();
const QuerySchema = z
  .strictObject({
    from: z.optional(day),
    to: z.optional(day),
    limit: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(100)), 30),
    cursor: z.optional(z.string().check(z.maxLength(100))),
  })
  .check(z.refine((q) => !q.from || !q.to || q.from <= q.to, { message: 'from must not be after to', path: ['from'] }));

const decodeCursor = (cursor: string) => {
  const d = Buffer.from(cursor, 'base64url').toString('utf8');
  if (/^\d{4}-\d{2}-\d{2}$/.test(d)) return d;
  throw new ValidationError('Invalid query parameters.', [{ path: 'cursor', message: 'not a cursor from this list' }]);
};

export const handler = userRoute({ query: QuerySchema }, async ({ accountId, params, queryParams: q }) => {
  const raw = await getSendingAccount(accountId, params.ea_id!);
  if (!raw) throw new NotFoundError('Sending account not found.');
  const a = await withCapacity(raw);
  const to = q.to ?? utcDay(serviceClock.now());
  const from = q.from ?? addDays(to, -29);
  const page = await pageDays(raw.id, { from, to, limit: q.limit, ...(q.cursor ? { after: decodeCursor(q.cursor) } : {}) });
  return {
    status: 200,
    body: {
      account: { id: a.id, email: a.email, daily_limit: a.daily_limit, configured_daily_limit: a.configured_daily_limit, sent_today: a.sent_today, health: a.health, warmup: a.warmup, engagement: a.engagement },
      days: page.days,
      next_cursor: page.last ? Buffer.from(page.last, 'utf8').toString('base64url') : null,
    },
  };
});
