import * as z from 'zod';
import { omit, type ZodMiniObject } from '../core/zod.js';
import { EMAIL_STATUSES } from '../outreach/model.js';
import { FOUND_EMAIL_STATUSES, FOUND_EMAIL_STATUS_REASONS } from '../email-status/classify.js';
import { ENROLLMENT_STATUSES, SEQUENCE_STATUSES } from '../sequences/model.js';
import { TEST_EMAIL_STATUSES } from '../test-emails/model.js';
import { LIST_COUNT_CAP } from '../adapters/list-index.js';
import { ATTACHMENT_TYPES } from '../test-emails/test-email.schema.js';
import type { PrivacyRequestKind } from '../privacy-requests/requests.repository.js';
import {
  agenticSearchCompletedSchema,
  agenticSearchFailedSchema,
  deepSearchCompletedSchema,
  deepSearchFailedSchema,
  phoneEnrichCompletedSchema,
  phoneEnrichFailedSchema,
  bulkEnrichCompletedSchema,
  searchCompletedSchema,
  searchFailedSchema,
} from '../webhooks/events.js';

/**
 * Response bodies of the public API (docs/decisions.md#the-contract, "Endpoints", "Errors"; docs/decisions.md#decisions-the-contract-leaves-open for what
 * The contract leaves open (docs/decisions.md#decisions-the-contract-leaves-open)). Objects are closed (`z.object` → `additionalProperties: false` in the document), so
 * a field the service sends but the contract does not name fails the e2e response checks; the two fields
 * docs/decisions.md#polling-envelope lets the polling envelope add are named here.
 */

const timestamp = z.string().meta({ format: 'date-time' });
const nullableTimestamp = timestamp.nullable();

export const ErrorEnvelope = z
  .object({
    error: z.object({
      code: z.string(),
      message: z.string(),
      details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
    }),
  })
  .meta({ id: 'Error', description: 'The application error envelope; `details` only for validation errors.' });

/** API Gateway's own answers (missing/unknown key, throttled, unregistered path). */
export const GatewayMessage = z.object({ message: z.string() }).meta({ id: 'GatewayMessage', description: '`{"message":"Forbidden"}`, `{"message":"Too Many Requests"}` or `{"message":"Missing Authentication Token"}`.' });

export const JobAcceptance = z
  .object({ id: z.string().regex(/^dj_[0-9a-z]{26}$/), status: z.enum(['pending', 'running', 'completed', 'failed', 'cancelled']), created_at: timestamp })
  .meta({ id: 'JobAcceptance', description: 'Exactly `id`, `status`, `created_at`.' });

const jobError = z.object({ code: z.string(), message: z.string() });
/** The webhook schemas (shared/webhooks/events.ts) are zod/mini objects: mini's `omit` is the same core call as classic's `.omit`. */
const withoutEnvelope = (s: ZodMiniObject<{ id: z.core.$ZodType; event_type: z.core.$ZodType }>) => omit(s, { id: true, event_type: true });

function pollingEnvelope<T extends string>(tier: T, result: z.ZodType, id: string, extra: Record<string, z.ZodType> = {}) {
  return z
    .object({
      id: z.string().regex(/^dj_[0-9a-z]{26}$/),
      status: z.enum(['pending', 'running', 'completed', 'failed', 'cancelled']),
      tier: z.literal(tier),
      created_at: timestamp,
      updated_at: timestamp,
      completed_at: nullableTimestamp,
      leads_returned: z.number().int().nonnegative().describe('Leads delivered so far: 0 on acceptance, the running count while the job runs (agentic search adds each step\'s leads), the total once it has ended (a failed job: the leads it had delivered before, so 0 but for an agentic search); 0 for a phone lookup (a phone, not leads); for a bulk enrichment, its items found so far.'),
      result: result.nullable(),
      error: jobError.nullable(),
      ...extra,
    })
    .meta({ id, description: `The polling envelope of a ${tier} job; \`result\` is the webhook body without \`id\` and \`event_type\` once the job has finished: the results of a completed job, \`{error}\` of a failed one.` });
}

const parsedQuery = { parsed_query: z.record(z.string(), z.unknown()).optional().describe('The constraints understood from the query; clients must ignore fields they do not know.') };

