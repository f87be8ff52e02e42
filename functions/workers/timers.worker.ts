import { queueWorker } from '../../shared/workers/dispatch.js';
import { timerHandlers } from '../../shared/workers/timers.handlers.js';

/** Scheduler targets: every one-time schedule delivers a `{kind, ...}` message here. */
export const handler = queueWorker('timers', timerHandlers);
