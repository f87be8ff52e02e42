/**
 * The table catalogue: one definition of every DynamoDB table (keys, GSIs, TTL attribute) and of how long
 * each kind of item is kept, read by the CDK stack, by the local stack that creates the same tables in
 * DynamoDB Local, and by the repositories that write `expires_at`.
 * Every table uses generic `pk`/`sk` string keys (single-table style per bounded context).
 */
export type TableKey = 'accounts' | 'jobs' | 'outreach' | 'directory' | 'mail_evidence' | 'privacy';

export interface GsiDef {
  name: string;
  pk: string;
  sk: string;
  /** Project only these non-key attributes (INCLUDE); absent means ALL. */
  include?: string[];
  /** Project only the keys (the reader fetches the item itself, consistently). */
  keysOnly?: boolean;
}

/**
 * The due index: a sparse GSI every workflow record carries while it waits for a next step. The write that
 * completes one step sets `due_pk` (one of DUE_SHARDS partitions) and `due_at` (ISO time by which the next
 * step should have happened); the write that reaches a resting or terminal state removes both. The sweeper
 * queries each shard for `due_at <= now` and re-drives what it finds. Keys only: the sweeper reads the
 * record itself with a consistent read before acting.
 */
export const DUE_INDEX: GsiDef = { name: 'due', pk: 'due_pk', sk: 'due_at', keysOnly: true };
export const DUE_SHARDS = 4;

/**
 * The list index of the outreach table: what GET /emails/ and GET /sequences/ page through. Sparse: only an
 * API-created email (`list_pk` EMAILS#<account>) and a sequence (SEQS#<account>) carry it, written once at
 * create; `list_sk` is `<created_at>#<id>`, so a key range is newest first and `since` is a key condition.
 * It projects `status` alone (a status filter reads it there), so an entry is ~150 bytes: counting an
 * account's whole list costs about one read unit per 25 emails, where the items themselves (bodies of up to
 * 50,000 characters each) cost at least one per email. A page's items are read from the table by key.
 */
export const LIST_INDEX: GsiDef = { name: 'list', pk: 'list_pk', sk: 'list_sk', include: ['status'] };

/** The due-index attributes of an item (keyed by its own `pk`/`sk`) whose next step is due at `at`. */
export function dueFields(key: { pk: string; sk: string }, at: Date): { due_pk: string; due_at: string } {
  let h = 0;
  for (const c of `${key.pk}/${key.sk}`) h = (Math.imul(h, 31) + c.charCodeAt(0)) >>> 0;
  return { due_pk: dueShard(h % DUE_SHARDS), due_at: at.toISOString() };
}

export const dueShard = (n: number) => `due#${n}`;

/** What a write that reaches a resting or terminal state removes. */
export const DUE_ATTRIBUTES = ['due_pk', 'due_at'] as const;

export interface TableDef {
  key: TableKey;
  /** Env var that carries the physical table name into a function bound to this table. */
  env: string;
  description: string;
  gsis: GsiDef[];
  ttlAttribute?: string;
}

/** What a directory lookup by email or name returns (see shared/directory/directory.repository.ts). */
export const DIRECTORY_LOOKUP_FIELDS = ['work_email', 'professional_url', 'phone'];

