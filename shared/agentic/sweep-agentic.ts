import type { Clock } from '../core/clock.js';
import { sendMessage } from '../adapters/queue.js';
import { messages } from '../catalog/messages.js';
import { nextLook, type SweepAction } from '../catalog/deadlines.js';
import { postponeJob } from '../jobs/jobs.repository.js';
import type { AgenticJob } from './model.js';
import { completeRun } from './run-end.js';

/**
 * An agentic job still pending or running found overdue on the due index: past its deadline it is
 * completed `deadline_exceeded` with what it saved; with a checkpoint that says it must stop, completed
 * for that reason; otherwise its next step's message was lost (or its worker crashed after saving), and the
 * step is sent again from the checkpoint (a duplicate is a no-op).
 */
export async function sweepAgenticJob(job: AgenticJob, clock: Clock): Promise<SweepAction> {
  const now = clock.now();
  if (now.getTime() >= new Date(job.deadline_at).getTime()) return (await completeRun(job, 'deadline_exceeded', clock)) ? 'ended' : 'none';
  if (job.checkpoint.stop !== null) return (await completeRun(job, job.checkpoint.stop, clock)) ? 'ended' : 'none';
  await sendMessage('search', messages.agenticStep(job.id, job.checkpoint.step));
  await postponeJob(job.id, { status: job.status as 'pending' | 'running' }, nextLook(now, job.updated_at));
  return 'redriven';
}
