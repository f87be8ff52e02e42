import { serviceClock, type Clock } from '../core/clock.js';
import { sendMessage } from '../adapters/queue.js';
import { awsScheduler, type Scheduler } from '../adapters/scheduler.js';
import { messages } from '../catalog/messages.js';
import { DEADLINES, after, nextLook, type SweepAction } from '../catalog/deadlines.js';
import { getEmail, transition } from './emails.repository.js';
import { failDraft } from './drafting.js';
import { expireReview } from './review.js';
import { scheduleSend } from './schedule-send.js';
import { failInterruptedSend } from './send-email.js';
import type { EmailRecord, EmailStatus } from './model.js';

/** Move an email's due time, only while it is still in `status` (it may have moved on meanwhile). */
const postpone = (email: EmailRecord, status: EmailStatus, at: Date | null) => transition(email.account_id, email.id, [status], {}, [], { due: at });

/**
 * An email found on the due index (its next step is overdue):
 * - `drafting` within DEADLINES.DRAFT_MS: its message was lost; sent again. Past it: `failed`, released.
 * - `pending_review` past its window: cancelled as expired (its schedule may never have been created).
 * - `queued` without a slot: booked as its approval asked (kept in `send_request`); with a slot that came
 *   and went: put on the sending queue (the send re-checks everything and claims once).
 * - `sending` past its lease: the attempt died mid-send; `failed` as "may have been sent", never resent.
 */
export async function sweepEmail(accountId: string, emailId: string, deps: { clock?: Clock; scheduler?: Scheduler } = {}): Promise<SweepAction> {
  const clock = deps.clock ?? serviceClock;
  const scheduler = deps.scheduler ?? awsScheduler;
  const email = await getEmail(accountId, emailId);
  if (!email) return 'none';
  const now = clock.now();
  switch (email.status) {
    case 'drafting': {
      const deadline = after(email.created_at, DEADLINES.DRAFT_MS);
      if (now.getTime() >= deadline.getTime()) {
        await failDraft(email, 'The draft could not be written; nothing was charged.', clock, scheduler);
        return 'ended';
      }
      await sendMessage('drafting', messages.draftEmail(accountId, emailId));
      await postpone(email, 'drafting', deadline);
      return 'redriven';
    }
    case 'pending_review': {
      const closes = new Date(email.review_expires_at ?? email.updated_at);
      if (closes.getTime() > now.getTime()) {
        await postpone(email, 'pending_review', closes);
        return 'postponed';
      }
      await expireReview(accountId, emailId, clock, scheduler);
      return 'ended';
    }
    case 'queued': {
      if (email.awaiting_capacity) {
        await postpone(email, 'queued', null);
        return 'cleared';
      }
      if (!email.scheduled_for) {
        const request = email.send_request ?? { mode: 'best_time' as const, send_at: null };
        const passed = request.mode === 'at' && new Date(request.send_at!).getTime() < now.getTime();
        await scheduleSend(email, passed ? 'now' : request.mode, passed ? undefined : (request.send_at ?? undefined), { clock, scheduler });
        return 'redriven';
      }
      const slotDue = after(email.scheduled_for, DEADLINES.DISPATCH_GRACE_MS);
      if (slotDue.getTime() > now.getTime()) {
        await postpone(email, 'queued', slotDue);
        return 'postponed';
      }
      await sendMessage('sending', messages.sendEmail(accountId, emailId));
      await postpone(email, 'queued', nextLook(now, email.scheduled_for));
      return 'redriven';
    }
    case 'sending': {
      const leaseLeft = (email.send_lease_until_ms ?? 0) - Date.now();
      if (leaseLeft > 0) {
        await postpone(email, 'sending', after(now, leaseLeft));
        return 'postponed';
      }
      await failInterruptedSend(email, clock);
      return 'ended';
    }
    default:
      await postpone(email, email.status, null);
      return 'cleared';
  }
}
