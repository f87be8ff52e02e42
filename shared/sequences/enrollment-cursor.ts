import { createHash } from 'node:crypto';
import { ValidationError } from '../core/errors.js';
import type { SequenceRecord } from './model.js';

/**
 * The `cursor` of GET /sequences/{id}/: the key of the last enrollment a page looked at (its address; the
 * enrollment's item key is ACCOUNT#<account> / ENROLL#<address>#<sq_id>), with the sequence it belongs to and a
 * digest binding both to the caller's account, base64url-encoded. Enrollments are keyed by contact first (so
 * one address's enrollments are one query), which leaves no key range per sequence to query from; the
 * sequence's append-only `contacts` list orders them, and a page reads by key only the enrollments after the
 * cursor's. A cursor that does not decode, names another sequence, fails its digest (altered, or another
 * account's) or names an address not enrolled here is 400 `invalid_request`. The digest is not a secret: a
 * caller who forges a cursor still only chooses where to start reading their own sequence, since every key
 * read is built from the caller's account and the path's sequence id.
 */
const digest = (accountId: string, sequenceId: string, address: string) => createHash('sha256').update(`${accountId}\n${sequenceId}\n${address}`).digest('base64url').slice(0, 16);

export function encodeEnrollmentCursor(s: Pick<SequenceRecord, 'account_id' | 'id'>, address: string): string {
  return Buffer.from(JSON.stringify([s.id, address, digest(s.account_id, s.id, address)]), 'utf8').toString('base64url');
}

/** Where the page after `cursor` starts in `s.contacts`. */
export function enrollmentCursorStart(s: Pick<SequenceRecord, 'account_id' | 'id' | 'contacts'>, cursor: string): number {
  const invalid = () => new ValidationError('Invalid query parameters.', [{ path: 'cursor', message: 'not a cursor of this sequence' }]);
  let parts: unknown;
  try {
    parts = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (!Array.isArray(parts) || parts.length !== 3 || !parts.every((p) => typeof p === 'string')) throw invalid();
  const [sequenceId, address, check] = parts as [string, string, string];
  if (sequenceId !== s.id || check !== digest(s.account_id, s.id, address)) throw invalid();
  const at = s.contacts.indexOf(address);
  if (at < 0) throw invalid();
  return at + 1;
}
