import { DEADLINES, after, type SweepAction } from '../catalog/deadlines.js';
import { serviceClock, type Clock } from '../core/clock.js';
import { awsScheduler, type Scheduler } from '../adapters/scheduler.js';
import { materializePass } from './materialize-pass.js';
import { finishCancel } from './sequence-actions.js';
import { closePassIfDone } from './step-drafting.js';
import { getSequence, postponeSequence, restSequence } from './sequences.repository.js';

/**
 * A sequence found on the due index:
 * - a cancel not finished (the request died between closing the sequence and ending its enrollments): finished;
 * - a pass whose enrollments are not all written (a crash after the reservation): written now, drafts started;
 * - a pass whose emails are all counted but which did not close (a crash after the last count): closed now;
 * - a pass still drafting: looked at again later (each step is due on its own and the email sweeper ends it);
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
    await closePassIfDone(accountId, sequenceId, clock);
    return 'redriven';
  }
  if (await closePassIfDone(accountId, sequenceId, clock)) return 'ended';
  await postponeSequence(accountId, sequenceId, after(clock.now(), DEADLINES.DRAFT_MS));
  return 'postponed';
}