export const PeopleSearchJob = pollingEnvelope('people_search', z.union([withoutEnvelope(searchCompletedSchema), withoutEnvelope(searchFailedSchema)]), 'PeopleSearchJob', parsedQuery);
export const DeepSearchJob = pollingEnvelope('deep_search', z.union([withoutEnvelope(deepSearchCompletedSchema), withoutEnvelope(deepSearchFailedSchema)]), 'DeepSearchJob', {
  ...parsedQuery,
  score_breakdown: z.record(z.string(), z.unknown()).optional().describe('Each result\'s fit parts and the weights that made its score.'),
});
export const AgenticSearchJob = pollingEnvelope('agentic_search', z.union([withoutEnvelope(agenticSearchCompletedSchema), withoutEnvelope(agenticSearchFailedSchema)]), 'AgenticSearchJob');
export const PhoneEnrichJob = pollingEnvelope('phone_enrich', z.union([withoutEnvelope(phoneEnrichCompletedSchema), withoutEnvelope(phoneEnrichFailedSchema)]), 'PhoneEnrichJob');

// A bulk enrichment always completes (a lost run completes with its undone items `failed`): one shape of result.
export const BulkEnrichJob = pollingEnvelope('bulk_enrich', z.union([withoutEnvelope(bulkEnrichCompletedSchema)]), 'BulkEnrichJob');

export const EmailFound = z
  .object({
    email: z.string(),
    email_status: z
      .enum(FOUND_EMAIL_STATUSES)
      .optional()
      .describe('Beyond SPEC: how far the address can be trusted. `valid` (a delivery confirmed it or its pattern), `accept_all` (the domain accepts every recipient), `unknown` (nothing confirms the mailbox), `invalid` (malformed, disposable, no mail exchanger, or a hard bounce). Decided without contacting the mail server.'),
    email_status_reason: z.enum(FOUND_EMAIL_STATUS_REASONS).optional().describe('Beyond SPEC: the rule that decided `email_status`.'),
  })
  .meta({ id: 'EmailFound' });
export const ProfessionalUrlFound = z.object({ professional_url: z.string().describe('Bare-host form.') }).meta({ id: 'ProfessionalUrlFound' });

const yearMonth = z.string().regex(/^\d{4}-\d{2}$/).nullable();
const text = z.string().nullable();
export const ProfessionalProfile = z
  .object({
    first_name: text,
    last_name: text,
    full_name: text,
    headline: text,
    location: z.object({ city: text, country: text, country_code: text }),
    current_position: z.object({ title: text, company_name: text, company_industry: text }).nullable(),
    experience: z.array(z.object({ title: text, company_name: text, start: yearMonth, end: yearMonth })),
    education: z.array(z.object({ school_name: text, degree: text, field_of_study: text, start: yearMonth, end: yearMonth })),
  })
  .meta({ id: 'ProfessionalProfile' });

export const SendingAccount = z
  .object({
    id: z.string().regex(/^ea_[0-9a-z]{26}$/),
    email: z.string(),
    type: z.enum(['google', 'microsoft', 'smtp']),
    connected: z.boolean(),
    sending_enabled: z.boolean(),
    daily_limit: z.number().int().meta({ description: 'Effective sends allowed today: the smaller of the configured limit, the warm-up ramp and the engagement throttle.' }),
    sent_today: z.number().int(),
    health: z.string().meta({ description: '`healthy`, `warming_up`, `throttled_bounces`, `paused_complaints`, or a state naming what to fix (e.g. `reauth_required`).' }),
    configured_daily_limit: z.optional(z.number().int().meta({ description: 'Beyond SPEC: the limit set in the web app; `daily_limit` never exceeds it.' })),
    warmup: z.optional(
      z
        .object({
          started_at: z.string(),
          day: z.number().int(),
          ramp_limit: z.nullable(z.number().int()),
          complete: z.boolean(),
        })
        .meta({ description: 'Beyond SPEC: the warm-up ramp (day 1 = the start; a step a healthy day).' }),
    ),
  })
  .meta({ id: 'SendingAccount' });
export const SendingAccountList = z.object({ accounts: z.array(SendingAccount) }).meta({ id: 'SendingAccountList' });

