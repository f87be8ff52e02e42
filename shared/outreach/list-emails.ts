import type * as z from 'zod';
import { queryEmails } from './emails.repository.js';
import { emailView, type ListEmailsQuerySchema } from './model.js';

/** GET /emails/: API-created emails, newest first, filtered by wire status and `since`, paged. */
export async function listEmails(accountId: string, q: z.output<typeof ListEmailsQuerySchema>) {
  const since = q.since ? new Date(q.since).getTime() : null;
  const all = (await queryEmails(accountId)).filter(
    (e) => (e as unknown as { api_created?: boolean }).api_created && (!q.status || e.status === q.status) && (since === null || new Date(e.created_at).getTime() >= since),
  );
  const start = (q.page - 1) * q.page_size;
  return {
    count: all.length,
    page: q.page,
    page_size: q.page_size,
    total_pages: Math.ceil(all.length / q.page_size),
    results: all.slice(start, start + q.page_size).map(emailView),
  };
}
