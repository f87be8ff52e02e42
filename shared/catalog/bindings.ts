import type { TableKey } from './tables.js';
import type { QueueKey } from './queue-key.js';

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
  /**
   * Ask the stack's language model (Amazon Bedrock, Converse; `bedrock:InvokeModel` on `LANGUAGE_MODEL_ID` only)
   * for query understanding and evidence judgement. Takes effect only where the stack enables the model
   * (`-c languageModelId=…`); without it the function has neither the variables nor the grant.
   */
  languageModel?: boolean;
}

/** Where in the directory bucket the import writes each version's search index artifact. */
export const INDEX_ARTIFACT_PREFIX = 'index/';

/** What `read` and `readwrite` of a table grant (indexes by name). Transactions need no action of their own. */
export const TABLE_READ_ACTIONS = [
  'dynamodb:BatchGetItem',
  'dynamodb:ConditionCheckItem',
  'dynamodb:DescribeTable',
  'dynamodb:GetItem',
  'dynamodb:Query',
  'dynamodb:Scan',
] as const;
export const TABLE_WRITE_ACTIONS = ['dynamodb:BatchWriteItem', 'dynamodb:DeleteItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'] as const;

/** The variables the languageModel binding sets (shared/understanding/understanding.ts reads them). */
export const LANGUAGE_MODEL_ENVIRONMENT = ['LANGUAGE_MODEL', 'LANGUAGE_MODEL_ID', 'LANGUAGE_MODEL_TIMEOUT_MS'] as const;

/** What `queues: {key: 'send'}` grants (CDK's `grantSendMessages`). */
export const QUEUE_SEND_ACTIONS = ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'] as const;

export const SCHEDULER_ACTIONS = ['scheduler:CreateSchedule', 'scheduler:UpdateSchedule', 'scheduler:DeleteSchedule', 'scheduler:GetSchedule'] as const;

/** The variables the scheduler binding sets: the group, Scheduler's delivery role, and the timers queue and its DLQ. */
export const SCHEDULER_ENVIRONMENT = ['SCHEDULER_GROUP_NAME', 'SCHEDULER_ROLE_ARN', 'TIMERS_QUEUE_ARN', 'TIMERS_DLQ_ARN'] as const;

/**
 * The environment variables that name a resource, each set only on a function bound to that resource (the
 * CDK construct's `bind…` methods). On the twin a secret's value stands in the variable that names it in AWS:
 * `SECRET_BOX_KEY` for `SECRET_BOX_SECRET_ARN`, `MAILBOX_PROVIDERS` for `MAILBOX_PROVIDERS_SECRET_ARN`.
 */
export function grantedEnvironment(b: Bindings, tables: Record<string, { env: string }>, queues: Record<string, { urlEnv: string; arnEnv: string }>): string[] {
  const env: string[] = [];
  for (const key of Object.keys(b.tables ?? {})) env.push(tables[key]!.env);
  for (const key of Object.keys(b.queues ?? {})) env.push(queues[key]!.urlEnv, queues[key]!.arnEnv);
  if (b.scheduler) env.push(...SCHEDULER_ENVIRONMENT);
  if (b.mail) env.push('SES_CONFIGURATION_SET');
  if (b.secrets) env.push('SECRET_BOX_SECRET_ARN', 'SECRET_BOX_KEY');
  if (b.mailboxProviders) env.push('MAILBOX_PROVIDERS_SECRET_ARN', 'MAILBOX_PROVIDERS');
  if (b.userPool) env.push('USER_POOL_ID');
  if (b.apiKeys) env.push('USAGE_PLAN_NAME');
  if (b.directorySource || b.directoryImport) env.push('DIRECTORY_BUCKET', 'DIRECTORY_KEY');
  if (b.languageModel) env.push(...LANGUAGE_MODEL_ENVIRONMENT);
  return env;
}

/** Every variable `grantedEnvironment` can give: a function sees only those its bindings grant. */
export function resourceEnvironment(tables: Record<string, { env: string }>, queues: Record<string, { urlEnv: string; arnEnv: string }>): Set<string> {
  const all: Bindings = {
    tables: Object.fromEntries(Object.keys(tables).map((k) => [k, 'readwrite'])),
    queues: Object.fromEntries(Object.keys(queues).map((k) => [k, 'send'])),
    scheduler: true,
    mail: true,
    secrets: true,
    mailboxProviders: true,
    userPool: true,
    apiKeys: true,
    directorySource: true,
    languageModel: true,
  };
  return new Set(grantedEnvironment(all, tables, queues));
}
