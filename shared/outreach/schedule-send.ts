import { getSendingAccount } from '../accounts/sending-accounts.repository.js';
import { serviceClock, type Clock } from '../core/clock.js';
import { ConflictError, ValidationError } from '../core/errors.js';
import { sendMessage } from '../adapters/queue.js';
import { awsScheduler, scheduleName, type Scheduler } from '../adapters/scheduler.js';
import { bestSendTime, nextSlotNow } from './send-time.js';
import { bookSlot } from './send-slots.repository.js';
import { capacityOf } from './sending-capacity.js';
import { awaitingCapacityEntry, transition } from './emails.repository.js';
import type { EmailRecord, SendMode } from './model.js';
import { messages } from '../catalog/messages.js';
import { DEADLINES } from '../catalog/deadlines.js';

/**
 * Give a queued email its send slot: the desired time (best time, now, or a fixed `send_at`), moved to
 * the first local day on which the sending account still has capacity under that day's effective limit; then a one-time schedule puts
 * it on the sending queue at that slot (a slot due now goes on the queue directly). An account with a
 * configured daily limit of 0 has no slot to give: the email stays `queued` with the request kept until it has.
 */
export const sendScheduleName = (emailId: string) => scheduleName('send', emailId);
/** The schedule that ends an email's review window (set when drafted, moved by an edit, cancelled by approval). */
export const reviewScheduleName = (emailId: string) => scheduleName('review', emailId);

export async function scheduleSend(email: EmailRecord, mode: SendMode, sendAt: string | undefined, deps: { clock?: Clock; scheduler?: Scheduler } = {}): Promise<EmailRecord> {
  const clock = deps.clock ?? serviceClock;
  const scheduler = deps.scheduler ?? awsScheduler;
  const account = await getSendingAccount(email.account_id, email.from_account, clock);
  if (!account) throw new ConflictError('The sending account no longer exists.');
  const now = clock.now();
  if (account.daily_limit <= 0) {
    // It rests, off the due index and on the await index, until the account is given capacity
    // (changeSendingAccount wakes it); the write that books its slot below takes it off again.
    return (
      (await transition(email.account_id, email.id, ['queued'], { awaiting_capacity: { mode, send_at: sendAt ?? null }, ...awaitingCapacityEntry(email), scheduled_for: null, updated_at: now.toISOString() }, ['send_request'], { due: null })) ??
      email
    );
  }
  // Best time is in the recipient's zone when known (resolved at create), else the sending account's.
  const tz = email.recipient_timezone ?? account.timezone;
  let desired: Date;
  if (mode === 'now') desired = nextSlotNow(now);
  else if (mode === 'at') {
    desired = new Date(sendAt!);
    if (desired.getTime() < now.getTime() - 60_000) throw new ValidationError('send_at is in the past.', [{ path: 'send_at', message: 'must not be in the past' }]);
    if (desired < now) desired = now;
  } else desired = bestSendTime({ now, timeZone: tz, seed: email.id });

  // The days' effective limits: warm-up ramp and engagement throttle, projected ahead from the record.
  const { limitOn } = await capacityOf(account, clock);
  // Capacity counts in the account's days. A best-time send or a sequence's follow-up was timed in the
  // recipient's hours, so its weekday rule and the morning a spill lands on are the recipient's; a send
  // asked for now or at a fixed time spills to the account's next morning, any day.
  const followUp = Boolean(email.sequence_id) && (email.step ?? 0) > 0 && mode === 'at';
  const inRecipientHours = mode === 'best_time' || followUp;
  const slot = await bookSlot({ eaId: account.id, timeZone: account.timezone, dailyLimit: account.daily_limit, limitForDay: limitOn, desired, seed: email.id, weekdaysOnly: inRecipientHours, windowZone: inRecipientHours ? tz : account.timezone });
  // Due a grace after the slot: if its schedule or message is lost, the sweeper puts it on the sending queue.
  const updated = await transition(
    email.account_id,
    email.id,
    ['queued'],
    { scheduled_for: slot.at.toISOString(), slot_day: slot.day, updated_at: now.toISOString() },
    ['awaiting_capacity', 'send_request'],
    { due: new Date(slot.at.getTime() + DEADLINES.DISPATCH_GRACE_MS) },
  );
  if (!updated) return email;
  const wait = (slot.at.getTime() - now.getTime()) / 1000;
  if (wait <= 1) await sendMessage('sending', messages.sendEmail(email.account_id, email.id));
  else await scheduler.scheduleAt(sendScheduleName(email.id), slot.at, messages.sendDue(email.account_id, email.id));
  return updated;
}
