import type * as z from '../core/zod.js';
import { decodeListCursor, encodeListCursor } from '../core/list-cursor.js';
import { ValidationError } from '../core/errors.js';
import { countEmailList, emailListPage, emailListPosition, type EmailListFilter } from './emails.repository.js';
import { emailListItem } from './model.js';
import type { ListEmailsQuerySchema } from './schemas.js';

/**
 * GET /emails/ (SPEC.md: `status`, `since`, `page`, `page_size` → `{count, page, page_size, total_pages,
 * results}`): API-created emails, newest first by `created_at` (the id breaks ties), items without their
 * bodies. Read through the list index, never the account's partition: a page's emails are read by key, and
 * `count` is a count of index entries (known without one when the page reaches the end of the list). Each answer also carries `next_cursor` (null on the last page): passed
 * back as `cursor`, it continues after this page without walking the pages before it, which asking for
 * `page` N by number does (over the index entries only).
 */
export async function listEmails(accountId: string, q: z.output<typeof ListEmailsQuerySchema>) {
  const filter: EmailListFilter = { ...(q.status ? { status: q.status } : {}), ...(q.since !== undefined ? { since: new Date(q.since).toISOString() } : {}) };
  const scope = ['emails', accountId, filter.status ?? '', filter.since ?? '', q.page_size];
  let page = q.page ?? 1;
  let after: string | undefined | null;
  if (q.cursor) {
    const p = decodeListCursor(scope, q.cursor);
    if (q.page !== undefined && q.page !== p.page + 1) throw new ValidationError('Invalid query parameters.', [{ path: 'page', message: 'does not follow the cursor (leave it out, or send the page after the cursor’s)' }]);
    page = p.page + 1;
    after = p.after;
  } else {
    after = await emailListPosition(accountId, filter, page, q.page_size);
  }
  const read = after === null ? null : await emailListPage(accountId, filter, after, q.page_size);
  // A page that reaches the end of the list knows the count; only one with more after it counts the entries.
  const count = read && !read.more ? (page - 1) * q.page_size + read.walked : await countEmailList(accountId, filter);
  return {
    count,
    page,
    page_size: q.page_size,
    total_pages: Math.ceil(count / q.page_size),
    results: (read?.emails ?? []).map(emailListItem),
    next_cursor: read?.more && read.last ? encodeListCursor(scope, { after: read.last, page }) : null,
  };
}
