import type * as z from '../core/zod.js';
import { queryEmailListRecords } from './emails.repository.js';
import { emailListItem, type EmailListRecord } from './model.js';
import type { ListEmailsQuerySchema } from './schemas.js';

const newestFirst = (a: EmailListRecord, b: EmailListRecord) => (a.created_at === b.created_at ? (a.id < b.id ? 1 : a.id > b.id ? -1 : 0) : a.created_at < b.created_at ? 1 : -1);

/**
 * GET /emails/: API-created emails, newest first by `created_at` (the id breaks ties; both are taken
 * together at create), filtered by wire status and `since`, paged; items without their bodies.
 */
export async function listEmails(accountId: string, q: z.output<typeof ListEmailsQuerySchema>) {
  const since = q.since ?? null;
  const all = (await queryEmailListRecords(accountId))
    .filter((e) => e.api_created && (!q.status || e.status === q.status) && (since === null || new Date(e.created_at).getTime() >= since))
    .sort(newestFirst);
  const start = (q.page - 1) * q.page_size;
  return {
    count: all.length,
    page: q.page,
    page_size: q.page_size,
    total_pages: Math.ceil(all.length / q.page_size),
    results: all.slice(start, start + q.page_size).map(emailListItem),
  };
}
