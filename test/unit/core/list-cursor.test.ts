import { createHash } from 'node:crypto';
import { ValidationError } from '../../../shared/core/errors.js';
import { decodeListCursor, encodeListCursor } from '../../../shared/core/list-cursor.js';
import { encodeEnrollmentCursor, encodeReplyCursor, enrollmentCursorStart, replyCursorAfter } from '../../../shared/sequences/enrollment-cursor.js';

/**
 * List cursors are MACed with the service's key (HMAC-SHA256): whoever knows the format but not the key cannot
 * make one, neither by recomputing the unkeyed digest the cursors carried before nor under another key.
 */
const key = Buffer.alloc(32, 7);
const otherKey = Buffer.alloc(32, 8);
const scope = ['emails', 'acct_a', '', '', 20] as const;
const position = { after: '2026-01-01T00:00:00.000Z#em_01jabcdefghjkmnpqrstvwxyz0', page: 3 };
const b64 = (parts: unknown) => Buffer.from(JSON.stringify(parts), 'utf8').toString('base64url');

function refused(fn: () => unknown): ValidationError {
  let thrown: unknown;
  try {
    fn();
  } catch (e) {
    thrown = e;
  }
  expect(thrown).toBeInstanceOf(ValidationError);
  expect((thrown as ValidationError).code).toBe('invalid_request');
  expect((thrown as ValidationError).statusCode).toBe(400);
  return thrown as ValidationError;
}

test('a list cursor round-trips under the key, and only under it', () => {
  const cursor = encodeListCursor(key, scope, position);
  expect(decodeListCursor(key, scope, cursor)).toEqual(position);
  refused(() => decodeListCursor(otherKey, scope, cursor));
  refused(() => decodeListCursor(key, ['emails', 'acct_b', '', '', 20], cursor));
});

test('a cursor forged without the key (the unkeyed digest of before, another position with the old MAC) is 400', () => {
  // The digest list cursors carried before: anyone could compute it.
  const unkeyed = createHash('sha256').update(JSON.stringify([scope, 'z', 1])).digest('base64url').slice(0, 22);
  refused(() => decodeListCursor(key, scope, b64(['z', 1, unkeyed])));
  const [, , mac] = JSON.parse(Buffer.from(encodeListCursor(key, scope, position), 'base64url').toString('utf8')) as [string, number, string];
  refused(() => decodeListCursor(key, scope, b64([position.after, position.page + 5, mac])));
  refused(() => decodeListCursor(key, scope, b64(['2099#em_x', position.page, mac])));
  refused(() => decodeListCursor(key, scope, b64([position.after, position.page, ''])));
});

test('enrollment and replies cursors are keyed the same way', () => {
  const s = { id: 'sq_01jabcdefghjkmnpqrstvwxyz0', account_id: 'acct_a', contacts: ['a@x.test', 'b@x.test'] };
  expect(enrollmentCursorStart(key, s, encodeEnrollmentCursor(key, s, 'a@x.test'))).toBe(1);
  refused(() => enrollmentCursorStart(key, s, encodeEnrollmentCursor(otherKey, s, 'a@x.test')));
  const unkeyed = createHash('sha256').update(`${s.account_id}\n${s.id}\na@x.test`).digest('base64url').slice(0, 16);
  refused(() => enrollmentCursorStart(key, s, b64([s.id, 'a@x.test', unkeyed])));
  const sk = '2026-01-01T00:00:00.000Z#rp_01jabcdefghjkmnpqrstvwxyz0';
  expect(replyCursorAfter(key, s, encodeReplyCursor(key, s, sk, 10), 10)).toBe(sk);
  refused(() => replyCursorAfter(key, s, encodeReplyCursor(otherKey, s, sk, 10), 10));
  refused(() => replyCursorAfter(key, s, encodeReplyCursor(key, s, sk, 10), 20));
});
