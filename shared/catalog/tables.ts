/**
 * The table catalogue: one definition of every DynamoDB table (keys, GSIs, TTL attribute), read by the
 * CDK stack and by the local stack that creates the same tables in DynamoDB Local.
 * Every table uses generic `pk`/`sk` string keys (single-table style per bounded context).
 */
export type TableKey = 'accounts' | 'jobs' | 'outreach' | 'directory';

export interface GsiDef {
  name: string;
  pk: string;
  sk: string;
  /** Project only these non-key attributes (INCLUDE); absent means ALL. */
  include?: string[];
}

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
    description: 'Accounts, API key hashes, webhook signing secrets, sending accounts, credit ledger and charge audit records',
    gsis: [{ name: 'gsi1', pk: 'gsi1pk', sk: 'gsi1sk' }],
  },
  jobs: {
    key: 'jobs',
    env: 'JOBS_TABLE_NAME',
    description: 'Asynchronous jobs (search, deep search, agentic search, phone enrichment), idempotency keys, webhook deliveries',
    gsis: [{ name: 'gsi1', pk: 'gsi1pk', sk: 'gsi1sk' }],
    ttlAttribute: 'expires_at',
  },
  outreach: {
    key: 'outreach',
    env: 'OUTREACH_TABLE_NAME',
    description: 'Outreach emails, sequences, enrollments, leads, suppression list, send-slot counters, test emails',
    gsis: [
      { name: 'gsi1', pk: 'gsi1pk', sk: 'gsi1sk' },
      { name: 'gsi2', pk: 'gsi2pk', sk: 'gsi2sk' },
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
};

export const TABLE_LIST: TableDef[] = Object.values(TABLES);
