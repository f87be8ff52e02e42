import type { Bindings } from './bindings.js';
import { ROUTES, routeBindings, type RouteDef } from './routes.js';
import { DEAD_LETTERS, MAILBOX_POLL, QUEUE_LIST, SWEEPER, type QueueKey } from './queues.js';
import { API_KEY_AUTHORIZER } from './authorizer.js';

/**
 * Every function the stacks deploy, with what it is granted: the routes (one function a route), the API-key
 * authorizer, the queue workers, the housekeeping functions and the two fed by S3. The CDK stack applies the
 * same bindings (`ServiceFunction.applyBindings`); the twin runs each invocation with only these grants
 * (shared/local/function-context.ts), and `test/infra/grants.test.ts` checks each bundle against them.
 */
export interface FunctionDef {
  /** Unique and stable: `GET /api/public/v1/emails/`, `sending-worker`, `sweeper`… */
  name: string;
  module: string;
  kind: 'route' | 'authorizer' | 'worker' | 'housekeeping' | 'data';
  bindings: Bindings;
}

/** The directory import's planner, run on an S3 upload of the directory object. */
export const DIRECTORY_IMPORT = {
  module: 'functions/directory/import.ts',
  bindings: { tables: { directory: 'readwrite' }, queues: { 'directory-import': 'send', 'directory-finalize': 'send' }, directoryImport: 'read' },
} as const satisfies { module: string; bindings: Bindings };

/**
 * Inbound mail stored by SES receiving (S3), matched and classified. mail_evidence: a hard bounce marks the address
 * invalid for every account (shared/outreach/bounces.ts); accounts, read only: the sending accounts a message may be
 * addressed to. The stored object itself is read by the S3 trigger's own grant (lib/constructs/inbound-mail.ts).
 */
export const INBOUND_MAIL = {
  module: 'functions/inbound/ses-s3.ts',
  bindings: { tables: { outreach: 'readwrite', mail_evidence: 'readwrite', accounts: 'read' }, scheduler: true },
} as const satisfies { module: string; bindings: Bindings };

/**
 * The API-key authorizer may GetItem the accounts table and nothing else (lib/api-stack.ts); `read` is the
 * nearest binding, and the twin narrows it to GetItem (shared/local/iam.ts).
 */
export const AUTHORIZER_BINDINGS: Bindings = { tables: { accounts: 'read' } };

export const routeFunctionName = (route: Pick<RouteDef, 'method' | 'path'>) => `${route.method} ${route.path}`;
export const workerFunctionName = (key: QueueKey) => `${key}-worker`;

export const FUNCTIONS: readonly FunctionDef[] = [
  ...ROUTES.map((r): FunctionDef => ({ name: routeFunctionName(r), module: r.module, kind: 'route', bindings: routeBindings(r) })),
  { name: 'api-key-authorizer', module: API_KEY_AUTHORIZER.module, kind: 'authorizer', bindings: AUTHORIZER_BINDINGS },
  ...QUEUE_LIST.map((q): FunctionDef => ({ name: workerFunctionName(q.key), module: q.worker.module, kind: 'worker', bindings: q.worker.bindings })),
  { name: 'dead-letters', module: DEAD_LETTERS.module, kind: 'housekeeping', bindings: DEAD_LETTERS.bindings },
  { name: 'sweeper', module: SWEEPER.module, kind: 'housekeeping', bindings: SWEEPER.bindings },
  { name: 'mailbox-poll', module: MAILBOX_POLL.module, kind: 'housekeeping', bindings: MAILBOX_POLL.bindings },
  { name: 'directory-import', module: DIRECTORY_IMPORT.module, kind: 'data', bindings: DIRECTORY_IMPORT.bindings },
  { name: 'inbound-mail', module: INBOUND_MAIL.module, kind: 'data', bindings: INBOUND_MAIL.bindings },
];

const BY_NAME = new Map(FUNCTIONS.map((f) => [f.name, f]));

export function functionNamed(name: string): FunctionDef {
  const fn = BY_NAME.get(name);
  if (!fn) throw new Error(`no function named ${name} in the catalogue`);
  return fn;
}
