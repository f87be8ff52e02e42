import { QUEUES } from './queues.js';

/**
 * How long each step of a workflow may take before the sweeper acts on it (DUE_INDEX in tables.ts). Every
 * bound is longer than the path by which the normal course finishes the step, so the sweeper only ever
 * finds work a crash or a lost message stranded:
 *
 * - a message should have been taken off its queue within `DISPATCH_GRACE_MS` of the write that queued it;
 *   past that the sweeper sends it again (every consumer is idempotent);
 * - a job or a draft that its queue may still be retrying (visibility timeout × receives) is left to the
 *   queue; past that, and a margin, it is ended: `failed`, its reservation released;
 * - a synchronous paid call answers within API Gateway's 29 s; a reservation still `pending` after
 *   `SYNC_CALL_DEADLINE_MS` belongs to a call that died, and is released as `lost_released`;
 * - a send slot or a webhook retry that came and went without its message is sent again after
 *   `DISPATCH_GRACE_MS`.
 */
const queueLifetimeMs = (key: keyof typeof QUEUES) => QUEUES[key].visibilityTimeoutSeconds * QUEUES[key].maxReceiveCount * 1000;
const MARGIN_MS = 5 * 60_000;

export const DEADLINES = {
  DISPATCH_GRACE_MS: 2 * 60_000,
  JOB_MS: queueLifetimeMs('search') + MARGIN_MS,
  DRAFT_MS: queueLifetimeMs('drafting') + MARGIN_MS,
  SYNC_CALL_DEADLINE_MS: 5 * 60_000,
} as const;

export const after = (from: Date | string, ms: number) => new Date(new Date(from).getTime() + ms);

/**
 * The age past which a queue's oldest message is late (its alarm, lib/stateful-stack.ts): as long as the queue
 * itself may keep a message by retrying it (visibility timeout × receives). SQS stops reporting a message as the
 * oldest once it has been received three times, so an older one has waited rather than been retried: the
 * workers are not keeping up, or not running. On the search and drafting queues it comes a margin before the
 * sweeper's deadline (DEADLINES.JOB_MS, DRAFT_MS) ends their work as failed.
 */
export const queueAgeDeadlineSeconds = (key: keyof typeof QUEUES): number => queueLifetimeMs(key) / 1000;

/**
 * When to look again at a step the sweeper has just re-driven: after the grace, or after as long as the step
 * has already waited, whichever is longer. A backed-up queue then gets a handful of duplicates (each one
 * harmless) rather than one every few minutes.
 */
export const nextLook = (now: Date, since: Date | string) => after(now, Math.max(DEADLINES.DISPATCH_GRACE_MS, now.getTime() - new Date(since).getTime()));

/** What the sweeper did with one overdue record. */
export type SweepAction = 'redriven' | 'ended' | 'postponed' | 'cleared' | 'none';
