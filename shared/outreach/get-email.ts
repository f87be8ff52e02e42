import { NotFoundError } from '../core/errors.js';
import { getEmail } from './emails.repository.js';
import { emailView, type EmailRecord } from './model.js';

/**
 * GET /emails/{id}/: the caller's email record. Emails are keyed by account, so the record can only be
 * read with the caller's key once the key's account is known (`preloaded`, null when absent); another
 * tenant's id is simply not found.
 */
export async function getOwnEmail(accountId: string, emailId: string, preloaded?: EmailRecord | null) {
  const email = preloaded === undefined ? await getEmail(accountId, emailId) : preloaded;
  if (!email) throw new NotFoundError('Email not found.');
  return emailView(email);
}
