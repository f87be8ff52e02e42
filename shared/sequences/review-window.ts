import type { Scheduler } from '../adapters/scheduler.js';
import { messages } from '../catalog/messages.js';
import type { Clock } from '../core/clock.js';
import { getEmails, transition } from '../outreach/emails.repository.js';
import type { EmailRecord } from '../outreach/model.js';
import { reviewScheduleName } from '../outreach/schedule-send.js';
import { cancelUnsentSteps } from './cadence.js';
import { enrollmentStepsOf, getEnrollment, getSequenceHead, transitionEnrollment, transitionSequence } from './sequences.repository.js';
import { TERMINAL_ENROLLMENT } from './model.js';

/**
 * The review window of sequence steps (docs/decisions.md#limits: "Review window: 7 days from draft (extended by edits)"; an
 * outreach email `pending_review` → 7 days pass unapproved → `cancelled`). A sequence is approved as a whole,
 * so the window belongs to the enrollment: every step of it waiting in `pending_review` carries the same
 * `review_expires_at`, 7 days from the enrollment's latest draft (step-drafting.ts), moved to 7 days from an
 * edit of any of its steps (PATCH /emails/{id}/). Each waiting step is due then on the due index, and one
 * schedule per enrollment (`review.<step 0 id>`) fires then; approving clears the window.
 *
 * When the window passes unapproved, the enrollment expires as a single email does: the enrollment
 * `cancelled` (its address free for other automation) and every unsent step `cancelled` with the error
 * `review_expired`. Nothing of it is sent; its drafts stay charged, as an expired email's draft does (every
 * step was drafted before its enrollment could wait for review, so no credit is left reserved for it). The
 * sequence, once no pass is open and none of its enrollments is still running: `completed` when one of them
 * had a step sent, else `cancelled` (a sequence left unapproved ends as an unapproved email does). While a
 * pass is open, its close judges the sequence (step-drafting.ts).
 */
export async function extendEnrollmentWindow(edited: EmailRecord, expires: Date, scheduler: Scheduler): Promise<void> {
  const ids = edited.step_ids ?? [edited.id];
  for (const id of ids) {
    if (id !== edited.id) await transition(edited.account_id, id, ['pending_review'], { review_expires_at: expires.toISOString() }, [], { due: expires });
  }
  await scheduler.scheduleAt(reviewScheduleName(ids[0]!), expires, messages.reviewExpired(edited.account_id, ids[0]!));
}

/** A step found past its window (the schedule, the sweeper): its enrollment expires, unless an edit moved the window. */
export async function expireEnrollmentReview(email: EmailRecord, clock: Clock, scheduler: Scheduler): Promise<void> {
  const now = clock.now();
  const ids = email.step_ids ?? [email.id];
  const waiting = (await getEmails(email.account_id, ids)).filter((m) => m.status === 'pending_review' && m.review_expires_at);
  const closes = Math.max(...waiting.map((m) => Date.parse(m.review_expires_at!)), 0);
  if (closes > now.getTime()) {
    // An edit of another step moved the enrollment's window (and a crash kept it from this step): follow it.
    const at = new Date(closes);
    if (email.review_expires_at !== at.toISOString()) await transition(email.account_id, email.id, ['pending_review'], { review_expires_at: at.toISOString() }, [], { due: at });
    return;
  }
  const iso = now.toISOString();
  let enrollment = await getEnrollment(email.account_id, email.contact.email, email.sequence_id!);
  if (enrollment?.status === 'pending_review') {
    enrollment = (await transitionEnrollment(email.account_id, email.contact.email, email.sequence_id!, ['pending_review'], { status: 'cancelled', updated_at: iso })) ?? (await getEnrollment(email.account_id, email.contact.email, email.sequence_id!));
  }
  // Cancelled by this expiry, or by one a crash cut short: its steps follow (a step sent already stays sent).
  if (enrollment?.status !== 'cancelled') return;
  await cancelUnsentSteps(email.account_id, enrollment.email_ids, 'review_expired', clock, scheduler);
  await scheduler.cancel(reviewScheduleName(ids[0]!));
  await settleSequence(email.account_id, email.sequence_id!, clock);
}

/** After an expiry, a sequence with nothing left running (and no pass open) ends. */
async function settleSequence(accountId: string, sequenceId: string, clock: Clock): Promise<void> {
  const s = await getSequenceHead(accountId, sequenceId);
  if (!s || s.pass || (s.status !== 'pending_review' && s.status !== 'active')) return;
  const enrollments = await enrollmentStepsOf(s);
  if (enrollments.some((e) => !TERMINAL_ENROLLMENT.includes(e.status))) return;
  const next = enrollments.some((e) => ['completed', 'replied', 'bounced'].includes(e.status)) ? 'completed' : 'cancelled';
  await transitionSequence(accountId, sequenceId, [s.status], next, clock.now().toISOString());
}
