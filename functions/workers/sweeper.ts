import { sweepHandler } from '../../shared/workers/sweep.js';

/** EventBridge Scheduler invokes this every SWEEPER.rateMinutes: re-drive or end everything overdue. */
export const handler = sweepHandler;
