import { DEADLINES, after, type SweepAction } from '../catalog/deadlines.js';
import { serviceClock, type Clock } from '../core/clock.js';
import { awsScheduler, type Scheduler } from '../adapters/scheduler.js';
import { materializePass } from './materialize-pass.js';
import { finishCancel } from './sequence-actions.js';
import { getEmails } from '../outreach/emails.repository.js';
import { closePassIfDone, draftDeadline, failStep } from './step-drafting.js';
import { enrollmentsOf, getSequence, postponeSequence, restSequence } from './sequences.repository.js';
import type { SequenceRecord } from './model.js';

/**
 * A sequence found on the due index:
 * - a cancel not finished (the request died between closing the sequence and ending its enrollments): finished;
 * - a pass whose enrollments are not all written (a crash after the reservation): written now, drafts started;
 * - a pass whose emails are all counted but which did not close (a crash after the last count): closed now;
 * - a pass still drafting: each step is due on its own and the email sweeper ends it at its deadline; as a
 *   backstop, a step of the pass still `drafting` past its deadline ends here (its enrollment `failed`, the
 *   pass counted), then the pass is looked at again later;
 * - anything else has nothing waiting: off the index.
 */
export async function sweepSequence(accountId: string, sequenceId: string, clock: Clock = serviceClock, scheduler: Scheduler = awsScheduler): Promise<SweepAction> {
  const s = await getSequence(accountId, sequenceId);
  if (!s) return 'none';
  if (s.status === 'cancelled') {
    await finishCancel(s, clock, scheduler);
    return 'ended';
  }
  if (s.status !== 'drafting' || !s.pass) {
    await restSequence(accountId, sequenceId);
    return 'cleared';
  }
  if ((s.pending_count ?? 0) > 0) {
    await materializePass(s, clock);
    await closePassIfDone(accountId, sequenceId, clock, scheduler);
    return 'redriven';
  }
  if (await closePassIfDone(accountId, sequenceId, clock, scheduler)) return 'ended';
  if ((await endOverdueDrafts(s, clock, scheduler)) && (await closePassIfDone(accountId, sequenceId, clock, scheduler))) return 'ended';
  await postponeSequence(accountId, sequenceId, after(clock.now(), DEADLINES.DRAFT_MS));
  return 'postponed';
}

/** Every step of the open pass still `drafting` past its deadline: its enrollment's drafting ends. True when one did. */
async function endOverdueDrafts(s: SequenceRecord, clock: Clock, scheduler: Scheduler): Promise<boolean> {
  const now = clock.now().getTime();
  let ended = false;
  for (const e of await enrollmentsOf(s)) {
    if (e.pass_id !== s.pass!.id || (e.status !== 'drafting' && e.status !== 'failed')) continue;
    const overdue = (await getEmails(s.account_id, e.email_ids)).find((m) => m.status === 'drafting' && draftDeadline(m).getTime() <= now);
    if (overdue && (await failStep(overdue, 'The draft was not written within the drafting deadline; nothing was charged.', clock, scheduler))) ended = true;
  }
  return ended;
}
