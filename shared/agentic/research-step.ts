import { serviceClock, type Clock } from '../core/clock.js';
import { logger } from '../core/logger.js';
import { PRICES } from '../accounts/prices.js';
import { sendMessage } from '../adapters/queue.js';
import { pageReader } from '../adapters/page-reader.js';
import { messages } from '../catalog/messages.js';
import { getJob } from '../jobs/jobs.repository.js';
import { TERMINAL } from '../jobs/model.js';
import { searchEngine } from '../search/engine-source.js';
import { optedOutCheck, type OptedOutCheck } from '../search/visible-page.js';
import { sendFirstDelivery } from '../jobs/queue-delivery.js';
import type { AgenticSearchItem, CompletionReason } from '../webhooks/events.js';
import { markAgenticRunning, saveStep } from './agentic.repository.js';
import { evaluateCandidate } from '../understanding/evaluate.js';
import { understanding } from '../understanding/understanding.js';
import type { Understanding } from '../understanding/port.js';
import { isAgenticJob, RUNG_ADDED_MAX, type AgenticJob, type Checkpoint, type RungUse } from './model.js';
import { isNewAt, ladderOf, type Rung } from './ladder.js';
import { cursorAfter, type SearchCursor, type SearchEngine } from '../search-engine/search-port.js';
import { completeRun } from './run-end.js';
import type { PageReader, PageResult } from '../ports/page-reader.js';

/**
 * The research loop as a chain of bounded steps (one `agentic_step` message each).
 *
 * 1. A finished job only makes sure its webhook is on its way; a message whose step is not the
 *    checkpoint's is a duplicate or stale redelivery and does nothing.
 * 2. The first step moves the job `pending` → `running`.
 * 3. Between steps: a run past its deadline ends `deadline_exceeded`; a checkpoint that says the run
 *    must stop (target reached, shortlist done, budget) ends it.
 * 4. When the shortlist is used up before the run has its leads, the step moves down the broadening ladder
 *    (ladder.ts): the next rung's shortlist (people no earlier rung describes) replaces it, and the rung is
 *    saved in the checkpoint with it; rungs with nobody new are passed over. The run completes when the
 *    target is reached or the last rung's shortlist is used up.
 * 5. The step evaluates the next slice of the shortlist (at most CANDIDATES_PER_STEP candidates and
 *    STEP_BUDGET_MS of work, so no invocation comes near the Lambda time limit). Paid work starts with the
 *    first candidate evaluated: 100 credits, then 10 per lead; a lead that would pass `max_credits` is not
 *    taken and the run stops `budget_exhausted`.
 * 6. Its leads and the next checkpoint are saved in one write guarded by the step number, then the next
 *    step is sent. A crash before the save repeats the step from the same checkpoint; after it, the
 *    sweeper sends the next step again. Either way nothing is delivered or charged twice.
 */
export const AGENTIC_LIMITS = {
  /** Candidates per rung of the ladder, so at most 5 × 400 per run. */
  SHORTLIST_MAX: 400,
  /** Search pages of SHORTLIST_MAX hits a rung's shortlist may read past people earlier rungs describe. */
  RUNG_PAGES_MAX: 25,
  CANDIDATES_PER_STEP: 25,
  STEP_BUDGET_MS: 20_000,
} as const;

const price = PRICES.agentic_search;

const pastDeadline = (job: AgenticJob, now: Date) => now.getTime() >= new Date(job.deadline_at).getTime();

/** Why a run must stop before doing another step, or null to go on. */
function stopBeforeStep(job: AgenticJob, now: Date): CompletionReason | null {
  const cp = job.checkpoint;
  if (cp.stop !== null) return cp.stop;
  if (pastDeadline(job, now)) return 'deadline_exceeded';
  return null;
}

/**
 * A rung's shortlist: the ids of its best SHORTLIST_MAX hits that no earlier rung describes, in rank order,
 * read in pages (at most RUNG_PAGES_MAX) so the people earlier rungs already had do not crowd it out.
 */
