import * as z from '../core/zod.js';
import type { QueueKey } from './queues.js';
import { SesEventSchema, type SesEvent } from './ses-event-schema.js';

/**
 * The queue message catalogue: one zod schema per message kind, grouped per queue as a discriminated union
 * on `kind`. Producers build messages through the `messages` builders below (or pass a value the type
 * checker holds to the queue's union); workers parse every body with the queue's schema, so a message is a
 * typed value end to end and never `JSON.parse(...) as X`. A timer message is what an EventBridge Scheduler
 * schedule delivers to the timers queue.
 */

/**
 * Every message kind's schema, built at the first send or receive rather than at module init: building zod
 * schemas is most of the cost of zod in a function's cold start (docs/benchmarks.md "Cold starts").
 */
function buildMessageKinds() {
  const id = (prefix: string) => z.string().check(z.regex(new RegExp(`^${prefix}_[0-9a-z]{26}$`), `must be a ${prefix}_ id`));
  const jobId = id('dj');
  const accountId = id('acct');
  const emailId = id('em');
  const testEmailId = z.uuid({ version: 'v4' });
  const attempt = z.number().check(z.int(), z.gte(1), z.lte(100));

  const PeopleSearch = z.strictObject({ kind: z.literal('people_search'), job_id: jobId });
  const PhoneEnrich = z.strictObject({ kind: z.literal('phone_enrich'), job_id: jobId });
  const DeepSearch = z.strictObject({ kind: z.literal('deep_search'), job_id: jobId });
  /** A bulk enrichment; its job item holds the checkpoint (the next item), so any delivery resumes it. */
  const BulkEnrich = z.strictObject({ kind: z.literal('bulk_enrich'), job_id: jobId });
  /** One bounded step of an agentic search's research loop; `step` is the checkpoint it starts from. */
  const AgenticStep = z.strictObject({ kind: z.literal('agentic_step'), job_id: jobId, step: z.number().check(z.int(), z.gte(0), z.lte(10_000)) });
  const DraftEmail = z.strictObject({ kind: z.literal('draft_email'), account_id: accountId, email_id: emailId });
  const SendEmail = z.strictObject({ kind: z.literal('send_email'), account_id: accountId, email_id: emailId });
  const SendTestEmail = z.strictObject({ kind: z.literal('send_test_email'), account_id: accountId, test_email_id: testEmailId });
  const DeliverJobEvent = z.strictObject({ kind: z.literal('deliver_job_event'), job_id: jobId, attempt });
  const WebhookRetry = z.strictObject({ kind: z.literal('webhook_retry'), job_id: jobId, attempt });
  const SendDue = z.strictObject({ kind: z.literal('send_due'), account_id: accountId, email_id: emailId });
  const ReviewExpired = z.strictObject({ kind: z.literal('review_expired'), account_id: accountId, email_id: emailId });
  const TestEmailTimeout = z.strictObject({ kind: z.literal('test_email_timeout'), account_id: accountId, test_email_id: testEmailId });
  // What the EventBridge rule's input transformer makes of an SES event: `{"kind":"ses_event","event":<the event>}`.
  const SesEventMessage = z.strictObject({ kind: z.literal('ses_event'), event: SesEventSchema });
  /** A directory version: 16 hex characters in AWS (import/plan-import.ts), a file's sha256 on the twin. */
  const directoryVersion = z.string().check(z.regex(/^[0-9a-f]{16,64}$/, 'must be a directory version'));
  /** Write one line-aligned byte range of an import's source (its plan is on the import's status item). */
  const DirectoryChunk = z.strictObject({ kind: z.literal('directory_chunk'), version: directoryVersion, chunk: z.number().check(z.int(), z.gte(0), z.lte(1_000_000)) });
  /** Delete a version lookups no longer read: one segment of a parallel scan, resumed from `start_key`. */
  const DirectoryCleanup = z.strictObject({
    kind: z.literal('directory_cleanup'),
    version: directoryVersion,
    segment: z.number().check(z.int(), z.gte(0)),
    segments: z.number().check(z.int(), z.gte(1), z.lte(1000)),
    start_key: z.optional(z.strictObject({ pk: z.string(), sk: z.string() })),
  });
  /** Every chunk is written: verify, build the search artifact, switch the pointer, schedule the cleanup. */
  const DirectoryFinalize = z.strictObject({ kind: z.literal('directory_finalize'), version: directoryVersion });
  return { PeopleSearch, PhoneEnrich, DeepSearch, BulkEnrich, AgenticStep, DraftEmail, SendEmail, SendTestEmail, DeliverJobEvent, WebhookRetry, SendDue, ReviewExpired, TestEmailTimeout, SesEventMessage, DirectoryChunk, DirectoryCleanup, DirectoryFinalize };
}

let messageKinds: ReturnType<typeof buildMessageKinds> | undefined;
const kinds = () => (messageKinds ??= buildMessageKinds());

