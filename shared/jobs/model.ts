/**
 * Asynchronous jobs (docs/decisions.md#decisions-the-contract-leaves-open): `pending` → `running` → `completed` | `failed`.
 * Stored as JOB#<id> / JOB in the jobs table; the polling envelope is a view of it.
 */
export type JobTier = 'people_search' | 'deep_search' | 'agentic_search' | 'phone_enrich' | 'bulk_enrich';
export type JobStatus = 'pending' | 'running' | 'completed' | 'failed' | 'cancelled';

export interface JobError {
  code: string;
  message: string;
}

export interface WebhookAttempt {
  attempt: number;
  at: string;
  status: number | null;
  /** A `DeliveryErrorClass` (webhooks/delivery-errors.ts), never a socket message; null when delivered. */
  error: string | null;
  duration_ms: number;
  next_retry_at: string | null;
}

export interface Job {
  id: string;
  account_id: string;
  key_id: string;
  tier: JobTier;
  status: JobStatus;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
  /** Leads delivered so far: 0 on acceptance, the running count while a job runs, the total once it ends (never null; docs/decisions.md#jobs). */
  leads_returned: number;
  /** The webhook body without `id` and `event_type`, once the job has finished. */
  result: Record<string, unknown> | null;
  error: JobError | null;
  /** The validated request (query, max_results, identity fields, webhook_url …). */
  request: Record<string, unknown>;
  charge_id: string;
  /** Person ids returned by this job and every earlier page of the same search (continuations). */
  returned_ids?: string[];
  parsed_query?: unknown;
  /** People search: where its last page ended (search-port.ts `SearchCursor`), for the next page. */
  search_after?: { score: number; id: string } | null;
  /** Why a job failed when the contract's `error` code does not say (e.g. the search index refused to load). */
  failure_reason?: string;
  /** Deep search: each result's fit parts and the weights that made its score. */
  score_breakdown?: unknown;
  /** Bulk enrichment: per item its kind, operation, reservation and charge id (bulk-progress.ts), the next item to run, the results so far. */
  bulk_plan?: unknown[];
  bulk_next?: number;
  bulk_results?: unknown[] | null;
  event_type?: string;
  webhook_status?: 'queued' | 'delivered' | 'failed';
  webhook_attempts?: WebhookAttempt[];
  /** The delivery attempt in progress and until when its lease holds (wall-clock ms). */
  webhook_lease?: { attempt: number; until_ms: number };
}

/** The fields every newly accepted job starts with, whatever its tier: pending, nothing returned yet. */
export function newJobEnvelope(now: Date) {
  return {
    status: 'pending' as const,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
    completed_at: null,
    leads_returned: 0,
    result: null,
    error: null,
  };
}

export const TERMINAL: JobStatus[] = ['completed', 'failed', 'cancelled'];


/**
 * The webhook body without `id` and `event_type` (docs/decisions.md#decisions-the-contract-leaves-open), the same for every tier: the stored result of
 * a completed job, `{error}` for a failed one (its `*.failed` event carries only `error`), null before then or
 * for a search cancelled before it started (no event).
 */
export function jobResult(job: Pick<Job, 'status' | 'result' | 'error'>): Record<string, unknown> | null {
  return job.status === 'failed' ? { error: job.error } : job.result;
}

/** The polling envelope (docs/decisions.md#decisions-the-contract-leaves-open) plus the parsed constraints and, for deep search, each score's parts. */
export function pollingView(job: Job): Record<string, unknown> {
  const view: Record<string, unknown> = {
    id: job.id,
    status: job.status,
    tier: job.tier,
    created_at: job.created_at,
    updated_at: job.updated_at,
    completed_at: job.completed_at,
    // Items stored before the count was kept from acceptance hold null until they end.
    leads_returned: job.leads_returned ?? 0,
    result: jobResult(job),
    error: job.error,
  };
  if (job.parsed_query !== undefined) view.parsed_query = job.parsed_query;
  if (job.score_breakdown !== undefined) view.score_breakdown = job.score_breakdown;
  return view;
}

export function acceptanceView(job: Pick<Job, 'id' | 'status' | 'created_at'>) {
  return { id: job.id, status: job.status, created_at: job.created_at };
}