export async function rungShortlist(engine: SearchEngine, ladder: Rung[], index: number): Promise<string[]> {
  const out: string[] = [];
  let after: SearchCursor | undefined;
  for (let page = 0; page < AGENTIC_LIMITS.RUNG_PAGES_MAX && out.length < AGENTIC_LIMITS.SHORTLIST_MAX; page++) {
    const hits = await engine.search(ladder[index]!.persona, { limit: AGENTIC_LIMITS.SHORTLIST_MAX, ...(after ? { after } : {}) });
    for (const h of hits) if (out.length < AGENTIC_LIMITS.SHORTLIST_MAX && isNewAt(ladder, index, h.person)) out.push(h.person.id);
    if (hits.length < AGENTIC_LIMITS.SHORTLIST_MAX) break;
    after = cursorAfter(hits);
  }
  return out;
}

const rungUse = (r: Rung, candidates: number): RungUse => ({ rung: r.rung, relaxes: r.relaxes, added: r.added.slice(0, RUNG_ADDED_MAX).map((a) => a.slice(0, 80)), candidates, evaluated: 0 });

/**
 * What a lead found below the first rung says about how it was found (the names the rung added are in the
 * result's `broadening`, once, not in every lead: 50 leads stay well inside the job item's size).
 */
function broadenedBy(r: Rung): string {
  switch (r.relaxes) {
    case 'title':
      return 'Found by broadening to equivalent titles.';
    case 'seniority':
      return 'Found by broadening to an adjacent seniority.';
    case 'place':
      return `Found outside the place asked for, by broadening to ${r.rung === 'same_metro' ? 'the same metro area' : 'the wider region'}.`;
    default:
      return '';
  }
}

