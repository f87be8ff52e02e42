import type * as z from '../core/zod.js';
import { reserveWith } from '../accounts/ledger.repository.js';
import { DEADLINES, after } from '../catalog/deadlines.js';
import { PRICES } from '../accounts/prices.js';
import { listSendingAccounts } from '../accounts/sending-accounts.repository.js';
import type { SendingAccount } from '../accounts/model.js';
import { allWithCapacity } from './sending-capacity.js';
import { sendMessage } from '../adapters/queue.js';
import { serviceClock, type Clock } from '../core/clock.js';
import { newId } from '../core/ids.js';
import { ConflictError, ValidationError } from '../core/errors.js';
import type { Contact, EmailRecord } from './model.js';
import type { CreateEmailSchema } from './schemas.js';
import { messages } from '../catalog/messages.js';
import { getLead, isSuppressed, leadUpsertWrite } from './leads.repository.js';
import { isOptedOut } from '../privacy/opt-outs.repository.js';
import { findContact } from '../enrichment/identity.js';
import { findByProfessionalUrl } from '../directory/directory.repository.js';
import { normalizeProfessionalUrl } from '../directory/urls.js';
import { timeZoneForLocation } from './country-zone.js';
import { isValidTimeZone } from './send-time.js';
import { newEmailWrites, undraftedEmailFields } from './emails.repository.js';
import { logger } from '../core/logger.js';

/**
 * POST /emails/ — accept an email for drafting.
 *
 * 1. Take the time and the id together, before any await, so ids and `created_at` agree on order.
 * 2. Choose the sender: `from_account` (owned by the caller, else 400; not usable, 409) or the
 *    least-loaded connected, sending-enabled account (none: 409). `reply_to` must be one of the caller's
 *    connected accounts (else 400). A suppressed (unsubscribed) recipient is refused (400), and so is one who
 *    opted out through a privacy request (docs/privacy.md). An account
 *    with a daily limit of 0 is usable: its emails wait in `queued` until it has capacity.
 * 3. Resolve the recipient's time zone (directory, else the lead) for best-time sending.
 * 4. One transaction: reserve 2 credits, write the email as `drafting`, and make the recipient a lead.
 * 5. One message to the drafting queue (the email is due within the dispatch grace, so the sweeper sends
 *    it again if it is lost).
 */

export const usable = (a: SendingAccount) => a.connected && a.sending_enabled;

/** Share of today's limit already used; an account without capacity today comes last. */
const load = (a: SendingAccount) => (a.daily_limit > 0 ? a.sent_today / a.daily_limit : Number.POSITIVE_INFINITY);

export function leastLoaded(accounts: SendingAccount[]): SendingAccount | null {
  const candidates = accounts.filter(usable);
  candidates.sort((a, b) => (load(a) === load(b) ? a.id.localeCompare(b.id) : load(a) < load(b) ? -1 : 1));
  return candidates[0] ?? null;
}

/**
 * The recipient's IANA zone: the directory person behind their email (or their profile URL), else what
 * the lead already holds; null when nobody knows where they are.
 */
export async function recipientTimeZone(accountId: string, to: Contact): Promise<string | null> {
  return (await directoryTimeZone(to)) ?? (await getLead(accountId, to.email))?.timezone ?? null;
}

/** The recipient's IANA zone as the directory knows it (the person behind their email, else their profile URL), or null. */
export async function directoryTimeZone(to: Contact): Promise<string | null> {
  const byEmail = await findContact({ email: to.email }, ['email']);
  const url = byEmail?.professional_url ?? (to.professional_url ? normalizeProfessionalUrl(to.professional_url) : null);
  const person = url ? await findByProfessionalUrl(url) : null;
  if (!person) return null;
  const { time_zone, country_code } = person.person.location;
  return (isValidTimeZone(time_zone) ? time_zone : timeZoneForLocation(country_code)) || null;
}

export async function chooseSender(accountId: string, fromAccount: string | undefined, replyTo: string | undefined, clock: Clock): Promise<SendingAccount> {
  const accounts = await listSendingAccounts(accountId, clock);
  let sender: SendingAccount | null;
  if (fromAccount) {
    sender = accounts.find((a) => a.id === fromAccount) ?? null;
    if (!sender) throw new ValidationError('from_account is not one of your sending accounts.', [{ path: 'from_account', message: 'not found among your sending accounts' }]);
    if (!usable(sender)) throw new ConflictError('from_account is not connected or not enabled for sending.');
  } else {
    // Loaded against each account's effective limit today (warm-up, engagement throttle).
    const chosen = leastLoaded(await allWithCapacity(accounts.filter(usable), clock));
    sender = chosen ? accounts.find((a) => a.id === chosen.id)! : null;
    if (!sender) throw new ConflictError('No connected, sending-enabled account is available; connect one in the web application.');
  }
  if (replyTo && !accounts.some((a) => a.connected && a.email.toLowerCase() === replyTo.toLowerCase())) {
    throw new ValidationError('reply_to must be one of your connected sending accounts.', [{ path: 'reply_to', message: 'not a connected account of yours' }]);
  }
  return sender;
}

export async function createEmail(accountId: string, body: z.output<typeof CreateEmailSchema>, clock: Clock = serviceClock): Promise<{ id: string; status: 'drafting'; created_at: string }> {
  const now = clock.now();
  const iso = now.toISOString();
  const id = newId('em', now.getTime());
  const chargeId = newId('chg', now.getTime());
  const [suppressed, optedOut, sender, recipientZone] = await Promise.all([
    isSuppressed(accountId, body.to.email),
    isOptedOut({ email: body.to.email }),
    chooseSender(accountId, body.from_account, body.reply_to, clock),
    recipientTimeZone(accountId, body.to),
  ]);
  if (suppressed) {
    throw new ValidationError('The recipient has unsubscribed from your emails.', [{ path: 'to.email', message: 'on your suppression list' }]);
  }
  // Refused as an unsubscribed recipient is: the owner of the address opted out of every account's outreach (docs/privacy.md).
  if (optedOut) {
    throw new ValidationError('The recipient has opted out of all outreach through this service.', [{ path: 'to.email', message: 'opted out' }]);
  }
  const name = [body.to.first_name, body.to.last_name].filter(Boolean).join(' ');
  const record: EmailRecord = {
    id,
    account_id: accountId,
    ...undraftedEmailFields(iso),
    contact: body.to,
    to: { email: body.to.email, name },
    from_account: sender.id,
    from_email: sender.email,
    reply_to: body.reply_to ?? null,
    cc: body.cc,
    bcc: body.bcc,
    review: body.review,
    instructions: body.instructions,
    charge_id: chargeId,
    timezone: sender.timezone,
    recipient_timezone: recipientZone,
    api_created: true,
  };
  // Due within the dispatch grace: if the drafting message is lost, the sweeper sends it again.
  const writes = [...newEmailWrites(record, after(now, DEADLINES.DISPATCH_GRACE_MS)), leadUpsertWrite(accountId, body.to, iso, recipientZone)];
  await reserveWith({ accountId, operation: 'outreach_email', reference: id, amount: PRICES.outreach_email, chargeId }, writes);
  try {
    await sendMessage('drafting', messages.draftEmail(accountId, id));
  } catch (e) {
    // The email is recorded and due: the sweeper starts its draft. The 202 stands.
    logger.error('draft dispatch failed; the sweeper will dispatch it', { emailId: id, error: e as Error });
  }
  return { id, status: 'drafting', created_at: iso };
}
