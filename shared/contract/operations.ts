import type * as z from 'zod';
import { AgenticSearchSchema } from '../agentic/model.js';
import { EmailEnrichSchema, PhoneEnrichSchema, ProfessionalUrlEnrichSchema, ProfileEnrichSchema } from '../enrichment/enrichment.js';
import { BulkEnrichSchema } from '../enrichment/bulk.schema.js';
import { ApproveEmailSchema, CreateEmailSchema, ListEmailsQuerySchema, PatchEmailSchema } from '../outreach/schemas.js';
import { DeepSearchSchema } from '../search/deep-search-accept.js';
import { PeopleSearchSchema } from '../search/people-search.js';
import { AddContactsSchema, CreateSequenceSchema, ListSequencesQuerySchema, SequenceReadQuerySchema, SequenceRepliesQuerySchema } from '../sequences/schemas.js';
import { CreateTestEmailSchema } from '../test-emails/test-email.schema.js';
import { CreatePrivacyRequestSchema } from '../privacy-requests/privacy-requests.js';
import * as R from './responses.js';

/**
 * What the route table does not say about each public operation: its request schemas (the very objects
 * the handlers validate with), its answers per status, and the walk-through's example request. The
 * errors every route of an auth kind shares are added by openapi.ts.
 */
export interface Answer {
  description: string;
  schema?: z.ZodType;
  /** A non-JSON answer (the tracking pixel, the unsubscribe page); with `schema` too, the answer is either. */
  mediaType?: string;
}

export interface Operation {
  summary: string;
  tag: string;
  description?: string;
  /** Classic or zod/mini: the document is built from zod's core. */
  body?: z.core.$ZodType;
  /**
   * When the body comes in alternative shapes the schema checks in code (a refinement JSON Schema cannot
   * show): the fields each shape requires, published as `oneOf` of `required` lists, exactly one of which holds.
   */
  bodyShapes?: string[][];
  query?: z.core.$ZodObject;
  idempotency?: 'optional' | 'required';
  /** Price in credits, as stated in docs/decisions.md#billing-model (also shown by the MCP tools). */
  price?: string;
  example?: unknown;
  answers: Record<number, Answer>;
}

const HOOK = 'https://hooks.example.com/people';
const err = (description: string): Answer => ({ description, schema: R.ErrorEnvelope });
const invalid = err('`invalid_request`: invalid or missing fields (with `details`).');
const notFound = err('`not_found`: unknown id, or an id of another account.');
const conflictState = err('`conflict`: wrong state for this action.');
const noCredits = err('`insufficient_credits`: the balance cannot cover the charge or reservation.');
const contention = err('`contention`: a reservation lost after bounded retries; retry after `Retry-After`.');
const noSecret = err('`conflict`: no active webhook signing secret; or the `Idempotency-Key` was reused with a different body.');
const upstream = err('`upstream_error`: the lookup failed upstream; not charged.');
const unknownLink = err('`not_found`: an unknown unsubscribe link, or a token not of the shape of one.');
const unknownPrivacyLink = err('`not_found`: an unknown or expired link (a link is valid 24 hours), or a token not of its shape (43 base64url characters).');
const accepted = (what: string): Answer => ({ description: `Accepted: ${what}.`, schema: R.JobAcceptance });
const poll = (schema: z.ZodType): Answer => ({ description: 'The polling envelope (free).', schema });

