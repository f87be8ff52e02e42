import { serviceClock, type Clock } from '../core/clock.js';
import { PRICES } from '../accounts/prices.js';
import { optedOutPeople } from '../privacy/opt-outs.repository.js';
import { getJob } from '../jobs/jobs.repository.js';
import { TERMINAL } from '../jobs/model.js';
import { sendFirstDelivery } from '../jobs/queue-delivery.js';
import { FAILURE_MESSAGES, type AgenticSearchItem, type CompletionReason } from '../webhooks/events.js';
import { endAgenticJob } from './agentic.repository.js';
import { isAgenticJob, type AgenticJob } from './model.js';

// How an agentic run ends, apart from its research steps (research-step.ts): the cancel route, the sweeper and
// the dead-letter consumer end runs without loading the search engine, its object store client or the page reader.

/**
 * The saved leads still to be delivered: a lead whose person opted out after the step that found it is left out
 * of the result and its lead price is not charged (one privacy-table read, by profile URL).
 */
async function deliverableLeads(job: AgenticJob): Promise<{ results: AgenticSearchItem[]; charge: number }> {
  const saved = job.agentic_results ?? [];
  const optedOut = saved.length ? await optedOutPeople(saved.map((x) => ({ professional_url: x.professional_url ?? null }))) : [];
  const results = saved.filter((_, i) => !optedOut[i]);
  return { results, charge: Math.max(0, job.checkpoint.charged - (saved.length - results.length) * PRICES.agentic_search.per_lead) };
}

/** What the polling `result` and the webhook carry on completion. */
function completedResult(job: AgenticJob, reason: CompletionReason, results: AgenticSearchItem[]) {
  const broadening = (job.checkpoint.rungs ?? []).map((r) => ({ ...r, leads: results.filter((x) => (x.found_by ?? 'exact') === r.rung).length }));
  return { partial: reason !== '', completion_reason: reason, total_returned: results.length, results, broadening };
}

/** End a run as `completed` with what it saved (`partial` unless `reason` is empty), then send its webhook. */
export async function completeRun(job: AgenticJob, reason: CompletionReason, clock: Clock = serviceClock): Promise<boolean> {
  const { results, charge } = await deliverableLeads(job);
  const result = completedResult(job, reason, results);
  const ended = await endAgenticJob(job, { status: 'completed', result, leads: result.total_returned, charge }, { step: job.checkpoint.step }, clock.now());
  const finished = await getJob(job.id);
  if (finished) await sendFirstDelivery(finished);
  return ended;
}

/** An internal failure: `failed` with code `error`, nothing charged (what the dead-letter consumer does with a step that gave up). */
export async function failRun(jobId: string, clock: Clock = serviceClock): Promise<void> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const job = await getJob(jobId);
    if (!isAgenticJob(job)) return;
    if (TERMINAL.includes(job.status)) return sendFirstDelivery(job);
    const ended = await endAgenticJob(job, { status: 'failed', error: { code: 'error', message: FAILURE_MESSAGES.agentic_search.error } }, { step: job.checkpoint.step }, clock.now());
    if (ended) {
      const finished = await getJob(jobId);
      if (finished) await sendFirstDelivery(finished);
      return;
    }
  }
}
