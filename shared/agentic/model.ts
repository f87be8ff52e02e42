import * as z from '../core/zod.js';
import type { Job } from '../jobs/model.js';
import type { AgenticSearchItem, Broadening, CompletionReason } from '../webhooks/events.js';
import type { Criteria } from '../understanding/criteria.js';

/** POST /agentic-search/ (docs/decisions.md): bounds and defaults as written there. */
export const AgenticSearchSchema = z.lazy(() =>
  z.strictObject({
    query: z.string().check(z.maxLength(2000), z.refine((q) => q.trim().length > 0, 'must not be blank')),
    target_results: z._default(z.number().check(z.int(), z.gte(1), z.lte(50)), 50),
    max_credits: z._default(z.number().check(z.int(), z.gte(300), z.lte(2000)), 500),
    webhook_url: z.string().check(z.maxLength(2048)),
  }),
);
export type AgenticSearchRequest = z.output<typeof AgenticSearchSchema>;

/**
 * Where a run stands after its last completed step, saved in the same conditional write as that step's
 * leads: the next step's number, the shortlist position, the leads delivered and credits charged so far,
 * and, once the run must stop, why. (No list of the pages read is kept: evidence cites a URL only from a
 * page its own step read, see evaluate.ts, so the item grows with leads, never with pages read.)
 *
 * `rung` is the broadening ladder's rung (ladder.ts) whose shortlist the job holds and `cursor` points
 * into; `rungs` records each rung looked at so far (at most one entry per rung, RUNG_ADDED_MAX names
 * of at most 80 characters each), for the result's `broadening`. Both are absent on a checkpoint written before the ladder, which
 * reads as rung 0.
 */
export interface Checkpoint {
  step: number;
  cursor: number;
  leads: number;
  charged: number;
  stop: CompletionReason | null;
  rung?: number;
  rungs?: RungUse[];
}

/** One rung looked at: what it widened and how many candidates it shortlisted (its leads are counted from the results). */
export type RungUse = Omit<Broadening[number], 'leads'>;
export const RUNG_ADDED_MAX = 12;

export interface AgenticJob extends Job {
  tier: 'agentic_search';
  request: AgenticSearchRequest & Record<string, unknown>;
  checkpoint: Checkpoint;
  /** When the run is ended as `deadline_exceeded` (service clock, AGENTIC_DEADLINE_SECONDS after acceptance). */
  deadline_at: string;
  /** The person ids to evaluate, in order: the current rung's shortlist, fixed by the step that moved to that rung. */
  shortlist?: string[];
  /** What the query was read as, fixed by the first step with the shortlist, so every step judges by the same criteria. */
  criteria?: Criteria;
  /** Leads saved so far; moved into `result.results` when the run completes. */
  agentic_results?: AgenticSearchItem[];
}

export const isAgenticJob = (job: Job | null): job is AgenticJob => job?.tier === 'agentic_search';

export const FIRST_CHECKPOINT: Checkpoint = { step: 0, cursor: 0, leads: 0, charged: 0, stop: null };
