import type { TableKey } from './tables.js';
import type { QueueKey } from './queues.js';

/**
 * What a function may touch. The CDK construct turns this into env vars and least-privilege grants
 * (`bindTable`, `bindQueue`…); the local stack turns it into the same env vars.
 */
export interface Bindings {
  tables?: Partial<Record<TableKey, 'read' | 'readwrite'>>;
  queues?: Partial<Record<QueueKey, 'send'>>;
  /** Create/update/delete one-time schedules in the service's Scheduler group (targets the timers queue). */
  scheduler?: boolean;
  /**
   * Update per-key token buckets (`RATE#…` items of the accounts table) and nothing else there: for
   * `handler_key` routes, which throttle per key themselves. Needs `tables.accounts` for the table name.
   */
  keyThrottle?: boolean;
  /**
   * Set `last_used_at` on API key items of the accounts table and no other attribute (the hourly "last used"
   * of routes that resolve a key, shared/accounts/key-use.repository.ts). Needs `tables.accounts`.
   */
  keyUse?: boolean;
  /** Send mail through SES. */
  mail?: boolean;
  /** Read the secret-box key that encrypts webhook signing secrets, smtp account passwords and mailbox tokens. */
  secrets?: boolean;
  /** Read the OAuth client ids and secrets of the mailbox providers (Google, Microsoft). */
  mailboxProviders?: boolean;
  /** Create users in the web app's Cognito user pool (`USER_POOL_ID`). */
  userPool?: boolean;
  /** Register API keys with API Gateway (console and web app). */
  apiKeys?: boolean;
  /**
   * Read the directory from the import bucket (`DIRECTORY_BUCKET`): the JSONL (`DIRECTORY_KEY`) and each
   * version's search index artifact under INDEX_ARTIFACT_PREFIX.
   */
  directorySource?: boolean;
  /**
   * A directory import's access to the import bucket (`DIRECTORY_BUCKET`, `DIRECTORY_KEY`): `read` any
   * version of the directory object; `readwrite` also put the search index artifacts under `index/`.
   */
  directoryImport?: 'read' | 'readwrite';
}

/** Where in the directory bucket the import writes each version's search index artifact. */
export const INDEX_ARTIFACT_PREFIX = 'index/';