export async function runAgenticStep(jobId: string, step: number, deps: { clock?: Clock; reader?: PageReader; stepBudgetMs?: number; understanding?: Understanding; optedOut?: OptedOutCheck } = {}): Promise<void> {
  const clock = deps.clock ?? serviceClock;
  const loaded = await getJob(jobId);
  if (!isAgenticJob(loaded)) return;
  let job: AgenticJob = loaded;
  if (TERMINAL.includes(job.status)) return sendFirstDelivery(job);
  if (job.checkpoint.step !== step) return;
  if (job.status === 'pending') {
    if (!(await markAgenticRunning(jobId, clock.now()))) return;
    job = { ...job, status: 'running' };
  }
  const stop = stopBeforeStep(job, clock.now());
  if (stop !== null) {
    await completeRun(job, stop, clock);
    return;
  }

  const request = job.request;
  const understand = deps.understanding ?? understanding();
  // Read once, by the first step, and saved with the shortlist: a model may read a query differently twice.
  const criteria = job.criteria ?? (await understand.parseCriteria(request.query));
  const engine = await searchEngine();
  const ladder = ladderOf(criteria.persona);
  const cp = job.checkpoint;
  let rung = Math.min(cp.rung ?? 0, ladder.length - 1);
  let rungs = cp.rungs ?? [];
  let cursor = cp.cursor;
  // A shortlist this step fixes (the first rung's, or the next rung's), saved with the step.
  let fixed: string[] | undefined;
  let shortlist = job.shortlist;
  if (!shortlist) {
    shortlist = fixed = await rungShortlist(engine, ladder, 0);
    rungs = [rungUse(ladder[0]!, shortlist.length)];
  }
  // Used up before the run has its leads: down the ladder to the next rung with anyone new.
  while (cursor >= shortlist.length && cp.leads < request.target_results && rung + 1 < ladder.length) {
    rung++;
    cursor = 0;
    shortlist = fixed = await rungShortlist(engine, ladder, rung);
    if (shortlist.length) rungs = [...rungs, rungUse(ladder[rung]!, shortlist.length)];
  }
  const foundBy = ladder[rung]!;
  // This step's slice of the shortlist, looked up in one call. A candidate who opted out since the shortlist was
  // fixed is passed over like an id nobody holds: never evaluated, never a lead (one privacy-table read a step).
  const looked = await engine.entries(shortlist.slice(cursor, cursor + AGENTIC_LIMITS.CANDIDATES_PER_STEP));
  const optedOut = await (deps.optedOut ?? optedOutCheck)(looked.map((c) => c?.person ?? { professional_url: '', work_email: null }));
  const candidates = looked.map((c, i) => (optedOut[i] ? undefined : c));
  const reader = deps.reader ?? pageReader();
  const pages = new Map<string, Promise<PageResult>>();
  const started = Date.now();
  const budget = deps.stepBudgetMs ?? AGENTIC_LIMITS.STEP_BUDGET_MS;
  // The first candidate of a step is read under the reader's own caps (so every step makes progress); a
  // later one only within what is left of the step's budget, and if a read of it is cut short by that
  // budget the candidate is left for the next step rather than judged on pages it could not read. Any
  // timeout of a budgeted read counts as the budget's cut: timers may fire a millisecond before the clock
  // says the budget is spent, and a page too slow even for the reader's own caps is judged next step,
  // where it is the first candidate and read under those caps.
  let budgeted = false;
  let outOfBudget = false;
  const read = (url: string) => {
    let p = pages.get(url);
    if (!p) {
      const left = budget - (Date.now() - started);
      p = reader.read(url, budgeted ? { timeoutMs: Math.max(0, left) } : {}).then((r) => {
        if (!r.ok && budgeted && r.reason === 'timeout') outOfBudget = true;
        return r;
      });
      pages.set(url, p);
    }
    return p;
  };

  const today = new Date(clock.now().toISOString().slice(0, 10));
  const leads: AgenticSearchItem[] = [];
  let charged = cp.charged;
  let stopNext: CompletionReason | null = null;
  for (let n = 0; n < AGENTIC_LIMITS.CANDIDATES_PER_STEP && cursor < shortlist.length; n++) {
    if (n > 0 && Date.now() - started > budget) break;
    const candidate = candidates[n];
    budgeted = n > 0;
    // Paid work starts with the first candidate evaluated.
    charged = Math.max(charged, price.base);
    if (candidate) {
      const verdict = await evaluateCandidate(candidate.person, candidate.company, criteria, read, today, (c, blocks, d) => understand.judgeEvidence(c, blocks, d));
      if (outOfBudget) break;
      if (verdict.qualifies && verdict.item) {
        if (charged + price.per_lead > request.max_credits) {
          stopNext = 'budget_exhausted';
          break;
        }
        const how = broadenedBy(foundBy);
        leads.push({ ...verdict.item, ...(how ? { fit_summary: `${verdict.item.fit_summary} ${how}` } : {}), found_by: foundBy.rung });
        charged += price.per_lead;
      }
    }
    cursor++;
    if (cp.leads + leads.length >= request.target_results) break;
  }
  const evaluated = cursor - (shortlist === job.shortlist ? cp.cursor : 0);
  if (evaluated > 0) rungs = rungs.map((r, i) => (i === rungs.length - 1 ? { ...r, evaluated: r.evaluated + evaluated } : r));
  const delivered = cp.leads + leads.length;
  if (stopNext === null && (delivered >= request.target_results || (cursor >= shortlist.length && rung + 1 >= ladder.length))) stopNext = '';
  const next: Checkpoint = { step: step + 1, cursor, leads: delivered, charged, stop: stopNext, rung, rungs };
  const saved = await saveStep(job, step, next, leads, clock.now(), fixed, job.criteria ? undefined : criteria);
  if (!saved) {
    logger.info('agentic step already saved or job ended meanwhile; nothing to do', { jobId, step });
    return;
  }
  const after = await getJob(jobId);
  if (!isAgenticJob(after) || TERMINAL.includes(after.status)) return;
  if (stopNext !== null) {
    await completeRun(after, stopNext, clock);
    return;
  }
  await sendMessage('search', messages.agenticStep(jobId, step + 1));
}
