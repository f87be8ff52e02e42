import type * as z from '../core/zod.js';
import { readPagedList } from '../core/list-cursor.js';
import { listCursorKey } from './cursor-key.repository.js';
import { countEmailList, emailListPage, emailListPosition, type EmailListFilter } from './emails.repository.js';
import { emailListItem } from './model.js';
import type { ListEmailsQuerySchema } from './schemas.js';

/**
 * GET /emails/ (docs/decisions.md#outreach-emails: `status`, `since`, `page`, `page_size` → `{count, page, page_size, total_pages,
 * results}`): API-created emails, newest first by `created_at` (the id breaks ties), items without their
 * bodies. Read through the list index, never the account's partition: a page's emails are read by key, and
 * `count` is a count of index entries (known without one when the page reaches the end of the list). Each answer also carries `next_cursor` (null on the last page): passed
 * back as `cursor`, it continues after this page without walking the pages before it, which asking for
 * `page` N by number does (over the index entries only).
 */
export async function listEmails(accountId: string, q: z.output<typeof ListEmailsQuerySchema>) {
  const filter: EmailListFilter = { ...(q.status ? { status: q.status } : {}), ...(q.since !== undefined ? { since: new Date(q.since).toISOString() } : {}) };
  const scope = ['emails', accountId, filter.status ?? '', filter.since ?? '', q.page_size];
  const list = await readPagedList(scope, q, {
    position: (page, size) => emailListPosition(accountId, filter, page, size),
    page: async (after, size) => {
      const r = await emailListPage(accountId, filter, after, size);
      return { ...r, items: r.emails };
    },
    count: () => countEmailList(accountId, filter),
  }, listCursorKey);
  return { ...list, results: list.results.map(emailListItem) };
}
