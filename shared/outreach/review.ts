import type * as z from '../core/zod.js';
import { pendingSettleWrites } from '../accounts/ledger.repository.js';
import { DEADLINES } from '../catalog/deadlines.js';
import { serviceClock, type Clock } from '../core/clock.js';
import { ConflictError, NotFoundError, ValidationError } from '../core/errors.js';
import { awsScheduler, type Scheduler } from '../adapters/scheduler.js';
import { getEmail, transition, transitionOrCurrent } from './emails.repository.js';
import { reviewScheduleName, scheduleSend, sendScheduleName } from './schedule-send.js';
import { releaseSlot } from './send-slots.repository.js';
import type { EmailRecord, EmailStatus } from './model.js';
import type { ApproveEmailSchema } from './schemas.js';
import { expireEnrollmentReview } from '../sequences/review-window.js';

/**
 * Review, approve and cancel (docs/decisions.md#outreach-email-states); the edit, which needs the
 * HTML sanitiser, is in edit-email.ts, so that approve and cancel do not load it. A wrong state is 409
 * `conflict` and costs nothing; another tenant's or an unknown id is 404.
 */
export async function requireEmail(accountId: string, id: string): Promise<EmailRecord> {
  const e = await getEmail(accountId, id);
  if (!e) throw new NotFoundError('Email not found.');
  return e;
}

export const conflict = (action: string, status: EmailStatus) => new ConflictError(`Cannot ${action} an email that is ${status}.`);

/** The email as a lost transition found it: judged again from there, without reading it once more. */
export function stillThere(r: { current: EmailRecord | null }): EmailRecord {
  if (!r.current) throw new NotFoundError('Email not found.');
  return r.current;
}

export async function approveEmail(accountId: string, id: string, body: z.output<typeof ApproveEmailSchema>, deps: { clock?: Clock; scheduler?: Scheduler } = {}): Promise<EmailRecord> {
  const clock = deps.clock ?? serviceClock;
  const scheduler = deps.scheduler ?? awsScheduler;
  const email = await requireEmail(accountId, id);
  if (email.sequence_id) throw new ConflictError('This email is a step of a sequence; approve the sequence.');
  if (email.status !== 'pending_review') throw conflict('approve', email.status);
  const now = clock.now();
  // The window has closed even if its expiry has not been processed yet: the expiry still cancels it.
  if (email.review_expires_at && new Date(email.review_expires_at).getTime() <= now.getTime()) {
    throw new ConflictError('Cannot approve an email whose 7-day review window has closed.');
  }
  if (body.schedule === 'at' && new Date(body.send_at!).getTime() < now.getTime() - 60_000) {
    throw new ValidationError('send_at is in the past.', [{ path: 'send_at', message: 'must not be in the past' }]);
  }
  // The approval's schedule is kept on the email and due within the grace: if a crash comes between this
  // write and the slot's booking, the sweeper books it as asked.
  const sendRequest = { mode: body.schedule, send_at: body.send_at ?? null };
  const r = await transitionOrCurrent(accountId, id, ['pending_review'], { status: 'queued', updated_at: now.toISOString(), review_expires_at: null, send_request: sendRequest }, [], {
    due: new Date(now.getTime() + DEADLINES.DISPATCH_GRACE_MS),
  });
  if (!r.moved) throw conflict('approve', stillThere(r).status);
  const queued = r.email;
  let scheduled: EmailRecord;
  try {
    scheduled = await scheduleSend(queued, body.schedule, body.send_at, { clock, scheduler });
  } catch (e) {
    // Could not schedule (e.g. the sending account vanished): back to review, window as it was.
    await transition(accountId, id, ['queued'], { status: 'pending_review', review_expires_at: email.review_expires_at }, ['send_request'], {
      due: email.review_expires_at ? new Date(email.review_expires_at) : null,
    });
    throw e;
  }
  await scheduler.cancel(reviewScheduleName(id));
  return scheduled;
}

export async function cancelEmail(accountId: string, id: string, deps: { clock?: Clock; scheduler?: Scheduler } = {}, known?: EmailRecord): Promise<EmailRecord> {
  const clock = deps.clock ?? serviceClock;
  const scheduler = deps.scheduler ?? awsScheduler;
  const email = known ?? (await requireEmail(accountId, id));
  if (email.sequence_id) throw new ConflictError('This email is a step of a sequence; cancel the sequence.');
  if (!['drafting', 'pending_review', 'queued'].includes(email.status)) throw conflict('cancel', email.status);
  const now = clock.now();
  // Cancelling while drafting costs nothing (released in the same transaction); a written draft keeps its charge.
  const release = email.status === 'drafting' ? await pendingSettleWrites(accountId, email.charge_id, 'released', 0, now) : [];
  const r = await transitionOrCurrent(accountId, id, [email.status], { status: 'cancelled', updated_at: now.toISOString() }, [], { with: release });
  if (!r.moved) return cancelEmail(accountId, id, deps, stillThere(r));
  const cancelled = r.email;
  if (email.status === 'pending_review') await scheduler.cancel(reviewScheduleName(id));
  if (email.status === 'queued') {
    await scheduler.cancel(sendScheduleName(id));
    if (email.slot_day) await releaseSlot(email.from_account, email.slot_day);
  }
  return cancelled;
}

/**
 * Timer target: the review window has passed; an email still unapproved is cancelled. A sequence step's
 * window is its enrollment's: the enrollment expires with all its steps (sequences/review-window.ts).
 */
export async function expireReview(accountId: string, id: string, clock: Clock = serviceClock, scheduler: Scheduler = awsScheduler): Promise<void> {
  const email = await getEmail(accountId, id);
  if (!email || email.status !== 'pending_review' || !email.review_expires_at) return;
  // An edit may have extended the window after this schedule was set.
  if (new Date(email.review_expires_at).getTime() > clock.now().getTime()) return;
  if (email.sequence_id) return expireEnrollmentReview(email, clock, scheduler);
  await transition(accountId, id, ['pending_review'], { status: 'cancelled', updated_at: clock.now().toISOString(), error: { code: 'review_expired', message: 'Not approved within the 7-day review window.' } });
}
