import { getAccount } from '../accounts/accounts.repository.js';
import { DEFAULT_FOLLOWUP_DAYS } from '../accounts/model.js';
import type { TransactItem } from '../accounts/ledger.repository.js';
import { awsScheduler, type Scheduler } from '../adapters/scheduler.js';
import { DEADLINES, after } from '../catalog/deadlines.js';
import { serviceClock, type Clock } from '../core/clock.js';
import { emailTransitionWrite, getEmail, getEmails, transition } from '../outreach/emails.repository.js';
import type { EmailRecord } from '../outreach/model.js';
import { scheduleSend, sendScheduleName } from '../outreach/schedule-send.js';
import { followUpTime } from '../outreach/send-time.js';
import { releaseSlot } from '../outreach/send-slots.repository.js';
import { enrollmentsOf, getSequenceHead, transitionEnrollment, transitionSequence } from './sequences.repository.js';
import { TERMINAL_ENROLLMENT, type EnrollmentStatus } from './model.js';

/**
 * The cadence of a running enrollment (docs/decisions.md#follow-ups, docs/decisions.md#a-reply-stops-later-sends):
 *
 * - When step k is sent, step k+1 is given its time in the same transaction that records the send: the
 *   account's `followup_days[k]` after the actual `sent_at`, moved into 09:00–17:00 on a weekday in the
 *   recipient's zone (the sender's when unknown), and its thread (In-Reply-To / References = the earlier
 *   steps' Message-IDs). It is due within the grace; right after, its send slot is booked (daily limits
 *   and spill as for any email), which creates its one Scheduler schedule (`send.<em_id>`, so a redelivery
 *   replaces it rather than adding one). The last step's send completes the enrollment.
 * - A reply (not from a cc address) or a bounce ends the enrollment `replied` / `bounced`: every unsent
 *   step is cancelled, its schedule deleted and its slot released. An auto-reply changes nothing.
 * - A step the send worker ends without sending (the recipient replied elsewhere, bounced, unsubscribed,
 *   opted out through a privacy request, the sender is gone, the provider refused) ends the enrollment the same way.
 * - A sequence is `completed` once every enrollment is terminal and at least one step was sent.
 */
const STOPPABLE: EnrollmentStatus[] = ['drafting', 'pending_review', 'active'];

/** The writes that schedule the next step of a sequence step being recorded `sent` (none for the last step). */
export async function stepSentWrites(email: EmailRecord, messageId: string, sentAt: Date, threadId?: string | null): Promise<TransactItem[]> {
  const ids = email.step_ids;
  const step = email.step ?? 0;
  const nextId = ids?.[step + 1];
  if (!nextId) return [];
  const days = (await getAccount(email.account_id))?.followup_days ?? DEFAULT_FOLLOWUP_DAYS;
  const at = followUpTime({ previousSentAt: sentAt, daysAfter: days[step] ?? DEFAULT_FOLLOWUP_DAYS[step]!, timeZone: email.recipient_timezone ?? email.timezone, seed: nextId });
  return [
    emailTransitionWrite(
      email.account_id,
      nextId,
      null,
      {
        send_request: { mode: 'at', send_at: at.toISOString() },
        in_reply_to: messageId,
        references: [...(email.references ?? []), messageId],
        // A provider mailbox (Gmail) files the follow-up in the same thread only when told its thread id.
        ...(threadId ? { thread_id: threadId } : {}),
        updated_at: sentAt.toISOString(),
      },
      [],
      after(sentAt, DEADLINES.DISPATCH_GRACE_MS),
    ),
  ];
}

/** After a step is recorded `sent`: book the next step's slot, or complete the enrollment after the last one. */
export async function onStepSent(email: EmailRecord, deps: { clock?: Clock; scheduler?: Scheduler } = {}): Promise<void> {
  const clock = deps.clock ?? serviceClock;
  const nextId = email.step_ids?.[(email.step ?? 0) + 1];
  if (nextId) {
    const next = await getEmail(email.account_id, nextId);
    if (next?.status === 'queued' && !next.scheduled_for && next.send_request) await scheduleSend(next, next.send_request.mode, next.send_request.send_at ?? undefined, { clock, scheduler: deps.scheduler });
    return;
  }
  const done = await transitionEnrollment(email.account_id, email.contact.email, email.sequence_id!, ['active'], { status: 'completed', updated_at: clock.now().toISOString() });
  if (done) await completeSequenceIfDone(email.account_id, email.sequence_id!, clock);
}

