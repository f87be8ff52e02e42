import { createHmac } from 'node:crypto';
import { macEquals } from '../core/list-cursor.js';
import { ValidationError } from '../core/errors.js';
import type { SequenceRecord } from './model.js';

/**
 * The `cursor` of GET /sequences/{id}/: the key of the last enrollment a page looked at (its address; the
 * enrollment's item key is ACCOUNT#<account> / ENROLL#<address>#<sq_id>), with the sequence it belongs to and an
 * HMAC-SHA256 under the list cursor key (outreach/cursor-key.repository.ts) binding both to the caller's
 * account, base64url-encoded. Enrollments are keyed by contact first (so
 * one address's enrollments are one query), which leaves no key range per sequence to query from; the
 * sequence's append-only `contacts` list orders them, and a page reads by key only the enrollments after the
 * cursor's. A cursor that does not decode, names another sequence, fails its MAC (altered, forged, or
 * another account's) or names an address not enrolled here is 400 `invalid_request`. Only the service makes
 * cursors; even so every key read is built from the caller's account and the path's sequence id.
 */
const mac = (key: Buffer, ...fields: (string | number)[]) => createHmac('sha256', key).update(JSON.stringify(fields)).digest('base64url').slice(0, 22);

export function encodeEnrollmentCursor(key: Buffer, s: Pick<SequenceRecord, 'account_id' | 'id'>, address: string): string {
  return Buffer.from(JSON.stringify([s.id, address, mac(key, 'enrollments', s.account_id, s.id, address)]), 'utf8').toString('base64url');
}

/** The three strings a cursor of this file holds (sequence id, position, MAC), or `invalid()` thrown. */
function cursorParts(cursor: string, invalid: () => Error): [string, string, string] {
  let parts: unknown;
  try {
    parts = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (!Array.isArray(parts) || parts.length !== 3 || !parts.every((p) => typeof p === 'string')) throw invalid();
  return parts as [string, string, string];
}

/** Where the page after `cursor` starts in `s.contacts`. */
export function enrollmentCursorStart(key: Buffer, s: Pick<SequenceRecord, 'account_id' | 'id' | 'contacts'>, cursor: string): number {
  const invalid = () => new ValidationError('Invalid query parameters.', [{ path: 'cursor', message: 'not a cursor of this sequence' }]);
  const [sequenceId, address, check] = cursorParts(cursor, invalid);
  if (sequenceId !== s.id || !macEquals(check, mac(key, 'enrollments', s.account_id, s.id, address))) throw invalid();
  const at = s.contacts.indexOf(address);
  if (at < 0) throw invalid();
  return at + 1;
}

/**
 * The `cursor` of GET /sequences/{id}/replies/: the list key of the last reply a page showed
 * (`<received_at>#<reply id>`, in the sequence's own key range of the list index), with the sequence and an
 * HMAC-SHA256 under the list cursor key binding both to the caller's account and the page size,
 * base64url-encoded. Anything else is 400.
 */
export function encodeReplyCursor(key: Buffer, s: Pick<SequenceRecord, 'account_id' | 'id'>, listSk: string, pageSize: number): string {
  return Buffer.from(JSON.stringify([s.id, listSk, mac(key, 'replies', s.account_id, s.id, listSk, pageSize)]), 'utf8').toString('base64url');
}

/** The list key the page after `cursor` starts after. */
export function replyCursorAfter(key: Buffer, s: Pick<SequenceRecord, 'account_id' | 'id'>, cursor: string, pageSize: number): string {
  const invalid = () => new ValidationError('Invalid query parameters.', [{ path: 'cursor', message: 'not a replies cursor of this sequence and page_size' }]);
  const [sequenceId, listSk, check] = cursorParts(cursor, invalid);
  if (sequenceId !== s.id || !macEquals(check, mac(key, 'replies', s.account_id, s.id, listSk, pageSize))) throw invalid();
  return listSk;
}