export const QUEUE_MESSAGES = {
  search: z.lazy(() => z.discriminatedUnion('kind', [kinds().PeopleSearch, kinds().PhoneEnrich, kinds().DeepSearch, kinds().BulkEnrich, kinds().AgenticStep])),
  drafting: z.lazy(() => z.discriminatedUnion('kind', [kinds().DraftEmail])),
  sending: z.lazy(() => z.discriminatedUnion('kind', [kinds().SendEmail, kinds().SendTestEmail])),
  webhooks: z.lazy(() => z.discriminatedUnion('kind', [kinds().DeliverJobEvent])),
  timers: z.lazy(() => z.discriminatedUnion('kind', [kinds().WebhookRetry, kinds().SendDue, kinds().ReviewExpired, kinds().TestEmailTimeout])),
  'mail-events': z.lazy(() => z.discriminatedUnion('kind', [kinds().SesEventMessage])),
  'directory-import': z.lazy(() => z.discriminatedUnion('kind', [kinds().DirectoryChunk, kinds().DirectoryCleanup])),
  'directory-finalize': z.lazy(() => z.discriminatedUnion('kind', [kinds().DirectoryFinalize])),
} satisfies Record<QueueKey, z.ZodMiniType<{ kind: string }>>;

export type MessageOf<Q extends QueueKey> = z.output<(typeof QUEUE_MESSAGES)[Q]>;
export type KindOf<Q extends QueueKey> = MessageOf<Q>['kind'];
export type TimerMessage = MessageOf<'timers'>;

/**
 * The asynchronous job kinds the search queue runs in one message (a job's tier names its message kind).
 * An agentic search runs as a chain of `agentic_step` messages instead.
 */
export type SearchJobKind = Exclude<KindOf<'search'>, 'agentic_step'>;
let searchJobKinds: ReadonlySet<string> | undefined;
export const isSearchJobKind = (tier: string): tier is SearchJobKind =>
  (searchJobKinds ??= new Set(QUEUE_MESSAGES.search._zod.def.getter()._zod.def.options.flatMap((o) => o.shape.kind._zod.def.values).filter((k) => k !== 'agentic_step'))).has(tier);

/** Builders: the one place a message literal is written. */
export const messages = {
  job: (kind: SearchJobKind, jobId: string): MessageOf<'search'> => ({ kind, job_id: jobId }),
  agenticStep: (jobId: string, step: number): MessageOf<'search'> => ({ kind: 'agentic_step', job_id: jobId, step }),
  draftEmail: (accountId: string, emailId: string): MessageOf<'drafting'> => ({ kind: 'draft_email', account_id: accountId, email_id: emailId }),
  sendEmail: (accountId: string, emailId: string): MessageOf<'sending'> => ({ kind: 'send_email', account_id: accountId, email_id: emailId }),
  deliverJobEvent: (jobId: string, n: number): MessageOf<'webhooks'> => ({ kind: 'deliver_job_event', job_id: jobId, attempt: n }),
  webhookRetry: (jobId: string, n: number): TimerMessage => ({ kind: 'webhook_retry', job_id: jobId, attempt: n }),
  sendDue: (accountId: string, emailId: string): TimerMessage => ({ kind: 'send_due', account_id: accountId, email_id: emailId }),
  reviewExpired: (accountId: string, emailId: string): TimerMessage => ({ kind: 'review_expired', account_id: accountId, email_id: emailId }),
  sendTestEmail: (accountId: string, testEmailId: string): MessageOf<'sending'> => ({ kind: 'send_test_email', account_id: accountId, test_email_id: testEmailId }),
  testEmailTimeout: (accountId: string, testEmailId: string): TimerMessage => ({ kind: 'test_email_timeout', account_id: accountId, test_email_id: testEmailId }),
  sesEvent: (event: SesEvent): MessageOf<'mail-events'> => ({ kind: 'ses_event', event }),
  directoryChunk: (version: string, chunk: number): MessageOf<'directory-import'> => ({ kind: 'directory_chunk', version, chunk }),
  directoryCleanup: (version: string, segment: number, segments: number, startKey?: { pk: string; sk: string }): MessageOf<'directory-import'> => ({
    kind: 'directory_cleanup',
    version,
    segment,
    segments,
    ...(startKey ? { start_key: startKey } : {}),
  }),
  directoryFinalize: (version: string): MessageOf<'directory-finalize'> => ({ kind: 'directory_finalize', version }),
};

/** Why a queue body is not a message of its queue: the kind it claimed (if any) and zod's first issues. */
export class MalformedMessageError extends Error {
  constructor(
    readonly queue: QueueKey,
    readonly kind: string | null,
    readonly issues: string,
  ) {
    super(`malformed ${queue} message${kind ? ` of kind "${kind}"` : ''}: ${issues}`);
    this.name = 'MalformedMessageError';
  }
}

/** Parse a raw queue body into its queue's message union; anything else is a MalformedMessageError. */
export function parseMessage<Q extends QueueKey>(queue: Q, body: string): MessageOf<Q> {
  let raw: unknown;
  try {
    raw = JSON.parse(body);
  } catch {
    throw new MalformedMessageError(queue, null, 'body is not JSON');
  }
  const r = QUEUE_MESSAGES[queue].safeParse(raw);
  if (!r.success) {
    const kind = typeof (raw as { kind?: unknown } | null)?.kind === 'string' ? ((raw as { kind: string }).kind.slice(0, 64)) : null;
    throw new MalformedMessageError(queue, kind, r.error.issues.slice(0, 3).map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`).join('; '));
  }
  return r.data as MessageOf<Q>;
}
