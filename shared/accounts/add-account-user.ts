import * as z from '../core/zod.js';
import { USER_POOL } from '../catalog/user-pool.js';
import { createPoolUser } from '../adapters/user-pool.js';
import { requireAccount } from './accounts.repository.js';

const { password: policy } = USER_POOL;

/** The pool's password policy, checked here so that a refused password leaves no half-made user behind. */
export const AddAccountUserSchema = z.strictObject({
  email: z.email().check(z.maxLength(254)),
  password: z
    .string()
    .check(
      z.minLength(policy.minLength),
      z.maxLength(256),
      z.regex(/[a-z]/, 'needs a lowercase letter'),
      z.regex(/[A-Z]/, 'needs an uppercase letter'),
      z.regex(/[0-9]/, 'needs a digit'),
      z.regex(/[^A-Za-z0-9]/, 'needs a symbol'),
    ),
});

/**
 * Add a user to an account (console POST accounts/{id}/users/).
 *
 * Input: the account id, the user's email and a permanent password. Output: `{sub, email, account_id}`.
 *
 * 1. The account must exist (404).
 * 2. A Cognito user with the account id as `custom:account_id`, its password set as permanent (409 when the
 *    email is taken).
 */
export async function addAccountUser(accountId: string, input: z.output<typeof AddAccountUserSchema>): Promise<{ sub: string; email: string; account_id: string }> {
  await requireAccount(accountId);
  const { sub } = await createPoolUser({ ...input, accountId });
  return { sub, email: input.email, account_id: accountId };
}