export const OPERATIONS: Record<string, Operation> = {
  'GET email/accounts/': {
    summary: 'List sending accounts',
    tag: 'Sending accounts',
    answers: { 200: { description: 'The caller\'s connected mailboxes (read-only).', schema: R.SendingAccountList } },
  },
  'POST search/': {
    summary: 'Start a people search',
    tag: 'Search',
    description: 'Asynchronous: results by webhook (`search.completed`) and by polling. Continue with `search_id` for the next non-overlapping page.',
    body: PeopleSearchSchema,
    // A new search names its query; a continuation names search_id instead (never both).
    bodyShapes: [['query'], ['search_id']],
    idempotency: 'optional',
    price: '1 credit per lead returned (max_results reserved; zero leads cost nothing)',
    example: { query: 'VP of Sales at fintech companies in the US', max_results: 25, webhook_url: HOOK },
    answers: { 202: accepted('a people search job'), 400: invalid, 402: noCredits, 404: err('`not_found`: `search_id` names none of your people searches.'), 409: noSecret, 503: contention },
  },
  'GET search/{job_id}/': { summary: 'Poll a people search', tag: 'Search', answers: { 200: poll(R.PeopleSearchJob), 404: notFound } },
  'POST deep-search/': {
    summary: 'Start a deep search',
    tag: 'Search',
    description: 'A researched shortlist with fit scores: `standard` up to 25 people, `extended` up to 100. Charged in full on success, even with no one found.',
    body: DeepSearchSchema,
    idempotency: 'optional',
    price: '200 credits (standard) or 400 credits (extended) per successful run',
    example: { query: 'VP of Sales at fintech companies in San Francisco', mode: 'standard', webhook_url: HOOK },
    answers: { 202: accepted('a deep search job'), 400: invalid, 402: noCredits, 409: noSecret, 503: contention },
  },
  'GET deep-search/{job_id}/': { summary: 'Poll a deep search', tag: 'Search', answers: { 200: poll(R.DeepSearchJob), 404: notFound } },
  'POST enrich/phone/': {
    summary: 'Start a phone enrichment',
    tag: 'Enrichment',
    description: 'Asynchronous; `phone` is null on a miss (a clean completion).',
    body: PhoneEnrichSchema,
    idempotency: 'optional',
    price: '50 credits on a hit, 0 on a miss',
    example: { email: 'jane.doe@example.com', webhook_url: HOOK },
    answers: { 202: accepted('a phone enrichment job'), 400: invalid, 402: noCredits, 409: noSecret, 503: contention },
  },
  'GET enrich/phone/{job_id}/': { summary: 'Poll a phone enrichment', tag: 'Enrichment', answers: { 200: poll(R.PhoneEnrichJob), 404: notFound } },
  'POST enrich/bulk/': {
    summary: 'Start a bulk enrichment',
    tag: 'Enrichment',
    description:
      'Beyond SPEC: 1 to 100 items, each `{kind, …}` with `kind` one of `email`, `professional_url`, `professional_profile`, `phone` and the rest that single call\'s body (no `webhook_url`). One asynchronous job: its webhook `bulk_enrich.completed` and its polling envelope carry one result per item, in input order. An item that is not valid does not fail the call: its result is `invalid_input`, never charged, and the other items go on.',
    body: BulkEnrichSchema,
    idempotency: 'optional',
    price: 'each item as its single call (email 5, professional URL 3, profile 2 credits per completed lookup, a no-match included; phone 50 on a hit, 0 on a miss; an invalid item 0); the sum of the valid items\' prices is reserved at acceptance and each item settled on its own',
    example: {
      items: [
        { kind: 'email', professional_url: 'linkedin.com/in/jane-doe' },
        { kind: 'professional_url', email: 'jane.doe@example.com' },
        { kind: 'professional_profile', professional_url: 'https://www.linkedin.com/in/jane-doe/' },
        { kind: 'phone', first_name: 'Jane', last_name: 'Doe', domain: 'example.com' },
      ],
      webhook_url: HOOK,
    },
    answers: { 202: accepted('a bulk enrichment job'), 400: invalid, 402: noCredits, 409: noSecret, 503: contention },
  },
  'GET enrich/bulk/{job_id}/': { summary: 'Poll a bulk enrichment', tag: 'Enrichment', answers: { 200: poll(R.BulkEnrichJob), 404: notFound } },
  'POST agentic-search/': {
    summary: 'Start an agentic search',
    tag: 'Search',
    description: 'Detailed persona with evidence, credit-capped: `max_credits` is reserved; 100 credits once paid work starts plus 10 per lead, never above the cap. Enabled per account (404 otherwise); at most 2 running jobs per key and 3 per account (429).',
    body: AgenticSearchSchema,
    idempotency: 'optional',
    price: 'variable, never above max_credits (100 once work starts + 10 per lead)',
    example: {
      query: 'VP of Engineering at software companies that raised a Series B in the last year and are hiring data engineers. Ideally they use Snowflake or spoke at a conference.',
      target_results: 10,
      max_credits: 500,
      webhook_url: HOOK,
    },
    answers: {
      202: accepted('an agentic search job'),
      400: invalid,
      402: noCredits,
      404: err('`not_found`: agentic search is not enabled for the account.'),
      409: noSecret,
      429: { description: 'Concurrency limit (an application error) or the gateway\'s throttle.', schema: R.ErrorEnvelope },
      500: err('Internal admission or dispatch failure; the reservation is released.'),
      503: contention,
    },
  },
  'GET agentic-search/{job_id}/': { summary: 'Poll an agentic search', tag: 'Search', answers: { 200: poll(R.AgenticSearchJob), 404: notFound } },
  'POST agentic-search/{job_id}/cancel/': {
    summary: 'Cancel an agentic search',
    tag: 'Search',
    description: 'Idempotent. Pending → cancelled (all released); running → completed with `partial` and `user_cancelled` (work done stays billable); terminal → unchanged.',
    answers: { 202: { description: 'The job\'s current `id`, `status`, `created_at`.', schema: R.JobAcceptance }, 404: notFound },
  },
  'POST enrich/email/': {
    summary: 'Find a work email',
    tag: 'Enrichment',
    body: EmailEnrichSchema,
    price: '5 credits per completed call, a no-match included',
    example: { professional_url: 'linkedin.com/in/jane-doe' },
    answers: { 200: { description: 'Found.', schema: R.EmailFound }, 400: invalid, 402: noCredits, 404: err('`not_found`: no match (charged).'), 502: upstream, 503: contention },
  },
  'POST enrich/professional-url/': {
    summary: 'Find a professional profile URL',
    tag: 'Enrichment',
    body: ProfessionalUrlEnrichSchema,
    price: '3 credits per completed call, a no-match included',
    example: { email: 'jane.doe@example.com' },
    answers: { 200: { description: 'Found, in bare-host form.', schema: R.ProfessionalUrlFound }, 400: invalid, 402: noCredits, 404: err('`not_found`: no match (charged).'), 502: upstream, 503: contention },
  },
  'POST enrich/professional-profile/': {
    summary: 'Get a professional profile',
    tag: 'Enrichment',
    body: ProfileEnrichSchema,
    price: '2 credits per completed call, a no-match included',
    example: { professional_url: 'https://www.linkedin.com/in/jane-doe/' },
    answers: { 200: { description: 'The profile.', schema: R.ProfessionalProfile }, 400: invalid, 402: noCredits, 404: err('`not_found`: no profile (charged).'), 502: upstream, 503: contention },
  },
  'POST emails/': {
    summary: 'Draft an outreach email',
    tag: 'Outreach emails',
    description: 'Drafting takes 10–60 s; poll the email until `pending_review` (or `queued` with review `none`).',
    body: CreateEmailSchema,
    price: '2 credits per successfully drafted email',
    example: {
      to: { email: 'jane@prospect.example', first_name: 'Jane', company_name: 'Acme', context: 'Opened a Berlin office' },
      instructions: 'Short and friendly: introduce our warehouse automation platform, ask for a 15-minute call.',
    },
    answers: { 202: { description: 'Accepted, drafting.', schema: R.EmailAcceptance }, 400: invalid, 402: noCredits, 409: err('`conflict`: no usable sending account.'), 503: contention },
  },
  'GET emails/': { summary: 'List outreach emails', tag: 'Outreach emails', query: ListEmailsQuerySchema, answers: { 200: { description: 'Newest first; only emails created through the API; items without their bodies.', schema: R.EmailPage }, 400: invalid } },
  'GET emails/{id}/': { summary: 'Get an outreach email', tag: 'Outreach emails', answers: { 200: { description: 'The email.', schema: R.OutreachEmail }, 404: notFound } },
  'PATCH emails/{id}/': {
    summary: 'Edit an outreach email',
    tag: 'Outreach emails',
    description: 'While `pending_review` or `queued`; `subject` and/or exactly one of `body_plain` / `body_html`. Editing in review extends the window.',
    body: PatchEmailSchema,
    example: { subject: 'Quick question' },
    answers: { 200: { description: 'The updated email.', schema: R.OutreachEmail }, 400: invalid, 404: notFound, 409: conflictState },
  },
  'POST emails/{id}/approve/': {
    summary: 'Approve an outreach email',
    tag: 'Outreach emails',
    body: ApproveEmailSchema,
    example: { schedule: 'now' },
    answers: { 200: { description: 'The updated email.', schema: R.OutreachEmail }, 400: invalid, 404: notFound, 409: conflictState },
  },
  'POST emails/{id}/cancel/': {
    summary: 'Cancel an outreach email',
    tag: 'Outreach emails',
    answers: { 200: { description: 'The cancelled email.', schema: R.OutreachEmail }, 404: notFound, 409: conflictState },
  },
  'POST sequences/': {
    summary: 'Create a sequence',
    tag: 'Sequences',
    description: 'Needs a connected `google` or `microsoft` sending account (409 otherwise). Ineligible contacts are listed in `contacts_rejected`.',
    body: CreateSequenceSchema,
    price: '2 credits per drafted email (contacts × steps), reserved at create',
    example: {
      contacts: [{ email: 'jane@prospect.example', first_name: 'Jane', company_name: 'Acme', context: 'Opened a Berlin office' }],
      instructions: 'Introduce our warehouse automation platform; follow up briefly.',
      name: 'Warehouse leads',
      steps: 3,
    },
    answers: { 202: { description: 'Accepted, drafting.', schema: R.SequenceAcceptance }, 400: invalid, 402: noCredits, 409: err('`conflict`: no `google`/`microsoft` sending account.'), 503: contention },
  },
  'GET sequences/': { summary: 'List sequences', tag: 'Sequences', query: ListSequencesQuerySchema, answers: { 200: { description: 'Newest first, without enrollments.', schema: R.SequencePage }, 400: invalid } },
  'GET sequences/{id}/': {
    summary: 'Get a sequence',
    tag: 'Sequences',
    description: 'Enrollments come in pages (`page_size` default 50, at most 200; a page ends early rather than pass the 6 MB a function can answer): follow `next_cursor` until it is null.',
    query: SequenceReadQuerySchema,
    answers: { 200: { description: 'The sequence with one page of its enrollments and their steps.', schema: R.Sequence }, 400: invalid, 404: notFound },
  },
  'POST sequences/{id}/contacts/': {
    summary: 'Add contacts to a sequence',
    tag: 'Sequences',
    body: AddContactsSchema,
    price: '2 credits per drafted email',
    example: { contacts: [{ email: 'sam@prospect.example', first_name: 'Sam', company_name: 'Acme' }] },
    answers: { 202: { description: 'Accepted, drafting the new enrollments.', schema: R.ContactsAdded }, 400: invalid, 402: noCredits, 404: notFound, 409: err('`conflict`: a drafting pass runs, or the sequence is cancelled or failed.'), 503: contention },
  },
  'POST sequences/{id}/approve/': {
    summary: 'Approve a sequence',
    tag: 'Sequences',
    answers: { 200: { description: 'The sequence with the first page of its enrollments (as GET without `cursor`).', schema: R.Sequence }, 404: notFound, 409: err('`conflict`: still drafting.') },
  },
  'POST sequences/{id}/cancel/': {
    summary: 'Cancel a sequence',
    tag: 'Sequences',
    answers: { 200: { description: 'The sequence with the first page of its enrollments (as GET without `cursor`).', schema: R.Sequence }, 404: notFound, 409: conflictState },
  },
  'GET sequences/{id}/replies/': {
    summary: 'List replies to a sequence',
    tag: 'Sequences',
    description: 'Replies come in pages, oldest first (`page_size` default 50, at most 200; a page ends early rather than pass the 6 MB a function can answer): follow `next_cursor` until it is null.',
    query: SequenceRepliesQuerySchema,
    answers: { 200: { description: 'One page of replies, bounces and auto-replies.', schema: R.Replies }, 400: invalid, 404: notFound },
  },
  'GET o/{token}/': {
    summary: 'Open-tracking pixel',
    tag: 'Recipient links',
    description: 'Called by the recipient\'s mail client; no credential.',
    answers: {
      200: { description: 'A 1×1 GIF, for any token of the shape of a tracking token (an unknown one reveals nothing).', mediaType: 'image/gif' },
      404: err('`not_found`: the path\'s token is not of the shape of a tracking token (32 base64url characters), so it names nothing.'),
    },
  },
  'GET u/{token}/': {
    summary: 'Unsubscribe confirmation page',
    tag: 'Recipient links',
    description: 'Suppresses nothing. A link only the lead got: one button. A link the lead and the CC recipients got (their shared message on a Gmail or Microsoft sender): one button per recipient, the lead first, each unsubscribing only that address.',
    answers: {
      200: { description: 'A page whose button POSTs `confirm=yes`, or whose buttons each POST `confirm=yes&recipient=<address>` for a shared link.', mediaType: 'text/html' },
      404: unknownLink,
    },
  },
  'POST u/{token}/': {
    summary: 'Unsubscribe (the page\'s button, or RFC 8058 one-click)',
    tag: 'Recipient links',
    description: 'The body is read as a form (`application/x-www-form-urlencoded`: `confirm`, `recipient`). A link only the lead got suppresses the lead whatever the body says (the page\'s button, or RFC 8058 one-click from a mail client). A shared link suppresses only `recipient`, which must be one of the addresses its page lists; without it, or with another address, nobody is suppressed (its message offers no one-click).',
    answers: {
      200: {
        description: 'A link only the lead got, the lead suppressed: a page saying so (`text/html`) when the body is the page\'s form (`confirm=yes`), else `{"unsubscribed": true}` (RFC 8058 one-click from a mail client). A shared link: a page naming the suppressed `recipient`, or the page of choices again when nothing was suppressed (`text/html`).',
        mediaType: 'text/html',
        schema: R.Unsubscribed,
      },
      404: unknownLink,
    },
  },
  'POST privacy-requests/': {
    summary: 'Ask what is held about an address, or opt it out or erase it',
    tag: 'Privacy requests',
    description:
      'For the people in the directory and the recipients of outreach, no key: a single-use link, valid 24 hours, is mailed to `email`, and only its owner can go on (GET the link to see what is held, POST its `confirm/` to carry the request out). The answer is the same whether or not the address is known, and nothing about the address is read here. At most 3 messages an address a UTC day: a further request answers the same and sends nothing. `opt_out`: the address and the directory person it belongs to are left out of every account\'s search, enrichment and outreach. `erase`: that, and the person\'s directory record, enrichment data and the address\'s outreach history are deleted; only a hash of the address is kept, so a later directory import does not bring the person back.',
    body: CreatePrivacyRequestSchema,
    example: { email: 'jane.doe@example.com', request: 'access' },
    answers: {
      202: { description: 'The link is on its way (or, past the address\'s daily limit, nothing is sent): always this answer.', schema: R.PrivacyVerificationSent },
      400: invalid,
      503: err('`unavailable`: the deployment has no sender address for the link, so nothing can be sent.'),
    },
  },
  'GET privacy-requests/{token}/': {
    summary: 'What is held about the link\'s address',
    tag: 'Privacy requests',
    description: 'The token is the `token` of the mailed link (`/privacy/?token=…` on the web app\'s host, whose page calls this). It answers until the link expires, 24 hours after the request, also once confirmed.',
    answers: { 200: { description: 'The request and what is held.', schema: R.PrivacyRequest }, 404: unknownPrivacyLink },
  },
  'POST privacy-requests/{token}/confirm/': {
    summary: 'Carry out a privacy request',
    tag: 'Privacy requests',
    description: 'Carries the request out at once and once: `opt_out` and `erase` take effect for every account before the answer; `access` just completes. A repeat, while the link is valid, answers the same `completed_at`.',
    answers: { 200: { description: 'Completed.', schema: R.PrivacyRequestCompleted }, 404: unknownPrivacyLink },
  },
  'POST test-emails/': {
    summary: 'Send a test email (pilot)',
    tag: 'Test emails',
    description: 'Finished copy to the fixed shared test inbox, at once. Pilot accounts only (403 otherwise). At most 10 new tests an hour and 50 a day.',
    body: CreateTestEmailSchema,
    idempotency: 'required',
    price: 'free',
    example: { from_account: 'ea_01jabcdefghjkmnpqrstvwxyz0', subject: 'Preview', body_plain: 'Hello from the pilot.' },
    answers: {
      200: { description: 'Same-key replay of a record that has an outcome.', schema: R.TestEmail },
      202: { description: 'New record, or same-key replay while `queued` or `sending`.', schema: R.TestEmail },
      400: invalid,
      403: err('`permission_denied`: the account is outside the pilot or not eligible, or the request has attachments and attachments are not enabled for the account.'),
      409: err('`conflict`: same key with different content, or the sender is unusable.'),
      503: err('`unavailable`: the deployment has no test inbox, so nothing can be sent; or `contention`: concurrent creates of the account kept colliding; retry after `Retry-After` with the same key and content.'),
    },
  },
  'GET openapi.json': {
    summary: 'This document',
    tag: 'Contract',
    description: 'The OpenAPI 3.1 document of the public API; no key needed. Rendered at `/docs/`.',
    answers: { 200: { description: 'The document.', mediaType: 'application/json' } },
  },
  'GET test-emails/{id}/': { summary: 'Get a test email', tag: 'Test emails', answers: { 200: { description: 'The record.', schema: R.TestEmail }, 404: notFound } },
};
