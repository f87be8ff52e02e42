/**
 * Webhook event bodies (docs/decisions.md#events-and-webhooks). Every body has `id` (the job id) and `event_type`; the
 * failure messages are the fixed texts of docs/decisions.md#events-and-webhooks. The polling envelope's `result` is the same
 * body without `id` and `event_type` (docs/decisions.md#polling-envelope).
 */
import * as z from '../core/zod.js';
import { FOUND_EMAIL_STATUSES, FOUND_EMAIL_STATUS_REASONS } from '../email-status/classify.js';

/** The agentic broadening ladder's rungs, in order (shared/agentic/ladder.ts). */
export const BROADENING_RUNGS = ['exact', 'equivalent_title', 'adjacent_seniority', 'same_metro', 'region'] as const;

export const leadCompanySchema = z.object({
  name: z.string(),
  domain: z.string(),
  professional_url: z.optional(z.nullable(z.string())),
  industry: z.string(),
  employee_count: z.number().check(z.int()),
});

export const leadSchema = z.object({
  first_name: z.string(),
  last_name: z.string(),
  full_name: z.string(),
  current_job_title: z.string(),
  headline: z.string(),
  location: z.string(),
  professional_url: z.string(),
  company: leadCompanySchema,
});
export type Lead = z.infer<typeof leadSchema>;

export const experienceItemSchema = z.object({
  company: z.string(),
  title: z.string(),
  date_range: z.string(),
});

/** Beyond SPEC (issue 34): how far a found email can be trusted; both present beside a non-empty `email`. */
export const emailStatusFields = {
  email_status: z.optional(z.enum(FOUND_EMAIL_STATUSES)),
  email_status_reason: z.optional(z.enum(FOUND_EMAIL_STATUS_REASONS)),
};

export const deepSearchItemSchema = z.extend(leadSchema, {
  email: z.string(),
  ...emailStatusFields,
  experience: z.array(experienceItemSchema),
  score: z.number().check(z.int()),
});
export type DeepSearchItem = z.infer<typeof deepSearchItemSchema>;

/** Person fields may be empty or omitted when unavailable. */
export const agenticSearchItemSchema = z.object({
  full_name: z.optional(z.string()),
  current_job_title: z.optional(z.string()),
  headline: z.optional(z.string()),
  location: z.optional(z.string()),
  professional_url: z.optional(z.string()),
  company: z.optional(
    z.object({
      name: z.optional(z.string()),
      domain: z.optional(z.string()),
      industry: z.optional(z.string()),
      employee_count_range: z.optional(z.string()),
    }),
  ),
  experience: z.optional(z.array(experienceItemSchema)),
  fit_summary: z.optional(z.string()),
  proof_points: z.optional(z.array(z.string())),
  evidence: z.optional(z.array(z.object({ headline: z.optional(z.string()), description: z.optional(z.string()), url: z.optional(z.string()) }))),
  tier: z.optional(z.string()),
  found_by: z.optional(
    z.enum(BROADENING_RUNGS).check(
      z.describe('Which rung of the broadening ladder found the lead: `exact` (the persona as asked), `equivalent_title`, `adjacent_seniority`, `same_metro` or `region` (the last two widen the place asked for).'),
    ),
  ),
});
export type AgenticSearchItem = z.infer<typeof agenticSearchItemSchema>;

export const COMPLETION_REASONS = ['', 'budget_exhausted', 'deadline_exceeded', 'user_cancelled'] as const;

/** How far the run broadened its search, one entry per rung it looked at, in ladder order (docs/agentic-research.md). */
export const broadeningSchema = z.array(
  z.object({
    rung: z.enum(BROADENING_RUNGS),
    relaxes: z.enum(['none', 'title', 'seniority', 'place']).check(z.describe('What the rung widens beyond the query: `place` means leads from this rung are outside the place asked for.')),
    added: z.array(z.string()).check(z.describe('The titles, seniorities or places the rung added (at most 12 listed).')),
    candidates: z.number().check(z.int(), z.nonnegative(), z.describe('Candidates the rung shortlisted (people no earlier rung described).')),
    evaluated: z.number().check(z.int(), z.nonnegative(), z.describe('Candidates of the rung evaluated against the criteria (the run stops early once it has its leads).')),
    leads: z.number().check(z.int(), z.nonnegative(), z.describe('Leads it delivered.')),
  }),
);
export type Broadening = z.infer<typeof broadeningSchema>;
export type CompletionReason = (typeof COMPLETION_REASONS)[number];

