import type { Companion } from '../accounts/caller.repository.js';
import type { EmailRecord } from './model.js';
import { outreachKeys } from './outreach.keys.js';

/** An outreach email read in the same BatchGetItem as the caller's key record (accounts/caller.repository.ts). */
export const emailCompanion = (accountId: string, emailId: string): Companion<EmailRecord> => ({
  table: 'outreach',
  key: outreachKeys.email(accountId, emailId),
  decode: (item) => item as unknown as EmailRecord,
});
