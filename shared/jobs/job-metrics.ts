import { countMetric, observeMetric, type JOB_TIERS, type SEARCH_TIERS } from '../core/metrics.js';
import type { Job, JobStatus, JobTier } from './model.js';

/** A job tier as the metrics' `tier` dimension names it (shared/core/metrics.ts). */
const TIER: Record<JobTier, (typeof JOB_TIERS)[number]> = { people_search: 'people', deep_search: 'deep', agentic_search: 'agentic', phone_enrich: 'phone', bulk_enrich: 'bulk' };
const SEARCH: Partial<Record<JobTier, (typeof SEARCH_TIERS)[number]>> = { people_search: 'people', deep_search: 'deep', agentic_search: 'agentic' };

/**
 * Count a job that has just reached its terminal state: call it once, where the write that ends the job has
 * succeeded (its condition lets one writer end a job). `jobs_ended` by outcome and `job_latency` by tier (from
 * acceptance, on the service clock); a completed search's `searches` and `leads`; a phone lookup's `enrichments`.
 * Never throws.
 */
export function countJobEnded(job: Pick<Job, 'tier' | 'created_at'>, status: Extract<JobStatus, 'completed' | 'failed' | 'cancelled'>, ended: { at: Date; leads: number; result?: Record<string, unknown> | null }): void {
  try {
    const tier = TIER[job.tier];
    if (!tier) return;
    countMetric('jobs_ended', 1, { outcome: status });
    observeMetric('job_latency', ended.at.getTime() - Date.parse(job.created_at), { tier });
    const search = SEARCH[job.tier];
    if (search && status === 'completed') {
      countMetric('searches', 1, { tier: search });
      countMetric('leads', ended.leads, { tier: search });
    }
    if (job.tier === 'phone_enrich' && status !== 'cancelled') {
      countMetric('enrichments', 1, { kind: 'phone', outcome: status === 'failed' ? 'error' : ended.result?.phone ? 'found' : 'not_found' });
    }
  } catch {
    // Counting never fails the work it counts.
  }
}