export type FailureCode = 'invalid_input' | 'error';

export const FAILURE_MESSAGES = {
  search: { invalid_input: 'invalid search query', error: 'people search failed, retry' },
  deep_search: { invalid_input: 'invalid deep-search query', error: 'deep search failed, retry' },
  phone_enrich: { invalid_input: 'invalid phone-enrichment request', error: 'phone enrichment failed, retry' },
  agentic_search: { error: 'agentic search failed because of an internal error; no credits were charged' },
} as const;

const eventErrorSchema = z.object({ code: z.string(), message: z.string() });
export type EventError = z.infer<typeof eventErrorSchema>;

const failureCodeSchema = z.enum(['invalid_input', 'error']);
const totalReturned = z.number().check(z.int(), z.nonnegative());

export const searchCompletedSchema = z.object({
  id: z.string(),
  event_type: z.literal('search.completed'),
  results: z.array(leadSchema),
  total_returned: totalReturned,
});
export const searchFailedSchema = z.object({
  id: z.string(),
  event_type: z.literal('search.failed'),
  error: z.extend(eventErrorSchema, { code: failureCodeSchema }),
});
export const deepSearchCompletedSchema = z.object({
  id: z.string(),
  event_type: z.literal('deep_search.completed'),
  results: z.array(deepSearchItemSchema),
  total_returned: totalReturned,
});
export const deepSearchFailedSchema = z.object({
  id: z.string(),
  event_type: z.literal('deep_search.failed'),
  error: z.extend(eventErrorSchema, { code: failureCodeSchema }),
});
export const agenticSearchCompletedSchema = z.object({
  id: z.string(),
  event_type: z.literal('agentic_search.completed'),
  partial: z.boolean(),
  completion_reason: z.enum(COMPLETION_REASONS),
  total_returned: totalReturned,
  results: z.array(agenticSearchItemSchema),
  broadening: z.optional(broadeningSchema),
});
export const agenticSearchFailedSchema = z.object({
  id: z.string(),
  event_type: z.literal('agentic_search.failed'),
  error: z.extend(eventErrorSchema, { code: z.literal('error') }),
});
export const phoneEnrichCompletedSchema = z.object({
  id: z.string(),
  event_type: z.literal('phone_enrich.completed'),
  /** E.164 on a hit, null on a miss (a miss is a clean completion). */
  phone: z.nullable(z.string().check(z.regex(/^\+[1-9]\d{1,14}$/))),
});
export const phoneEnrichFailedSchema = z.object({
  id: z.string(),
  event_type: z.literal('phone_enrich.failed'),
  error: z.extend(eventErrorSchema, { code: failureCodeSchema }),
});

/** Bulk enrichment (docs/decisions.md#decisions-the-contract-leaves-open, beyond SPEC): the kinds of item, named as the single endpoints' operations. */
export const BULK_ITEM_KINDS = ['email', 'professional_url', 'professional_profile', 'phone'] as const;
export type BulkItemKind = (typeof BULK_ITEM_KINDS)[number];
export const BULK_ITEM_STATUSES = ['found', 'not_found', 'invalid_input', 'failed'] as const;
export type BulkItemStatus = (typeof BULK_ITEM_STATUSES)[number];

export const bulkItemResultSchema = z.object({
  /** The item's position in the request's `items`, from 0. */
  index: z.number().check(z.int(), z.nonnegative()),
  /** Null when the item named no known kind (then its status is `invalid_input`). */
  kind: z.nullable(z.enum(BULK_ITEM_KINDS)),
  status: z.enum(BULK_ITEM_STATUSES),
  credits_charged: z.number().check(z.int(), z.nonnegative()),
  /** The single call's answer on a hit: `{email}`, `{professional_url}`, the Professional profile, or `{phone}`; null otherwise. */
  data: z.nullable(z.record(z.string(), z.unknown())),
  /** `not_found` (a completed lookup with no match), `invalid_input` (the item's problems, never charged) or `error` (not charged); null when found. */
  error: z.nullable(eventErrorSchema),
});
export type BulkItemResult = z.infer<typeof bulkItemResultSchema>;