export const TABLES: Record<TableKey, TableDef> = {
  accounts: {
    key: 'accounts',
    env: 'ACCOUNTS_TABLE_NAME',
    description: 'Accounts, API key hashes, webhook signing secrets, sending accounts, credit ledger and charge audit records, per-key token buckets',
    gsis: [{ name: 'gsi1', pk: 'gsi1pk', sk: 'gsi1sk' }, DUE_INDEX],
    // Only token buckets and OAuth states carry expires_at here; money records never do (expiresAt refuses their kinds).
    ttlAttribute: 'expires_at',
  },
  jobs: {
    key: 'jobs',
    env: 'JOBS_TABLE_NAME',
    description: 'Asynchronous jobs (search, deep search, agentic search, phone enrichment), idempotency keys, webhook deliveries',
    gsis: [{ name: 'gsi1', pk: 'gsi1pk', sk: 'gsi1sk' }, DUE_INDEX],
    ttlAttribute: 'expires_at',
  },
  outreach: {
    key: 'outreach',
    env: 'OUTREACH_TABLE_NAME',
    description: 'Outreach emails, sequences, enrollments, leads, suppression list, send-slot counters, test emails',
    gsis: [
      { name: 'gsi1', pk: 'gsi1pk', sk: 'gsi1sk' },
      { name: 'gsi2', pk: 'gsi2pk', sk: 'gsi2sk' },
      DUE_INDEX,
      LIST_INDEX,
      // The await index: the emails that wait for sending capacity, and nothing else. Sparse: the write that
      // parks a queued email (its sending account has no daily limit) sets `await_pk` AWAIT#<account>#<ea_id>
      // and `await_sk` <created_at>#<em_id>; every write that takes it out of that state (scheduled, sending,
      // sent, cancelled, failed) removes both (shared/outreach/emails.repository.ts). Keys only: raising the
      // limit reads the few waiting emails themselves by key, consistently, never the account's others.
      { name: 'await', pk: 'await_pk', sk: 'await_sk', keysOnly: true },
    ],
    ttlAttribute: 'expires_at',
  },
  directory: {
    key: 'directory',
    env: 'DIRECTORY_TABLE_NAME',
    description: 'The imported people directory, keyed for one-round-trip enrichment lookups',
    // Base key: profile URL (the full person, for profiles). GSIs: work email, name + domain, name + company,
    // each projecting only what those lookups answer (email, profile URL, phone): still one request per
    // lookup, at a fraction of the storage and write cost of projecting the whole person three more times.
    gsis: [
      { name: 'gsi1', pk: 'gsi1pk', sk: 'gsi1sk', include: DIRECTORY_LOOKUP_FIELDS },
      { name: 'gsi2', pk: 'gsi2pk', sk: 'gsi2sk', include: DIRECTORY_LOOKUP_FIELDS },
      { name: 'gsi3', pk: 'gsi3pk', sk: 'gsi3sk', include: DIRECTORY_LOOKUP_FIELDS },
    ],
  },
  mail_evidence: {
    key: 'mail_evidence',
    env: 'MAIL_EVIDENCE_TABLE_NAME',
    // Apart from the outreach table so that enrichment and search read these few facts without a grant on any
    // account's emails, and the bounce and delivery paths write them without a grant on the directory.
    description: 'What the service\'s own sending learnt about addresses (hard bounce, delivery; keyed by address hash) and domains (delivered patterns), naming no account',
    gsis: [],
    // Only the inbound bounce reports (one per address and reporting account hash) expire.
    ttlAttribute: 'expires_at',
  },
  privacy: {
    key: 'privacy',
    env: 'PRIVACY_TABLE_NAME',
    // Apart from every account's data: the people in the directory ask here, without an account, and every
    // account's search, enrichment and outreach reads the opt-outs (docs/privacy.md).
    description: 'Privacy requests of the people in the directory (access, opt-out, erasure), their hashed single-use tokens, the opt-out and erasure lists (address and profile hashes only), and which accounts emailed an address (hashes only)',
    // gsi1: the console's list of requests, newest first (gsi1pk = REQS, gsi1sk = <created_at>#<id>).
    gsis: [{ name: 'gsi1', pk: 'gsi1pk', sk: 'gsi1sk' }],
    // Tokens, rate counters and the per-account "emailed" records expire; opt-outs and the erasure list never do.
    ttlAttribute: 'expires_at',
  },
};

export const TABLE_LIST: TableDef[] = Object.values(TABLES);

const HOUR = 3600;
const DAY = 24 * HOUR;

/** How long one kind of item is kept: `seconds` after `from`, or `null` for never. */
export interface RetentionDef {
  table: TableKey;
  seconds: number | null;
  /** The moment the clock starts: the repository computes `expires_at` when it writes that transition. */
  from: string;
  why: string;
}

/**
 * Retention of every kind of item, as data. A repository writes `expires_at = expiresAt(kind, now)` on the
 * write named in `from`; DynamoDB's TTL deletes the item some time after that instant (typically within
 * days, not to the second), so reads that must not see expired items also filter on `expires_at`.
 */
