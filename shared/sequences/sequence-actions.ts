import { pendingSettleWrites } from '../accounts/ledger.repository.js';
import { PRICES } from '../accounts/prices.js';
import { awsScheduler, type Scheduler } from '../adapters/scheduler.js';
import { serviceClock, type Clock } from '../core/clock.js';
import { ConflictError } from '../core/errors.js';
import { activateEnrollment } from './activate-enrollment.js';
import { cancelUnsentSteps } from './cadence.js';
import { closePass, deletePendingEnrollments, enrollmentsOf, getEnrollment, pendingEnrollmentsOf, putCancelledEnrollment, restSequence, transitionEnrollment, transitionSequence } from './sequences.repository.js';
import { TERMINAL_ENROLLMENT, TERMINAL_SEQUENCE, type SequenceRecord } from './model.js';
import { requireSequence, sequencePage } from './sequence-views.js';
import { inBatches } from '../core/batches.js';

/**
 * Approving and cancelling sequences (docs/decisions.md#sequences). Another tenant's or an unknown id is 404; a wrong
 * state is 409 and costs nothing. Approve and cancel return the sequence with the first page of its enrollments
 * (as GET /sequences/{id}/ without `cursor`), so their answers stay as bounded as the read's.
 */
const CONCURRENCY = 8;

/** POST /sequences/{id}/approve/: every drafted enrollment goes live; 409 while drafting and once ended. */
export async function approveSequence(accountId: string, id: string, deps: { clock?: Clock; scheduler?: Scheduler } = {}) {
  const clock = deps.clock ?? serviceClock;
  const scheduler = deps.scheduler ?? awsScheduler;
  const s = await requireSequence(accountId, id);
  if (s.status === 'drafting') throw new ConflictError('The sequence is still drafting; approve it once drafting has finished.');
  if (TERMINAL_SEQUENCE.includes(s.status)) throw new ConflictError(`Cannot approve a ${s.status} sequence.`);
  const waiting = (await enrollmentsOf(s)).filter((e) => e.status === 'pending_review');
  let expired = 0;
  await inBatches(waiting, CONCURRENCY, async (e) => {
    if ((await activateEnrollment(e, { clock, scheduler })) === 'expired') expired++;
  });
  // As for one email: a window that has closed cannot be approved, even before its expiry is processed.
  if (s.status === 'pending_review' && waiting.length > 0 && expired === waiting.length) throw new ConflictError('Cannot approve a sequence whose 7-day review window has closed.');
  const now = clock.now().toISOString();
  const current = s.status === 'pending_review' ? ((await transitionSequence(accountId, id, ['pending_review'], 'active', now)) ?? (await requireSequence(accountId, id))) : await requireSequence(accountId, id);
  return sequencePage(current);
}

/**
 * POST /sequences/{id}/cancel/: the sequence `cancelled` first (an open pass is closed with it: its drafts so
 * far charged, the rest released; a draft landing after that is not counted, so it is not written), then
 * finishCancel. Sent steps stay as they are; nothing is refunded.
 */
export async function cancelSequence(accountId: string, id: string, deps: { clock?: Clock; scheduler?: Scheduler } = {}) {
  const clock = deps.clock ?? serviceClock;
  const scheduler = deps.scheduler ?? awsScheduler;
  let s = await requireSequence(accountId, id);
  for (let attempt = 0; ; attempt++) {
    if (TERMINAL_SEQUENCE.includes(s.status)) throw new ConflictError(`Cannot cancel a ${s.status} sequence.`);
    const now = clock.now();
    if (s.pass) {
      const drafted = s.pass_drafted ?? 0;
      const settle = await pendingSettleWrites(accountId, s.pass.charge_id, drafted > 0 ? 'charged' : 'released', PRICES.sequence_per_draft * drafted, now);
      if (await closePass(s, 'cancelled', now.toISOString(), settle)) break;
    } else if (await transitionSequence(accountId, id, [s.status], 'cancelled', now.toISOString())) break;
    if (attempt >= 10) throw new ConflictError('The sequence is changing; try again.');
    s = await requireSequence(accountId, id);
  }
  await finishCancel(s, clock, scheduler);
  return sequencePage(await requireSequence(accountId, id));
}

/**
 * End what a cancelled sequence still has running: every enrollment not yet ended `cancelled` with its unsent
 * steps (schedules deleted, slots released; again for one already cancelled, in case a cancel died between
 * the two), and in place of every enrollment of the cancelled pass not yet written a `cancelled` one, its lock
 * let go (an enrollment write arriving later then writes nothing; one that came first is ended as above).
 * Then the sequence leaves the due index. Idempotent: the cancel runs it, and the sweeper again when a cancel
 * died half-way.
 */
export async function finishCancel(s: SequenceRecord, clock: Clock, scheduler: Scheduler): Promise<void> {
  const iso = clock.now().toISOString();
  const enrollments = new Map((await enrollmentsOf(s)).map((e) => [e.contact.email.toLowerCase(), e]));
  const pending = new Map((await pendingEnrollmentsOf(s)).map((p) => [p.contact.email.toLowerCase(), p]));
  await inBatches(s.contacts, CONCURRENCY, async (address) => {
    let e = enrollments.get(address) ?? null;
    const p = pending.get(address);
    if (!e && p) {
      const tombstone = { sequence_id: s.id, account_id: s.account_id, contact: p.contact, status: 'cancelled' as const, email_ids: [], pass_id: '', created_at: iso, updated_at: iso };
      if (await putCancelledEnrollment(tombstone)) return;
      e = await getEnrollment(s.account_id, address, s.id);
    }
    if (!e) return;
    if (!TERMINAL_ENROLLMENT.includes(e.status)) await transitionEnrollment(s.account_id, address, s.id, ['drafting', 'pending_review', 'active'], { status: 'cancelled', updated_at: iso });
    else if (e.status !== 'cancelled') return;
    await cancelUnsentSteps(s.account_id, e.email_ids, 'sequence_cancelled', clock, scheduler);
  });
  // Every pending enrollment now has one in its place: their items go (idempotent; a later run finds none).
  if (s.pending_pass_id) await deletePendingEnrollments(s.account_id, s.id, s.pending_pass_id);
  await restSequence(s.account_id, s.id);
}
