import { createHmac, timingSafeEqual } from 'node:crypto';
import { ValidationError } from './errors.js';

/**
 * The opaque `cursor` of a paged list: where the previous page ended and which page that was, with an
 * HMAC-SHA256 (the service's list cursor key, outreach/cursor-key.repository.ts) binding both to the list's
 * scope (the caller's account, the list, its filters and page size), base64url-encoded. A cursor that does
 * not decode, or whose MAC does not match the scope (altered, forged, or made for another account, list or
 * filter) is 400 `invalid_request`, as the enrollment cursor of GET /sequences/{id}/ is. Only the service
 * makes cursors; even so every key read is built from the caller's account.
 */
export interface ListPosition {
  /** The list key of the last item of the page the cursor follows. */
  after: string;
  /** The number of that page. */
  page: number;
}

/** 128 bits of HMAC-SHA256, base64url. The label keeps these MACs apart from any other use of the key. */
const mac = (key: Buffer, scope: readonly (string | number)[], p: ListPosition) => createHmac('sha256', key).update(JSON.stringify(['list-cursor', scope, p.after, p.page])).digest('base64url').slice(0, 22);

/** Whether two MACs are equal, in time that does not depend on where they differ. */
export function macEquals(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

export function encodeListCursor(key: Buffer, scope: readonly (string | number)[], p: ListPosition): string {
  return Buffer.from(JSON.stringify([p.after, p.page, mac(key, scope, p)]), 'utf8').toString('base64url');
}

export function decodeListCursor(key: Buffer, scope: readonly (string | number)[], cursor: string): ListPosition {
  const invalid = () => new ValidationError('Invalid query parameters.', [{ path: 'cursor', message: 'not a cursor of this list' }]);
  let parts: unknown;
  try {
    parts = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (!Array.isArray(parts) || parts.length !== 3 || typeof parts[0] !== 'string' || !Number.isSafeInteger(parts[1]) || (parts[1] as number) < 1 || typeof parts[2] !== 'string') throw invalid();
  const p = { after: parts[0] as string, page: parts[1] as number };
  if (!macEquals(parts[2] as string, mac(key, scope, p))) throw invalid();
  return p;
}

/** How one paged list is read: where page N starts, one page from a position, and the list's bounded count. */
export interface PagedListReads<T> {
  position(page: number, pageSize: number): Promise<string | undefined | null>;
  page(after: string | undefined, pageSize: number): Promise<{ items: T[]; walked: number; last: string | undefined; more: boolean }>;
  /** Exact up to a cap of entries (adapters/list-index.ts LIST_COUNT_CAP); past it a lower bound, `exact: false`. */
  count(): Promise<{ count: number; exact: boolean }>;
}

/**
 * One page of a docs/decisions.md#lists list (`page`, `page_size` → `{count, page, page_size, total_pages, results}`) with
 * `count_exact` and `next_cursor`: a cursor continues after its page without walking the pages before it, and a page
 * that reaches the end of the list knows the count exactly, so only a page with more after it counts the entries, and
 * that count stops at a cap (issue 42). Past the cap `count` is a lower bound, `count_exact` false: the larger of
 * what the bounded count found and the items up to the end of this page, and `total_pages` follows from it.
 */
export async function readPagedList<T>(scope: readonly (string | number)[], q: { page?: number; page_size: number; cursor?: string }, reads: PagedListReads<T>, cursorKey: () => Promise<Buffer>) {
  let page = q.page ?? 1;
  let after: string | undefined | null;
  if (q.cursor) {
    const p = decodeListCursor(await cursorKey(), scope, q.cursor);
    if (q.page !== undefined && q.page !== p.page + 1) throw new ValidationError('Invalid query parameters.', [{ path: 'page', message: 'does not follow the cursor (leave it out, or send the page after the cursor’s)' }]);
    page = p.page + 1;
    after = p.after;
  } else {
    after = await reads.position(page, q.page_size);
  }
  const read = after === null ? null : await reads.page(after, q.page_size);
  // The entries up to the end of this page: the whole list's when it is the last.
  const through = read ? (page - 1) * q.page_size + read.walked : 0;
  const counted = read && !read.more ? { count: through, exact: true } : await reads.count();
  const count = counted.exact ? counted.count : Math.max(counted.count, through);
  return {
    count,
    count_exact: counted.exact,
    page,
    page_size: q.page_size,
    total_pages: Math.ceil(count / q.page_size),
    results: read?.items ?? [],
    next_cursor: read?.more && read.last ? encodeListCursor(await cursorKey(), scope, { after: read.last, page }) : null,
  };
}
