import { listSendingAccounts } from '../accounts/sending-accounts.repository.js';
import type { SendingAccount } from '../accounts/model.js';
import { allWithCapacity } from '../outreach/sending-capacity.js';
import type { Clock } from '../core/clock.js';
import { ConflictError, ValidationError } from '../core/errors.js';
import { leastLoaded, usable } from '../outreach/create-email.js';

/**
 * The sending account of a sequence's enrollments (docs/decisions.md#sequences): stop-on-reply needs reply detection,
 * which only `google` and `microsoft` mailboxes give, so the caller must have one connected (else 409), and
 * an `smtp` `from_account` is 409 too. `from_account` must be the caller's (else 400) and usable (else 409);
 * without it the least-loaded usable google or microsoft account sends. `reply_to` must be one of the
 * caller's connected accounts (else 400), as for single emails.
 */
const detectsReplies = (a: SendingAccount) => a.type === 'google' || a.type === 'microsoft';

export async function chooseSequenceSender(accountId: string, fromAccount: string | undefined, replyTo: string | undefined, clock: Clock): Promise<SendingAccount> {
  const accounts = await listSendingAccounts(accountId, clock);
  let sender: SendingAccount | null;
  if (fromAccount) {
    sender = accounts.find((a) => a.id === fromAccount) ?? null;
    if (!sender) throw new ValidationError('from_account is not one of your sending accounts.', [{ path: 'from_account', message: 'not found among your sending accounts' }]);
    if (!detectsReplies(sender)) throw new ConflictError('Sequences need a google or microsoft sending account: replies to an smtp account cannot be detected.');
    if (!usable(sender)) throw new ConflictError('from_account is not connected or not enabled for sending.');
  } else {
    // Loaded against each account's effective limit today (warm-up, engagement throttle).
    const chosen = leastLoaded(await allWithCapacity(accounts.filter((a) => detectsReplies(a) && usable(a)), clock));
    sender = chosen ? accounts.find((a) => a.id === chosen.id)! : null;
    if (!sender) throw new ConflictError('Sequences need a connected google or microsoft sending account; connect one in the web application.');
  }
  if (replyTo && !accounts.some((a) => a.connected && a.email.toLowerCase() === replyTo.toLowerCase())) {
    throw new ValidationError('reply_to must be one of your connected sending accounts.', [{ path: 'reply_to', message: 'not a connected account of yours' }]);
  }
  return sender;
}
