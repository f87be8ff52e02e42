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
}

export interface TableDef {
  key: TableKey;
  /** Env var that carries the physical table name into a function bound to this table. */
  env: string;
  description: string;
  gsis: GsiDef[];
  ttlAttribute?: string;
}

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
    // Base key: profile URL. GSIs: work email, name + domain, name + company — each lookup is one request.
    gsis: [
      { name: 'gsi1', pk: 'gsi1pk', sk: 'gsi1sk' },
      { name: 'gsi2', pk: 'gsi2pk', sk: 'gsi2sk' },
      { name: 'gsi3', pk: 'gsi3pk', sk: 'gsi3sk' },
    ],
  },
};

export const TABLE_LIST: TableDef[] = Object.values(TABLES);
