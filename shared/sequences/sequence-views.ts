import type * as z from '../core/zod.js';
import { NotFoundError } from '../core/errors.js';
import { emailStatuses, getEmails } from '../outreach/emails.repository.js';
import { countSequenceList, enrollmentStepsOf, enrollmentsAt, getSequence, repliesAt, sequenceListPage, sequenceListPosition, sequenceReplyKeys, type ReplyView } from './sequences.repository.js';
import { readPagedList } from '../core/list-cursor.js';
import { listCursorKey } from '../outreach/cursor-key.repository.js';
import { ENROLLMENT_PAGE_SIZE, REPLY_PAGE_SIZE, enrollmentView, sequenceListItem, sequenceSummary, type SequenceRecord } from './model.js';
import type { ListSequencesQuerySchema, SequenceReadQuerySchema, SequenceRepliesQuerySchema } from './schemas.js';
import { encodeEnrollmentCursor, encodeReplyCursor, enrollmentCursorStart, replyCursorAfter } from './enrollment-cursor.js';

/**
 * Reading sequences (docs/decisions.md#sequences): another tenant's or an unknown id is 404. Apart from the actions
 * so the read functions bundle neither the scheduler nor the send-time machinery.
 */
export async function requireSequence(accountId: string, id: string): Promise<SequenceRecord> {
  const s = await getSequence(accountId, id);
  if (!s) throw new NotFoundError('Sequence not found.');
  return s;
}

/**
 * What a page's enrollments may take of the function's answer. Lambda answers a synchronous invocation of at
 * most 6 MB, and behind API Gateway's proxy integration that answer is the body as a JSON string inside the
 * result: each quote and backslash of the body is escaped once more, so a page is measured that way. 1 MiB
 * is left for the sequence's own fields (instructions at most 2,000 characters), the headers and the envelope.
 */
const PAGE_BYTES = 5 * 1024 * 1024;
/** Enrollments read per round trip at most: 25 of at most 4 steps is one BatchGetItem of 100 emails. */
const READ_CHUNK = 25;
/**
 * Enrollments read first, before their sizes are known: then each round trip reads about as many as the
 * room left holds at the page's average so far (plus one, to find the end), so a page of long emails does
 * not read twice the enrollments it can carry.
 */
const FIRST_READ = 8;

const proxiedBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(JSON.stringify(value))) - 2;

export type SequencePageQuery = Partial<z.output<typeof SequenceReadQuerySchema>>;

/**
 * GET /sequences/{id}/ (and the first page for approve and cancel): the sequence's fields, `failed` over all of
 * its steps, and one page of enrollments in enrollment order with every step's email, after `cursor`. A page
 * holds at most `page_size` enrollments, fewer when their emails would pass PAGE_BYTES (edited bodies may be
 * 50,000 characters each); `next_cursor` is null on the last page. Only the page's enrollments and emails are
 * read in full.
 */
export async function sequencePage(s: SequenceRecord, q: SequencePageQuery = {}) {
  const pageSize = q.page_size ?? ENROLLMENT_PAGE_SIZE.default;
  const start = q.cursor === undefined ? 0 : enrollmentCursorStart(await listCursorKey(), s, q.cursor);
  const [page, failed] = await Promise.all([enrollmentPage(s, start, pageSize), failedSteps(s)]);
  return { ...sequenceSummary(s), failed, enrollments: page.enrollments, next_cursor: page.next < s.contacts.length ? encodeEnrollmentCursor(await listCursorKey(), s, s.contacts[page.next - 1]!) : null };
}

/** The enrollments from `s.contacts[start]` on that fit a page, and where the next page starts. */
async function enrollmentPage(s: SequenceRecord, start: number, pageSize: number) {
  const enrollments: ReturnType<typeof enrollmentView>[] = [];
  let next = start;
  let bytes = 0;
  while (next < s.contacts.length && enrollments.length < pageSize) {
    const fits = enrollments.length === 0 ? FIRST_READ : Math.floor((PAGE_BYTES - bytes) / (bytes / enrollments.length)) + 1;
    const chunk = s.contacts.slice(next, next + Math.max(1, Math.min(READ_CHUNK, pageSize - enrollments.length, fits)));
    const found = await enrollmentsAt(s, chunk);
    const emails = await getEmails(s.account_id, [...found.values()].flatMap((e) => e.email_ids));
    const byId = new Map(emails.map((m) => [m.id, m]));
    for (const address of chunk) {
      const e = found.get(address);
      // An address of a pass whose enrollment is not written yet has nothing to show: it is passed over.
      if (e) {
        const view = enrollmentView(e, byId);
        const size = proxiedBytes(view) + 1;
        // The first enrollment always goes in (four steps at their largest stay far below the budget).
        if (enrollments.length > 0 && bytes + size > PAGE_BYTES) return { enrollments, next };
        enrollments.push(view);
        bytes += size;
      }
      next++;
    }
  }
  return { enrollments, next };
}