/**
 * End an enrollment (`replied`, `bounced`, `cancelled`, `failed`) and cancel its unsent steps with `code`:
 * schedules deleted, booked slots released. The enrollment moves first, so a step sent meanwhile schedules
 * nothing (its next step is cancelled here or finds the lead marked at its send).
 */
export async function stopEnrollment(accountId: string, contactEmail: string, sequenceId: string, status: EnrollmentStatus, code: string, deps: { clock?: Clock; scheduler?: Scheduler } = {}): Promise<boolean> {
  const clock = deps.clock ?? serviceClock;
  const now = clock.now().toISOString();
  const enrollment = await transitionEnrollment(accountId, contactEmail, sequenceId, STOPPABLE, { status, updated_at: now });
  if (!enrollment) return false;
  await cancelUnsentSteps(enrollment.account_id, enrollment.email_ids, code, clock, deps.scheduler ?? awsScheduler);
  await completeSequenceIfDone(accountId, sequenceId, clock);
  return true;
}

const STOP_MESSAGES: Record<string, string> = {
  recipient_replied: 'The recipient replied; the rest of the sequence is stopped.',
  recipient_bounced: 'An email of this sequence bounced; the rest of the sequence is stopped.',
  recipient_complained: 'The recipient reported an email of this sequence as spam; the rest of the sequence is stopped.',
  sequence_cancelled: 'The sequence was cancelled.',
  review_expired: 'Not approved within the 7-day review window.',
  opted_out: 'The recipient opted out of all outreach through this service; the rest of the sequence is stopped.',
};

export async function cancelUnsentSteps(accountId: string, ids: string[], code: string, clock: Clock, scheduler: Scheduler): Promise<void> {
  const now = clock.now().toISOString();
  for (const step of await getEmails(accountId, ids)) {
    if (!['drafting', 'pending_review', 'queued'].includes(step.status)) continue;
    const moved = await transition(accountId, step.id, ['drafting', 'pending_review', 'queued'], { status: 'cancelled', updated_at: now, error: { code, message: STOP_MESSAGES[code] ?? 'The enrollment ended.' } });
    if (!moved) continue;
    if (step.status === 'queued') {
      await scheduler.cancel(sendScheduleName(step.id));
      if (moved.slot_day) await releaseSlot(moved.from_account, moved.slot_day);
    }
  }
}

/** How an enrollment ends when the send worker ends one of its steps without sending it. */
const ENDED_BY: Record<string, EnrollmentStatus> = { recipient_replied: 'replied', recipient_bounced: 'bounced', unsubscribed: 'cancelled', opted_out: 'cancelled' };

export async function stepEndedUnsent(email: EmailRecord, code: string, deps: { clock?: Clock; scheduler?: Scheduler } = {}): Promise<void> {
  await stopEnrollment(email.account_id, email.contact.email, email.sequence_id!, ENDED_BY[code] ?? 'failed', code, deps);
}

/** `completed` once no pass is open, every enrollment is terminal and at least one of them had a step sent. */
export async function completeSequenceIfDone(accountId: string, sequenceId: string, clock: Clock = serviceClock): Promise<void> {
  const s = await getSequenceHead(accountId, sequenceId);
  if (!s || s.pass || (s.status !== 'active' && s.status !== 'pending_review')) return;
  const enrollments = await enrollmentsOf(s);
  if (!enrollments.every((e) => TERMINAL_ENROLLMENT.includes(e.status))) return;
  if (!enrollments.some((e) => ['completed', 'replied', 'bounced'].includes(e.status))) return;
  await transitionSequence(accountId, sequenceId, ['active', 'pending_review'], 'completed', clock.now().toISOString());
}