export const OutreachEmail = z
  .object({
    id: z.string().regex(/^em_[0-9a-z]{26}$/),
    status: z.enum(EMAIL_STATUSES),
    to: z.object({ email: z.string(), name: z.string() }),
    from_email: z.string(),
    subject: z.string(),
    body_plain: z.string(),
    body_html: z.string(),
    instructions: z.string(),
    created_at: timestamp,
    scheduled_for: nullableTimestamp,
    sent_at: nullableTimestamp,
    opened_at: nullableTimestamp,
    replied_at: nullableTimestamp,
    open_count: z.number().int().nonnegative(),
    review_expires_at: nullableTimestamp.describe('End of the 7-day review window while `pending_review` (extended by an edit). For a sequence step, its enrollment\'s window: the same on every step, 7 days from the enrollment\'s latest draft or an edit of any of its steps; when it passes unapproved the enrollment and its steps are `cancelled`.'),
    error: jobError.nullable(),
    step: z.number().int().nonnegative().optional().describe('Sequence steps only; 0 is the intro.'),
  })
  .meta({ id: 'OutreachEmail' });

export const EmailAcceptance = z.object({ id: z.string().regex(/^em_[0-9a-z]{26}$/), status: z.literal('drafting'), created_at: timestamp }).meta({ id: 'EmailAcceptance' });

const CAP = LIST_COUNT_CAP.toLocaleString('en-US');
const page = {
  count: z.number().int().nonnegative().describe('How many items the list (with its filters) holds: exact when `count_exact` is true, otherwise at least this many.'),
  count_exact: z
    .boolean()
    .describe(
      `Beyond the base contract: whether \`count\` and \`total_pages\` are exact. A page with more after it counts at most ${CAP} of the list's entries: up to ${CAP} the count is exact (true); past that it is a lower bound (false): the matches among the entries counted (${CAP} for an unfiltered list), or the items up to the end of this page when that is more. The last page (\`next_cursor\` null) always has the exact count. Follow \`next_cursor\` to reach the end.`,
    ),
  page: z.number().int().min(1),
  page_size: z.number().int().min(1),
  total_pages: z.number().int().nonnegative().describe('`count` divided by `page_size`, rounded up: a lower bound when `count_exact` is false.'),
  next_cursor: z.string().nullable().describe('Beyond the base contract: pass as `cursor` (with the same filters and `page_size`) for the next page without walking the pages before it; null on the last page.'),
};
export const EmailListItem = OutreachEmail.omit({ body_plain: true, body_html: true }).meta({ id: 'EmailListItem', description: 'An outreach email without its bodies (read them with GET /emails/{id}/).' });
export const EmailPage = z.object({ ...page, results: z.array(EmailListItem) }).meta({ id: 'EmailPage' });

const sequenceId = z.string().regex(/^sq_[0-9a-z]{26}$/);
const rejectedContact = z.object({
  contact: z.unknown(),
  reason: z
    .enum(['invalid_contact', 'already_in_automation', 'recently_contacted', 'not_enriched', 'already_enrolled', 'opted_out'])
    .describe('Why the contact was not enrolled. `opted_out`: the address\'s owner asked, through the privacy page, not to be contacted through this service by any account.'),
});
const sequenceName = z.string().nullable();

export const SequenceAcceptance = z
  .object({
    id: sequenceId,
    name: sequenceName,
    status: z.literal('drafting'),
    created_at: timestamp,
    contacts_accepted: z.number().int(),
    contacts_rejected: z.array(rejectedContact),
    total_emails: z.number().int(),
    drafted: z.number().int(),
  })
  .meta({ id: 'SequenceAcceptance' });

export const ContactsAdded = z
  .object({ id: sequenceId, name: sequenceName, status: z.literal('drafting'), contacts_accepted: z.number().int(), contacts_rejected: z.array(rejectedContact), emails_added: z.number().int() })
  .meta({ id: 'ContactsAdded' });