export const RETENTION = {
  account: { table: 'accounts', seconds: null, from: 'creation', why: 'The customer relationship; closed by the console, not by time.' },
  api_key: { table: 'accounts', seconds: null, from: 'creation', why: 'Revoked keys stay as the audit trail of who could call the API.' },
  webhook_secret: { table: 'accounts', seconds: null, from: 'creation', why: 'Signing secrets are revoked explicitly; revoked ones stay for audit.' },
  sending_account: { table: 'accounts', seconds: null, from: 'creation', why: 'Configuration, changed in the console.' },
  oauth_state: { table: 'accounts', seconds: 600, from: 'a mailbox connection being started', why: 'The PKCE verifier and state of one consent screen; a user who takes longer starts again.' },
  ledger_entry: { table: 'accounts', seconds: null, from: 'creation', why: 'Money: the balance is the sum of the ledger.' },
  charge: { table: 'accounts', seconds: null, from: 'creation', why: 'Money: the audit record of every reservation and its settlement.' },
  idempotency_record: { table: 'jobs', seconds: 24 * HOUR, from: 'creation', why: 'An Idempotency-Key replays the same job for a day.' },
  finished_job: { table: 'jobs', seconds: 30 * DAY, from: 'completed or failed', why: 'Results stay pollable for 30 days after the webhook.' },
  webhook_delivery: { table: 'jobs', seconds: 30 * DAY, from: 'the job finishing', why: 'Delivery logs live as long as the job they report on.' },
  outreach_email: { table: 'outreach', seconds: 180 * DAY, from: 'a terminal state (sent, cancelled, failed)', why: 'Listing history and reply matching; replies rarely come after months.' },
  tracking_pointer: { table: 'outreach', seconds: 180 * DAY, from: 'the email being sent', why: 'Open and unsubscribe links work as long as their email exists (well past the 30 days one-click unsubscribe must work).' },
  reply: { table: 'outreach', seconds: 180 * DAY, from: 'receipt', why: 'Kept as long as the emails they answer.' },
  sequence: { table: 'outreach', seconds: 180 * DAY, from: 'a terminal state (completed, cancelled, failed)', why: 'Kept as long as the emails of its steps.' },
  lead: { table: 'outreach', seconds: 180 * DAY, from: 'the last email to the address', why: 'Contact history behind recently_contacted (30 days) and already_in_automation, with margin.' },
  enrollment_lock: { table: 'outreach', seconds: null, from: 'creation', why: 'An address is held while its enrollment runs and let go in the write that ends it; a bucket item is tiny and reused.' },
  suppression: { table: 'outreach', seconds: null, from: 'creation', why: 'An unsubscribe or hard bounce must be honoured for good.' },
  send_slot_counter: { table: 'outreach', seconds: 2 * DAY, from: 'creation', why: 'A daily counter only matters on its day, in any time zone.' },
  key_throttle: { table: 'accounts', seconds: HOUR, from: 'the moment the bucket is full again', why: 'A full bucket and a missing item mean the same; the item only has to outlive its effect.' },
  test_email: { table: 'outreach', seconds: 30 * DAY, from: 'creation', why: 'Idempotency and status of a pilot test send.' },
  deliverability_day: { table: 'outreach', seconds: 400 * DAY, from: 'the UTC day it counts', why: 'A year of per-day deliverability history for the web app; the throttle and warm-up read at most 120 days.' },
  deliverability_event: { table: 'outreach', seconds: 180 * DAY, from: 'the event', why: 'An email counts each kind of event once; its marker lives as long as the email and its tracking links.' },
  mail_evidence: { table: 'mail_evidence', seconds: null, from: 'creation', why: 'A hard bounce must keep an address invalid for every later enrichment; a delivery is overwritten by the next event, not by time.' },
  inbound_issue: { table: 'outreach', seconds: 30 * DAY, from: 'receipt', why: 'Operators look at what could not be handled within days; the message itself stays in the mailbox or bucket.' },
  inbound_attempts: { table: 'outreach', seconds: 7 * DAY, from: 'the first failed attempt', why: 'Counts retries of one message across polls; a message is unprocessable after three, long before a week.' },
  sent_to_pointer: { table: 'outreach', seconds: 180 * DAY, from: 'the email being sent', why: 'Matches a bounce without a Message-ID to the latest send to its recipient, as long as the email exists.' },
  bounce_report: { table: 'mail_evidence', seconds: 180 * DAY, from: 'the report', why: 'An inbound bounce report of one account; two independent accounts make an address invalid for everyone.' },
  mail_event: { table: 'outreach', seconds: 30 * DAY, from: 'receipt', why: 'EventBridge may deliver an SES event more than once; its id is remembered well past any redelivery.' },
  privacy_request: { table: 'privacy', seconds: 400 * DAY, from: 'creation', why: 'Proof that a person\'s request was carried out, kept a year and a month (the address itself is dropped when an erasure completes).' },
  privacy_token: { table: 'privacy', seconds: 24 * HOUR, from: 'creation', why: 'A verification link is valid for 24 hours and used once.' },
  privacy_rate: { table: 'privacy', seconds: 2 * DAY, from: 'the start of the UTC day it counts', why: 'At most 3 verification messages per address a day; the counter only matters on its day.' },
  privacy_opt_out: { table: 'privacy', seconds: null, from: 'creation', why: 'An opt-out or erasure is honoured for good, by every account and every later import.' },
  emailed_by_account: { table: 'privacy', seconds: 400 * DAY, from: 'the latest send to the address', why: 'Answers an access request: how many accounts emailed the address in the last 12 months and when last (hashes only).' },
  lookup_budget: { table: 'outreach', seconds: 2 * DAY, from: 'the start of the UTC day it counts', why: 'A daily counter of DNS lookups only matters on its day; the second day covers a request that straddles midnight.' },
} as const satisfies Record<string, RetentionDef>;

export type ItemKind = keyof typeof RETENTION;
/** Kinds that expire: the only ones `expiresAt` accepts, so a money record can never be given a TTL. */
export type ExpiringItemKind = { [K in ItemKind]: (typeof RETENTION)[K]['seconds'] extends number ? K : never }[ItemKind];

/** The `expires_at` value (epoch seconds, what DynamoDB TTL reads) of an item of `kind` whose clock starts at `now`. */
export function expiresAt(kind: ExpiringItemKind, now: Date): number {
  const seconds: number | null = RETENTION[kind].seconds;
  if (seconds === null) throw new Error(`${kind} items never expire`);
  return Math.floor(now.getTime() / 1000) + seconds;
}
