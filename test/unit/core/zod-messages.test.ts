import * as z from '../../../shared/core/zod.js';

/**
 * Without classic zod in the process (it installs the English messages on import, for every zod schema):
 * shared/core/zod.ts alone must give the 400 `details` of docs/decisions.md#error-envelope their messages; zod/mini installs none.
 */
test('schemas built from shared/core/zod.ts say what went wrong in English', () => {
  const schema = z.strictObject({
    name: z.string().check(z.minLength(1)),
    email: z.email(),
    steps: z.number().check(z.int(), z.lte(4)),
    review: z.enum(['required', 'none']),
  });
  const r = schema.safeParse({ name: '', email: 'nope', steps: 5, review: 'later', extra: 1 });
  expect(r.error?.issues.map((i) => [i.path.join('.'), i.message])).toEqual([
    ['name', 'Too small: expected string to have >=1 characters'],
    ['email', 'Invalid email address'],
    ['steps', 'Too big: expected number to be <=4'],
    ['review', 'Invalid option: expected one of "required"|"none"'],
    ['', 'Unrecognized key: "extra"'],
  ]);
});
