import { serviceClock, type Clock } from '../core/clock.js';
import { logger } from '../core/logger.js';
import { countMetric, flushMetrics } from '../core/metrics.js';
import type { Scheduler } from '../adapters/scheduler.js';
import type { ApiKeyRegistry } from '../adapters/api-key-registry.js';
import type { SweepAction } from '../catalog/deadlines.js';
import type { TableKey } from '../catalog/tables.js';
import { chargeOfKey, sweepCharge } from '../accounts/ledger.repository.js';
import { apiKeyOfKey, sweepPendingApiKey } from '../accounts/api-keys.repository.js';
import { jobIdOfKey } from '../jobs/jobs.repository.js';
import { sweepJob } from './sweep-job.js';
import { emailOfKey } from '../outreach/emails.repository.js';
import { sweepEmail } from '../outreach/sweep-email.js';
import { sequenceOfKey } from '../sequences/sequences.repository.js';
import { sweepSequence } from '../sequences/sweep-sequence.js';
import { testEmailOfKey } from '../test-emails/test-emails.repository.js';
import { sweepTestEmail } from '../test-emails/send-test-email.js';
import { dueKeys, type DueKey } from './due.repository.js';
import { ensureListCursorKey } from '../outreach/cursor-key-maker.repository.js';

/**
 * The sweeper (docs/decisions.md#nothing-stuck-nothing-lost): every record whose next step is overdue on the due
 * index is re-driven or ended cleanly, through the same idempotent steps the workers take. Run by an
 * EventBridge Scheduler schedule in AWS (SWEEPER.rateMinutes) and by the local stack at start and on a
 * timer. One record's failure is logged and left for the next run; it never stops the sweep.
 */
export interface SweepReport {
  examined: number;
  redriven: number;
  ended: number;
  postponed: number;
  cleared: number;
  failed: number;
}

/** Per run and table: a run that finds more leaves the rest to the next one, inside the function's timeout. */
const LIMIT_PER_TABLE = 2000;
/** Records handled at once: distinct records never contend (each step is guarded on its own item). */
const CONCURRENCY = 8;

const SWEEPERS: Record<Exclude<TableKey, 'directory' | 'mail_evidence' | 'privacy'>, (key: DueKey, deps: SweepDeps & { clock: Clock }) => Promise<SweepAction>> = {
  jobs: async (key, { clock }) => {
    const id = jobIdOfKey(key);
    return id ? sweepJob(id, clock) : 'none';
  },
  outreach: async (key, deps) => {
    const ref = emailOfKey(key);
    if (ref) return sweepEmail(ref.accountId, ref.emailId, deps);
    const sequence = sequenceOfKey(key);
    if (sequence) return sweepSequence(sequence.accountId, sequence.sequenceId, deps.clock, deps.scheduler);
    const test = testEmailOfKey(key);
    return test ? sweepTestEmail(test.accountId, test.testEmailId, deps.clock) : 'none';
  },
  accounts: async (key, { clock, apiKeys }) => {
    const ref = chargeOfKey(key);
    if (ref) return sweepCharge(ref.accountId, ref.chargeId, clock);
    // An API key left `pending` past its lease: a create that died; rolled back, its API Gateway key too.
    const apiKey = apiKeyOfKey(key);
    return apiKey ? sweepPendingApiKey(apiKey.accountId, apiKey.keyId, clock, apiKeys) : 'none';
  },
};

let cursorKeyMade: Promise<void> | undefined;

/** What a run works with: the service's own unless a test hands it others. */
export interface SweepDeps {
  clock?: Clock;
  scheduler?: Scheduler;
  /** API Gateway's key registry (a rolled-back key's gateway key is deleted there). */
  apiKeys?: ApiKeyRegistry;
}

export async function sweep(deps: SweepDeps = {}): Promise<SweepReport> {
  const clock = deps.clock ?? serviceClock;
  const report: SweepReport = { examined: 0, redriven: 0, ended: 0, postponed: 0, cleared: 0, failed: 0 };
  // The list cursor key is made by the first sweep after a deploy (outreach/cursor-key.repository.ts).
  cursorKeyMade ??= ensureListCursorKey().catch((e: unknown) => {
    cursorKeyMade = undefined;
    logger.error('list cursor key not made; the next run tries again', { error: e as Error });
  });
  await cursorKeyMade;
  const now = clock.now();
  for (const [table, sweepOne] of Object.entries(SWEEPERS) as [keyof typeof SWEEPERS, (typeof SWEEPERS)[keyof typeof SWEEPERS]][]) {
    const one = async (key: DueKey) => {
      report.examined++;
      try {
        const action = await sweepOne(key, { clock, scheduler: deps.scheduler, apiKeys: deps.apiKeys });
        if (action !== 'none') report[action]++;
        if (action === 'ended') countMetric('lost_work_ended', 1, { table });
      } catch (e) {
        report.failed++;
        logger.error('sweep of one record failed; the next run tries again', { table, pk: key.pk, sk: key.sk, error: e as Error });
      }
    };
    let batch: DueKey[] = [];
    for await (const key of dueKeys(table, now, LIMIT_PER_TABLE)) {
      batch.push(key);
      if (batch.length === CONCURRENCY) {
        await Promise.all(batch.map(one));
        batch = [];
      }
    }
    await Promise.all(batch.map(one));
  }
  if (report.examined) logger.info('sweep finished', { ...report });
  return report;
}

/** The scheduled run: what it counted (lost work it ended, and what the steps it took counted) is published once it is done. */
export const sweepHandler = async (): Promise<SweepReport> => {
  try {
    return await sweep();
  } finally {
    await flushMetrics();
  }
};