export const bulkEnrichCompletedSchema = z.object({
  id: z.string(),
  event_type: z.literal('bulk_enrich.completed'),
  /** One result per item, in input order. */
  results: z.array(bulkItemResultSchema),
  total_items: z.number().check(z.int(), z.gte(1), z.lte(100)),
  /** The sum of the items' `credits_charged`. */
  credits_charged: z.number().check(z.int(), z.nonnegative()),
});
export type BulkEnrichCompletedEvent = z.infer<typeof bulkEnrichCompletedSchema>;

export const webhookEventSchema = z.discriminatedUnion('event_type', [
  searchCompletedSchema,
  searchFailedSchema,
  deepSearchCompletedSchema,
  deepSearchFailedSchema,
  agenticSearchCompletedSchema,
  agenticSearchFailedSchema,
  phoneEnrichCompletedSchema,
  phoneEnrichFailedSchema,
  bulkEnrichCompletedSchema,
]);

export type SearchCompletedEvent = z.infer<typeof searchCompletedSchema>;
export type SearchFailedEvent = z.infer<typeof searchFailedSchema>;
export type DeepSearchCompletedEvent = z.infer<typeof deepSearchCompletedSchema>;
export type DeepSearchFailedEvent = z.infer<typeof deepSearchFailedSchema>;
export type AgenticSearchCompletedEvent = z.infer<typeof agenticSearchCompletedSchema>;
export type AgenticSearchFailedEvent = z.infer<typeof agenticSearchFailedSchema>;
export type PhoneEnrichCompletedEvent = z.infer<typeof phoneEnrichCompletedSchema>;
export type PhoneEnrichFailedEvent = z.infer<typeof phoneEnrichFailedSchema>;
export type WebhookEvent = z.infer<typeof webhookEventSchema>;
export type WebhookEventType = WebhookEvent['event_type'];

export function searchCompleted(id: string, results: Lead[], total_returned: number): SearchCompletedEvent {
  return { id, event_type: 'search.completed', results, total_returned };
}

export function searchFailed(id: string, code: FailureCode): SearchFailedEvent {
  return { id, event_type: 'search.failed', error: { code, message: FAILURE_MESSAGES.search[code] } };
}

export function deepSearchCompleted(id: string, results: DeepSearchItem[], total_returned: number): DeepSearchCompletedEvent {
  return { id, event_type: 'deep_search.completed', results, total_returned };
}

export function deepSearchFailed(id: string, code: FailureCode): DeepSearchFailedEvent {
  return { id, event_type: 'deep_search.failed', error: { code, message: FAILURE_MESSAGES.deep_search[code] } };
}

export function phoneEnrichCompleted(id: string, phone: string | null): PhoneEnrichCompletedEvent {
  return { id, event_type: 'phone_enrich.completed', phone };
}

export function phoneEnrichFailed(id: string, code: FailureCode): PhoneEnrichFailedEvent {
  return { id, event_type: 'phone_enrich.failed', error: { code, message: FAILURE_MESSAGES.phone_enrich[code] } };
}

export function agenticSearchCompleted(
  id: string,
  outcome: { partial: boolean; completion_reason: CompletionReason; total_returned: number; results: AgenticSearchItem[]; broadening?: Broadening },
): AgenticSearchCompletedEvent {
  return {
    id,
    event_type: 'agentic_search.completed',
    partial: outcome.partial,
    completion_reason: outcome.completion_reason,
    total_returned: outcome.total_returned,
    results: outcome.results,
    ...(outcome.broadening ? { broadening: outcome.broadening } : {}),
  };
}

export function agenticSearchFailed(id: string): AgenticSearchFailedEvent {
  return {
    id,
    event_type: 'agentic_search.failed',
    error: { code: 'error', message: FAILURE_MESSAGES.agentic_search.error },
  };
}
