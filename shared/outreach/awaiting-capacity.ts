import { updateSendingAccount, type SendingAccountChange } from '../accounts/sending-accounts.repository.js';
import type { SendingAccount } from '../accounts/model.js';
import { serviceClock, type Clock } from '../core/clock.js';
import type { Scheduler } from '../adapters/scheduler.js';
import { emailsAwaitingCapacity } from './emails.repository.js';
import type { EmailRecord } from './model.js';
import { scheduleSend } from './schedule-send.js';

/**
 * Console PATCH of a sending account (docs/decisions.md#the-local-stack). When it leaves the account with a daily limit above
 * zero, the emails that were approved while it had none get their slots now, each as its approval
 * asked (a fixed `send_at` that has meanwhile passed becomes "now").
 *
 * 1. Write the change.
 * 2. Find the account's `queued` emails from this sending account that wait for capacity: their entries in
 *    the sparse await index, a page at a time, then those emails by key, projected (no other email of the
 *    account is read, and no body is read into the function).
 * 3. Schedule each, in creation order, so the daily limit spills the later ones onto following days.
 */
export async function changeSendingAccount(
  eaId: string,
  patch: SendingAccountChange,
  deps: { clock?: Clock; scheduler?: Scheduler } = {},
): Promise<SendingAccount> {
  const clock = deps.clock ?? serviceClock;
  const { account_id: accountId, ...account } = await updateSendingAccount(eaId, patch, clock);
  if (patch.daily_limit === undefined || account.daily_limit <= 0) return account;
  // Only the waiting emails, a page at a time and without their bodies (scheduleSend reads no more of them).
  for await (const page of emailsAwaitingCapacity(accountId, eaId)) {
    for (const email of page) {
      const { mode, send_at } = email.awaiting_capacity!;
      const passed = mode === 'at' && new Date(send_at!).getTime() < clock.now().getTime();
      await scheduleSend(email as EmailRecord, passed ? 'now' : mode, passed ? undefined : (send_at ?? undefined), deps);
    }
  }
  return account;
}
