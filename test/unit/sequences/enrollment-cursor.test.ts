import { ValidationError } from '../../../shared/core/errors.js';
import { encodeEnrollmentCursor, enrollmentCursorStart } from '../../../shared/sequences/enrollment-cursor.js';

const key = Buffer.alloc(32, 5);
const s = { id: 'sq_01jabcdefghjkmnpqrstvwxyz0', account_id: 'acct_a', contacts: ['a@x.test', 'b@x.test', 'c@x.test'] };

test('a cursor starts the next page right after its enrollment', () => {
  expect(s.contacts.map((c) => enrollmentCursorStart(key, s, encodeEnrollmentCursor(key, s, c)))).toEqual([1, 2, 3]);
});

test('a cursor that does not decode, was altered, names another sequence or account, or an address not enrolled is invalid_request on `cursor`', () => {
  const good = encodeEnrollmentCursor(key, s, 'a@x.test');
  const [id, , mac] = JSON.parse(Buffer.from(good, 'base64url').toString('utf8')) as string[];
  const forged = (parts: unknown) => Buffer.from(JSON.stringify(parts), 'utf8').toString('base64url');
  const bad = [
    'not a cursor',
    good.slice(0, -3),
    forged([id, 'b@x.test', mac]),
    forged([id, 'a@x.test']),
    forged({ id }),
    encodeEnrollmentCursor(key, { ...s, id: 'sq_01jzzzzzzzzzzzzzzzzzzzzzz0' }, 'a@x.test'),
    encodeEnrollmentCursor(key, { ...s, account_id: 'acct_b' }, 'a@x.test'),
    encodeEnrollmentCursor(key, s, 'd@x.test'),
  ];
  for (const cursor of bad) {
    let thrown: unknown;
    try {
      enrollmentCursorStart(key, s, cursor);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(ValidationError);
    expect((thrown as ValidationError).details).toEqual([{ path: 'cursor', message: 'not a cursor of this sequence' }]);
  }
});
