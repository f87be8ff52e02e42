import type { Scheduler } from '../adapters/scheduler.js';
import { DEADLINES, after } from '../catalog/deadlines.js';
import type { Clock } from '../core/clock.js';
import { getEmail, transition } from '../outreach/emails.repository.js';
import type { EmailRecord } from '../outreach/model.js';
import { reviewScheduleName, scheduleSend } from '../outreach/schedule-send.js';
import { transitionEnrollment } from './sequences.repository.js';
import type { EnrollmentRecord } from './model.js';

/**
 * Activate one drafted enrollment (the sequence's approve, or a pass with review `none` closing): every step
 * `queued` (step 0 asking for its best time, due within the grace so the sweeper books it after a crash; later
 * steps resting until the step before them is sent), its review window cleared, then the enrollment `active`,
 * then step 0's slot. A step moved meanwhile is left as it is. An enrollment whose 7-day review window has
 * closed is not activated (`expired`): it expires (review-window.ts).
 */
export async function activateEnrollment(e: EnrollmentRecord, deps: { clock: Clock; scheduler: Scheduler }): Promise<'activated' | 'expired' | 'moved'> {
  const now = deps.clock.now();
  const iso = now.toISOString();
  const head = await getEmail(e.account_id, e.email_ids[0]!);
  if (head?.review_expires_at && new Date(head.review_expires_at).getTime() <= now.getTime()) return 'expired';
  let first: EmailRecord | null = null;
  for (const [step, id] of e.email_ids.entries()) {
    const moved =
      step === 0
        ? await transition(e.account_id, id, ['pending_review'], { status: 'queued', updated_at: iso, review_expires_at: null, send_request: { mode: 'best_time', send_at: null } }, [], { due: after(now, DEADLINES.DISPATCH_GRACE_MS) })
        : await transition(e.account_id, id, ['pending_review'], { status: 'queued', updated_at: iso, review_expires_at: null }, [], { due: null });
    if (step === 0) first = moved;
  }
  const active = await transitionEnrollment(e.account_id, e.contact.email, e.sequence_id, ['pending_review'], { status: 'active', updated_at: iso });
  if (first) await scheduleSend(first, 'best_time', undefined, deps);
  if (active) await deps.scheduler.cancel(reviewScheduleName(e.email_ids[0]!));
  return active ? 'activated' : 'moved';
}