const sequenceSummary = {
  id: sequenceId,
  name: sequenceName,
  status: z.enum(SEQUENCE_STATUSES),
  created_at: timestamp,
  instructions: z.string(),
  total_emails: z.number().int(),
  drafted: z.number().int(),
};
export const SequenceSummary = z.object(sequenceSummary).meta({ id: 'SequenceSummary' });
export const Sequence = z
  .object({
    ...sequenceSummary,
    failed: z.number().int(),
    enrollments: z
      .array(z.object({ contact: z.object({ email: z.string(), name: z.string() }), status: z.enum(ENROLLMENT_STATUSES), emails: z.array(OutreachEmail) }))
      .describe('One page, in enrollment order: at most `page_size`, fewer when their emails would pass the size of one answer.'),
    next_cursor: z.string().nullable().describe('Pass as `cursor` for the next page of enrollments; null on the last page.'),
  })
  .meta({ id: 'Sequence' });
export const SequencePage = z.object({ ...page, results: z.array(SequenceSummary) }).meta({ id: 'SequencePage' });

export const Replies = z
  .object({
    replies: z.array(
      z.object({
        email_id: z.string(),
        from_email: z.string(),
        from_name: z.string().nullable(),
        subject: z.string(),
        body_plain: z.string(),
        classification: z.enum(['reply', 'bounce', 'auto_reply']),
        received_at: timestamp,
      }),
    ).describe('One page, oldest first: at most `page_size`, fewer when they would pass the size of one answer.'),
    next_cursor: z.string().nullable().describe('Pass as `cursor` for the next page of replies; null on the last page.'),
  })
  .meta({ id: 'Replies' });

const attachmentTypes = Object.keys(ATTACHMENT_TYPES) as [keyof typeof ATTACHMENT_TYPES, ...(keyof typeof ATTACHMENT_TYPES)[]];
export const TestEmail = z
  .object({
    id: z.uuid(),
    status: z.enum(TEST_EMAIL_STATUSES),
    to: z.string(),
    from_account: z.string(),
    from_email: z.string(),
    subject: z.string(),
    body_html: z.string(),
    signature_html: z.string(),
    attachments: z.array(z.object({ filename: z.string(), content_type: z.enum(attachmentTypes), size_bytes: z.number().int() })),
    created_at: timestamp,
    sent_at: nullableTimestamp,
    message_id: z.string().nullable(),
    internet_message_id: z.string().nullable(),
    error: jobError.nullable(),
  })
  .meta({ id: 'TestEmail' });

/** POST /u/{token}/ without the confirmation page's form: the one-click unsubscribe of RFC 8058. */
export const Unsubscribed = z.object({ unsubscribed: z.literal(true) }).meta({ id: 'Unsubscribed' });

/** The privacy requests of the people in the directory (docs/privacy.md): no key. */
const PRIVACY_REQUEST_KINDS = ['access', 'opt_out', 'erase'] as const satisfies readonly PrivacyRequestKind[];
export const PrivacyVerificationSent = z
  .object({ status: z.literal('verification_sent') })
  .meta({ id: 'PrivacyVerificationSent', description: 'The same answer whether or not the address is known, and when the address has had its 3 messages of the day (then nothing is sent).' });
export const PrivacyRequest = z
  .object({
    email: z.string().nullable().describe('The address the link was mailed to; null once an erasure of it has completed (the service no longer holds it).'),
    request: z.enum(PRIVACY_REQUEST_KINDS),
    status: z.enum(['pending', 'completed']).describe('`completed` once the link was confirmed; the link still answers until it expires.'),
    directory: z
      .array(
        ProfessionalProfile.extend({
          professional_url: z.string().describe('The profile URL the record is keyed by.'),
          work_email: z.string().nullable().describe('The work email the directory holds for this person.'),
          phone: z.string().nullable().describe('The phone number the directory holds (E.164), or null.'),
          skills: z.array(z.string()).describe('The skills the record lists.'),
        }),
      )
      .describe('The directory\'s records of this address: the profile enrichment answers (POST /enrich/professional-profile/) and the contact points held with it; empty when none.'),
    outreach: z
      .object({
        accounts_that_emailed: z.number().int().nonnegative().describe('How many accounts sent mail to this address through the service in the last 12 months (never which).'),
        last_emailed_at: nullableTimestamp.describe('The latest of those sends; null when none.'),
      })
      .describe('Mail sent to this address through the service, counted over the last 12 months.'),
  })
  .meta({ id: 'PrivacyRequest', description: 'What the service holds about the link\'s address, read when the link is opened.' });
export const PrivacyRequestCompleted = z.object({ status: z.literal('completed'), completed_at: timestamp }).meta({ id: 'PrivacyRequestCompleted' });
