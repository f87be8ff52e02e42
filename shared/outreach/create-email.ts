import { randomBytes } from 'node:crypto';
import type * as z from 'zod';
import { release, reserveWith } from '../accounts/ledger.repository.js';
import { PRICES } from '../accounts/prices.js';
import { listSendingAccounts } from '../accounts/sending-accounts.repository.js';
import type { SendingAccount } from '../accounts/model.js';
import { sendMessage } from '../adapters/queue.js';
import { serviceClock, type Clock } from '../core/clock.js';
import { newId } from '../core/ids.js';
import { ConflictError, ValidationError } from '../core/errors.js';
import type { CreateEmailSchema, EmailRecord } from './model.js';
import { messages } from '../catalog/messages.js';
import { isSuppressed, upsertLead } from './leads.repository.js';
import { newEmailWrites, transition } from './emails.repository.js';
import { logger } from '../core/logger.js';

/**
 * POST /emails/ — accept an email for drafting.
 *
 * 1. Choose the sender: `from_account` (owned by the caller, else 400; not usable, 409) or the
 *    least-loaded connected, sending-enabled account (none: 409). `reply_to` must be one of the caller's
 *    connected accounts (else 400). A suppressed (unsubscribed) recipient is refused (400).
 * 2. The recipient becomes or updates a lead.
 * 3. One transaction: reserve 2 credits and write the email as `drafting`.
 * 4. One message to the drafting queue.
 */

export const usable = (a: SendingAccount) => a.connected && a.sending_enabled && a.daily_limit > 0;

export function leastLoaded(accounts: SendingAccount[]): SendingAccount | null {
  const candidates = accounts.filter(usable);
  candidates.sort((a, b) => a.sent_today / a.daily_limit - b.sent_today / b.daily_limit || a.id.localeCompare(b.id));
  return candidates[0] ?? null;
}

export async function chooseSender(accountId: string, fromAccount: string | undefined, replyTo: string | undefined, clock: Clock): Promise<SendingAccount> {
  const accounts = await listSendingAccounts(accountId, clock);
  let sender: SendingAccount | null;
  if (fromAccount) {
    sender = accounts.find((a) => a.id === fromAccount) ?? null;
    if (!sender) throw new ValidationError('from_account is not one of your sending accounts.', [{ path: 'from_account', message: 'not found among your sending accounts' }]);
    if (!usable(sender)) throw new ConflictError('from_account is not connected or not enabled for sending.');
  } else {
    sender = leastLoaded(accounts);
    if (!sender) throw new ConflictError('No connected, sending-enabled account is available; connect one in the web application.');
  }
  if (replyTo && !accounts.some((a) => a.connected && a.email.toLowerCase() === replyTo.toLowerCase())) {
    throw new ValidationError('reply_to must be one of your connected sending accounts.', [{ path: 'reply_to', message: 'not a connected account of yours' }]);
  }
  return sender;
}

export async function createEmail(accountId: string, body: z.output<typeof CreateEmailSchema>, clock: Clock = serviceClock): Promise<{ id: string; status: 'drafting'; created_at: string }> {
  if (await isSuppressed(accountId, body.to.email)) {
    throw new ValidationError('The recipient has unsubscribed from your emails.', [{ path: 'to.email', message: 'on your suppression list' }]);
  }
  const sender = await chooseSender(accountId, body.from_account, body.reply_to, clock);
  const now = clock.now();
  const iso = now.toISOString();
  await upsertLead(accountId, body.to, iso);

  const id = newId('em', now.getTime());
  const chargeId = newId('chg', now.getTime());
  const name = [body.to.first_name, body.to.last_name].filter(Boolean).join(' ');
  const record: EmailRecord = {
    id,
    account_id: accountId,
    status: 'drafting',
    contact: body.to,
    to: { email: body.to.email, name },
    from_account: sender.id,
    from_email: sender.email,
    reply_to: body.reply_to ?? null,
    cc: body.cc,
    bcc: body.bcc,
    review: body.review,
    subject: '',
    body_plain: '',
    body_html: '',
    instructions: body.instructions,
    created_at: iso,
    updated_at: iso,
    drafted_at: null,
    scheduled_for: null,
    sent_at: null,
    opened_at: null,
    replied_at: null,
    open_count: 0,
    review_expires_at: null,
    error: null,
    charge_id: chargeId,
    message_id: null,
    track_token: randomBytes(24).toString('base64url'),
    timezone: sender.timezone,
    api_created: true,
  };
  await reserveWith({ accountId, operation: 'outreach_email', reference: id, amount: PRICES.outreach_email, chargeId }, newEmailWrites(record));
  try {
    await sendMessage('drafting', messages.draftEmail(accountId, id));
  } catch (e) {
    // Could not hand it to the drafter: fail it, nothing charged.
    logger.error('draft dispatch failed', { emailId: id, error: e as Error });
    await release(accountId, chargeId, clock);
    await transition(accountId, id, ['drafting'], { status: 'failed', updated_at: clock.now().toISOString(), error: { code: 'dispatch_failed', message: 'The draft could not be started; nothing was charged.' } });
  }
  return { id, status: 'drafting', created_at: iso };
}