/**
 * `failed` counts the failed steps of the whole sequence, not of the page. Only the statuses are read, and
 * none of a `completed` enrollment's steps: it completes only once its last step is sent, each step sending
 * only after the one before it, while a failed step ends its enrollment first (failed, bounced or cancelled).
 */
async function failedSteps(s: SequenceRecord): Promise<number> {
  const ids = (await enrollmentStepsOf(s)).filter((e) => e.status !== 'completed').flatMap((e) => e.email_ids ?? []);
  return (await emailStatuses(s.account_id, ids)).filter((status) => status === 'failed').length;
}

export async function getOwnSequence(accountId: string, id: string, q: SequencePageQuery = {}) {
  return sequencePage(await requireSequence(accountId, id), q);
}

/**
 * GET /sequences/: newest first, paged like GET /emails/ (docs/decisions.md#lists), without enrollments, through
 * the list index (list-emails.ts): one page of sequences read by key, `count` from the index entries, and a
 * `next_cursor` that continues without walking the pages before.
 */
export async function listSequences(accountId: string, q: z.output<typeof ListSequencesQuerySchema>) {
  const list = await readPagedList(['sequences', accountId, q.page_size], q, {
    position: (page, size) => sequenceListPosition(accountId, page, size),
    page: async (after, size) => {
      const r = await sequenceListPage(accountId, after, size);
      return { ...r, items: r.sequences };
    },
    count: () => countSequenceList(accountId),
  }, listCursorKey);
  return { ...list, results: list.results.map(sequenceListItem) };
}

export type SequenceRepliesQuery = Partial<z.output<typeof SequenceRepliesQuerySchema>>;

/** Replies read per round trip at most (a reply item is at most 400 KB, so 25 stay within BatchGetItem's 16 MB). */
const REPLY_READ_CHUNK = 25;

/**
 * GET /sequences/{id}/replies/: one page of the sequence's replies, bounces and auto-replies, oldest first, after
 * `cursor`. Only the sequence's own entries of the list index are walked (never the account's replies), then the
 * page's replies are read by key with their public fields alone. A page holds at most `page_size` replies, fewer
 * when they would pass PAGE_BYTES as Lambda returns them (a stored body may be up to 200,000 characters, one
 * received now up to 100,000 UTF-8 bytes); `next_cursor` is null on the last page.
 */
export async function sequenceReplies(accountId: string, id: string, q: SequenceRepliesQuery = {}) {
  const s = await requireSequence(accountId, id);
  const pageSize = q.page_size ?? REPLY_PAGE_SIZE.default;
  const after = q.cursor === undefined ? undefined : replyCursorAfter(await listCursorKey(), s, q.cursor, pageSize);
  const { keys, more } = await sequenceReplyKeys(accountId, id, after, pageSize);
  const replies: ReturnType<typeof replyView>[] = [];
  let bytes = 0;
  let last: string | undefined;
  let next = 0;
  while (next < keys.length) {
    const fits = replies.length === 0 ? FIRST_READ : Math.floor((PAGE_BYTES - bytes) / (bytes / replies.length)) + 1;
    const chunk = keys.slice(next, next + Math.max(1, Math.min(REPLY_READ_CHUNK, fits)));
    const found = new Map((await repliesAt(accountId, chunk)).map((r) => [r.list_sk, r]));
    for (const sk of chunk) {
      const r = found.get(sk);
      if (r) {
        const view = replyView(r);
        const size = proxiedBytes(view) + 1;
        // The first reply always goes in (one item is at most 400 KB, its answer far below the budget).
        if (replies.length > 0 && bytes + size > PAGE_BYTES) return { replies, next_cursor: encodeReplyCursor(await listCursorKey(), s, last!, pageSize) };
        replies.push(view);
        bytes += size;
      }
      last = sk;
      next++;
    }
  }
  return { replies, next_cursor: more && last !== undefined ? encodeReplyCursor(await listCursorKey(), s, last, pageSize) : null };
}

const replyView = (r: ReplyView) => ({ email_id: r.email_id, from_email: r.from_email, from_name: r.from_name, subject: r.subject, body_plain: r.body_plain, classification: r.classification, received_at: r.received_at });
