import { AsyncLocalStorage } from 'node:async_hooks';
import type { Bindings } from '../catalog/bindings.js';
import { grantedEnvironment, resourceEnvironment } from '../catalog/bindings.js';
import { TABLES } from '../catalog/tables.js';
import { QUEUES } from '../catalog/queues.js';
import { AUTHORIZER_BINDINGS, functionNamed } from '../catalog/functions.js';
import { onClientCreated } from '../adapters/aws-client.js';
import { accessDenied, boundResources, deniedRequest, type Grants } from './iam.js';

/**
 * Each function on the twin runs with only what it has in AWS. The twin runs every function in one process,
 * so an invocation carries its function in an AsyncLocalStorage context, and two things read it:
 * - the environment: `process.env` hides, inside an invocation, every resource variable (table, queue,
 *   Scheduler, secret, user pool, usage plan, directory bucket) that the function's bindings do not set;
 * - every AWS SDK client the service creates (`lazyClient`): a middleware refuses a call the function's grants
 *   do not allow with the `AccessDeniedException` IAM answers, naming the action and the resource.
 * Work outside an invocation (the stack's own set-up, the stand-ins, test fixtures) is not restricted.
 */
interface Invocation {
  name: string;
  grants: Grants;
  visible: ReadonlySet<string>;
}

const invocations = new AsyncLocalStorage<Invocation>();
const RESOURCE_VARIABLES = resourceEnvironment(TABLES, QUEUES);
/** Tests take a grant away from one function (by name) to see the twin refuse what AWS would. */
const overrides = new Map<string, Bindings>();
let realEnv: NodeJS.ProcessEnv | null = null;

function invocationOf(name: string): Invocation {
  const fn = functionNamed(name);
  const bindings = overrides.get(name) ?? fn.bindings;
  const grants: Grants = fn.kind === 'authorizer' && bindings === AUTHORIZER_BINDINGS ? { bindings, tableActions: ['dynamodb:GetItem'] } : { bindings };
  return { name, grants, visible: new Set(grantedEnvironment(bindings, TABLES, QUEUES)) };
}

/**
 * What one invocation took, from the start of `work` until it returned or its promise settled (Lambda's
 * billed duration, before rounding). Reported only to a recorder someone set (bin/bench-cost.ts); off by default.
 */
export interface InvocationRecord {
  name: string;
  ms: number;
  failed: boolean;
}
let invocationRecorder: ((record: InvocationRecord) => void) | null = null;

/** Report every invocation's duration to `recorder` from now on; `null` stops it. */
export function recordInvocations(recorder: ((record: InvocationRecord) => void) | null): void {
  invocationRecorder = recorder;
}

/** The catalogue name of the function whose invocation is running here, if any (what a call is attributed to). */
export function currentFunction(): string | undefined {
  return invocations.getStore()?.name;
}

/** Run `work` as one invocation of the catalogue's function `name` (shared/catalog/functions.ts). */
export function runAsFunction<T>(name: string, work: () => T): T {
  const recorder = invocationRecorder;
  if (!recorder) return invocations.run(invocationOf(name), work);
  const started = performance.now();
  const done = (failed: boolean) => recorder({ name, ms: performance.now() - started, failed });
  let result: T;
  try {
    result = invocations.run(invocationOf(name), work);
  } catch (e) {
    done(true);
    throw e;
  }
  if (result instanceof Promise) result.then(() => done(false), () => done(true));
  else done(false);
  return result;
}

/** Replace a function's bindings (tests: strip one grant); `null` restores the catalogue's. */
export function overrideBindings(name: string, bindings: Bindings | null): void {
  functionNamed(name);
  if (bindings) overrides.set(name, bindings);
  else overrides.delete(name);
}

function hidden(key: string | symbol): boolean {
  if (typeof key !== 'string' || !RESOURCE_VARIABLES.has(key)) return false;
  const invocation = invocations.getStore();
  return invocation !== undefined && !invocation.visible.has(key);
}

interface MiddlewareClient {
  middlewareStack: {
    add(
      middleware: (next: (args: { input: Record<string, unknown> }) => Promise<unknown>, context: { clientName?: string; commandName?: string }) => (args: { input: Record<string, unknown> }) => Promise<unknown>,
      options: { step: 'initialize'; name: string; override?: boolean },
    ): void;
  };
}

/** Every call of an SDK client is checked against the running invocation's grants before it is built. */
function checkCalls(client: unknown): void {
  (client as MiddlewareClient).middlewareStack.add(
    (next, context) => async (args) => {
      const invocation = invocations.getStore();
      if (invocation && realEnv) {
        const call = { client: context.clientName ?? 'unknown', command: (context.commandName ?? 'unknown').replace(/Command$/, ''), input: args.input };
        const denial = deniedRequest(invocation.grants, call, boundResources(realEnv, invocation.grants.bindings));
        if (denial) throw accessDenied(invocation.name, denial);
      }
      return next(args);
    },
    { step: 'initialize', name: 'localIamCheck', override: true },
  );
}

/**
 * Install the environment filter and the SDK check, once per process (the local stack does, before it makes
 * its clients). Idempotent.
 */
export function enforceFunctionGrants(): void {
  if (realEnv) return;
  const real = process.env;
  realEnv = real;
  process.env = new Proxy(real, {
    get: (target, key) => (hidden(key) ? undefined : Reflect.get(target, key)),
    has: (target, key) => !hidden(key) && Reflect.has(target, key),
    ownKeys: (target) => Reflect.ownKeys(target).filter((key) => !hidden(key)),
    getOwnPropertyDescriptor: (target, key) => (hidden(key) ? undefined : Reflect.getOwnPropertyDescriptor(target, key)),
    // Writes go to the environment itself (with it as the receiver: Node's env takes only plain assignments).
    set: (target, key, value) => Reflect.set(target, key, value),
    deleteProperty: (target, key) => Reflect.deleteProperty(target, key),
  });
  onClientCreated(checkCalls);
}
