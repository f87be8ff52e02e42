import { NotFoundError } from '../core/errors.js';
import { testEmailView } from './model.js';
import { getTestEmail } from './test-emails.repository.js';

/** GET /test-emails/{id}/: the caller's own record; another account's id is the same 404 as an unknown one. */
export async function getOwnTestEmail(accountId: string, id: string): Promise<ReturnType<typeof testEmailView>> {
  const record = await getTestEmail(accountId, id);
  if (!record) throw new NotFoundError('Test email not found.');
  return testEmailView(record);
}
