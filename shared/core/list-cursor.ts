import { createHash } from 'node:crypto';
import { ValidationError } from './errors.js';

/**
 * The opaque `cursor` of a paged list: where the previous page ended and which page that was, with a digest
 * binding both to the list's scope (the caller's account, the list, its filters and page size),
 * base64url-encoded. A cursor that does not decode, or whose digest does not match the scope (altered, or
 * made for another account, list or filter) is 400 `invalid_request`, as the enrollment cursor of GET
 * /sequences/{id}/ is. The digest is not a secret: a forged cursor still only chooses where to start reading
 * the caller's own list, since every key read is built from the caller's account.
 */
export interface ListPosition {
  /** The list key of the last item of the page the cursor follows. */
  after: string;
  /** The number of that page. */
  page: number;
}

const digest = (scope: readonly (string | number)[], p: ListPosition) => createHash('sha256').update(JSON.stringify([scope, p.after, p.page])).digest('base64url').slice(0, 22);

export function encodeListCursor(scope: readonly (string | number)[], p: ListPosition): string {
  return Buffer.from(JSON.stringify([p.after, p.page, digest(scope, p)]), 'utf8').toString('base64url');
}

export function decodeListCursor(scope: readonly (string | number)[], cursor: string): ListPosition {
  const invalid = () => new ValidationError('Invalid query parameters.', [{ path: 'cursor', message: 'not a cursor of this list' }]);
  let parts: unknown;
  try {
    parts = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (!Array.isArray(parts) || parts.length !== 3 || typeof parts[0] !== 'string' || !Number.isSafeInteger(parts[1]) || (parts[1] as number) < 1 || typeof parts[2] !== 'string') throw invalid();
  const p = { after: parts[0] as string, page: parts[1] as number };
  if (parts[2] !== digest(scope, p)) throw invalid();
  return p;
}
