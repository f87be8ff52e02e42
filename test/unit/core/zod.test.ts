import * as classic from 'zod';
import * as z from '../../../shared/core/zod.js';

/**
 * shared/core/zod.ts: the service's schemas are zod/mini, and the 400 `details` of docs/decisions.md#error-envelope carry zod's messages, so
 * a mini schema must say exactly what the same classic schema says. (Importing classic zod installs the English
 * messages for every schema in the process: zod-messages.test.ts checks shared/core/zod.ts installs them alone.)
 */
const mini = z.strictObject({
  name: z.string().check(z.trim(), z.minLength(1), z.maxLength(5)),
  email: z.optional(z.email().check(z.maxLength(320))),
  steps: z._default(z.number().check(z.int(), z.gte(1), z.lte(4)), 3),
  review: z._default(z.enum(['required', 'none']), 'required'),
  cc: z._default(z.array(z.email()).check(z.maxLength(1)), []),
  page: z._default(z.coerce.number().check(z.int(), z.gte(1)), 1),
  send_at: z.optional(z.iso.datetime({ offset: true })),
  id: z.optional(z.string().check(z.regex(/^ea_[0-9a-z]{26}$/, 'must be an ea_<id>'))),
});
const same = classic.strictObject({
  name: classic.string().trim().min(1).max(5),
  email: classic.email().max(320).optional(),
  steps: classic.number().int().min(1).max(4).default(3),
  review: classic.enum(['required', 'none']).default('required'),
  cc: classic.array(classic.email()).max(1).default([]),
  page: classic.coerce.number().int().min(1).default(1),
  send_at: classic.iso.datetime({ offset: true }).optional(),
  id: classic.string().regex(/^ea_[0-9a-z]{26}$/, 'must be an ea_<id>').optional(),
});

const issues = (r: { success: boolean; error?: { issues: readonly { path: PropertyKey[]; message: string; code: string }[] } }) =>
  (r.error?.issues ?? []).map((i) => [i.path.join('.'), i.code, i.message]);

test.each([
  [{ name: '   ' }],
  [{ name: 'abcdefgh', email: 'not-an-email', steps: 1.5, review: 'later', cc: ['a@b.co', 'c@d.co'] }],
  [{ name: 'ok', steps: 0, page: 'x', send_at: '2026-13-01', id: 'ea_1', extra: true }],
  [{ name: 7, email: 5, steps: '2', cc: 'a@b.co', page: -1 }],
  ['not an object'],
])('a mini schema refuses %j with the classic messages, codes and paths', (value) => {
  const got = issues(mini.safeParse(value));
  expect(got.length).toBeGreaterThan(0);
  expect(got).toEqual(issues(same.safeParse(value)));
});

test('a mini schema parses to what the classic one does (defaults, trimming, coercion)', () => {
  const value = { name: '  Ann ', page: '3', cc: [] };
  expect(mini.parse(value)).toEqual(same.parse(value));
  expect(mini.parse(value)).toEqual({ name: 'Ann', steps: 3, review: 'required', cc: [], page: 3 });
});

test('the JSON Schema of a mini schema is the classic one (the OpenAPI document is built from them)', () => {
  expect(z.toJSONSchema(mini, { io: 'input' })).toEqual(classic.toJSONSchema(same, { io: 'input' }));
});
