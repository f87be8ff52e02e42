import { TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../adapters/aws.js';
import { cancellationReasons, isConditionFailed, isTransactionCanceled } from '../adapters/dynamodb-errors.js';
import { chargeProgressWrite, pendingSettleWrites, type TransactItem } from '../accounts/ledger.repository.js';
import { DEADLINES, after } from '../catalog/deadlines.js';
import { DUE_ATTRIBUTES, dueFields, expiresAt } from '../catalog/tables.js';
import { tableName } from '../catalog/resource-names.js';
import { jobsKeys as K } from '../jobs/jobs.keys.js';
import type { JobError } from '../jobs/model.js';
import { countJobEnded } from '../jobs/job-metrics.js';
import type { AgenticSearchItem } from '../webhooks/events.js';
import type { AgenticJob, Checkpoint } from './model.js';
import type { Criteria } from '../understanding/criteria.js';

/**
 * The agentic job's writes. Each is one conditional write (or transaction) whose condition is the state
 * machine's guard: a step is saved only by the step whose number the checkpoint holds, a job ends once, and
 * the two concurrency counters move in the same transactions that admit and end a job.
 */
export const CONCURRENCY_LIMITS = { perKey: 2, perAccount: 3 } as const;

/** A step's work may take this long before the sweeper sends its message again (longer than any step runs). */
export const STEP_GRACE_MS = 5 * 60_000;

function counter(scope: 'KEY' | 'ACCOUNT', id: string, delta: 1 | -1, max?: number): TransactItem {
  return {
    Update: {
      TableName: tableName('jobs'),
      Key: K.concurrency(scope, id),
      UpdateExpression: 'ADD active :d',
      ...(max === undefined ? {} : { ConditionExpression: 'attribute_not_exists(active) OR active < :max' }),
      ExpressionAttributeValues: { ':d': delta, ...(max === undefined ? {} : { ':max': max }) },
    },
  };
}

/** Take a slot of the key and of the account (conditioned on their limits), to ride in the admission transaction. */
export function takeSlotWrites(job: Pick<AgenticJob, 'account_id' | 'key_id'>): TransactItem[] {
  return [counter('KEY', job.key_id, 1, CONCURRENCY_LIMITS.perKey), counter('ACCOUNT', job.account_id, 1, CONCURRENCY_LIMITS.perAccount)];
}

const releaseSlotWrites = (job: Pick<AgenticJob, 'account_id' | 'key_id'>): TransactItem[] => [counter('KEY', job.key_id, -1), counter('ACCOUNT', job.account_id, -1)];

/** `pending` → `running` as the first step starts; the checkpoint stays at step 0 (no paid work yet). */
export async function markAgenticRunning(jobId: string, now: Date): Promise<boolean> {
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: tableName('jobs'),
        Key: K.job(jobId),
        UpdateExpression: 'SET #s = :running, updated_at = :now, due_pk = :dpk, due_at = :dat',
        ConditionExpression: '#s = :pending',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':running': 'running', ':pending': 'pending', ':now': now.toISOString(), ...dueValues(jobId, now) },
      }),
    );
    return true;
  } catch (e) {
    if (isConditionFailed(e)) return false;
    throw e;
  }
}

function dueValues(jobId: string, now: Date) {
  const due = dueFields(K.job(jobId), after(now, STEP_GRACE_MS));
  return { ':dpk': due.due_pk, ':dat': due.due_at };
}

/** The job item's part of saveStep's transaction (exported so the size of what it writes can be measured). */
export function saveStepUpdate(job: AgenticJob, step: number, next: Checkpoint, leads: AgenticSearchItem[], now: Date, shortlist?: string[], criteria?: Criteria) {
  const values: Record<string, unknown> = { ':prev': step, ':running': 'running', ':cp': next, ':new': leads, ':empty': [], ':n': next.leads, ':now': now.toISOString(), ...dueValues(job.id, now) };
  const sets = ['checkpoint = :cp', 'agentic_results = list_append(if_not_exists(agentic_results, :empty), :new)', 'leads_returned = :n', 'updated_at = :now', 'due_pk = :dpk', 'due_at = :dat'];
  if (shortlist) {
    sets.push('shortlist = :sl');
    values[':sl'] = shortlist;
  }
  if (criteria) {
    sets.push('criteria = :cr');
    values[':cr'] = criteria;
  }
  return {
    Update: {
      TableName: tableName('jobs'),
      Key: K.job(job.id),
      UpdateExpression: `SET ${sets.join(', ')}`,
      ConditionExpression: 'checkpoint.step = :prev AND #s = :running',
      ExpressionAttributeNames: { '#s': 'status' },
      ExpressionAttributeValues: values,
    },
  } satisfies TransactItem;
}

/**
 * Save one step: its leads appended, the next checkpoint, the shortlist and criteria (first step) and the credits used
 * so far on the pending charge, in one transaction conditioned on the checkpoint still being at `step`
 * and the job running. A redelivered or duplicate step loses the condition and saves nothing, so no lead
 * is delivered, and no credit charged, twice.
 */
export async function saveStep(job: AgenticJob, step: number, next: Checkpoint, leads: AgenticSearchItem[], now: Date, shortlist?: string[], criteria?: Criteria): Promise<boolean> {
  try {
    await documentClient().send(
      new TransactWriteCommand({
        TransactItems: [saveStepUpdate(job, step, next, leads, now, shortlist, criteria), chargeProgressWrite(job.account_id, job.charge_id, next.charged)],
      }),
    );
    return true;
  } catch (e) {
    if (isTransactionCanceled(e) && cancellationReasons(e)[0]?.Code === 'ConditionalCheckFailed') return false;
    throw e;
  }
}

export type AgenticEnding =
  | { status: 'completed'; result: Record<string, unknown>; leads: number; charge: number }
  | { status: 'failed'; error: JobError }
  | { status: 'cancelled' };

/**
 * End a job once: its outcome, the settle of its reservation (`charged` / `zero_result` with what the run
 * used, or `released`), both concurrency slots given back and, for `completed` and `failed`, its webhook
 * queued, in one transaction. `expect` is the guard: the checkpoint step seen (a concurrent step that saved
 * meanwhile makes this lose, and the caller looks again), or `pending` for a cancel before any work.
 * `dropIdempotencyKey` removes the key of an admission that is being undone.
 */
export async function endAgenticJob(job: AgenticJob, ending: AgenticEnding, expect: { step: number } | 'pending', now: Date, dropIdempotencyKey?: { scope: string; key: string }): Promise<boolean> {
  const names: Record<string, string> = { '#s': 'status', '#r': 'result', '#e': 'error' };
  const values: Record<string, unknown> = {
    ':st': ending.status,
    ':now': now.toISOString(),
    ':r': ending.status === 'completed' ? ending.result : null,
    ':e': ending.status === 'failed' ? ending.error : null,
    ':n': ending.status === 'completed' ? ending.leads : (job.checkpoint.leads ?? 0),
    ':exp': expiresAt('finished_job', now),
  };
  const sets = ['#s = :st', 'updated_at = :now', 'completed_at = :now', '#r = :r', '#e = :e', 'leads_returned = :n', 'expires_at = :exp'];
  const removes = ['agentic_results', 'shortlist', 'criteria'];
  if (ending.status === 'cancelled') {
    removes.push(...DUE_ATTRIBUTES);
  } else {
    const due = dueFields(K.job(job.id), after(now, DEADLINES.DISPATCH_GRACE_MS));
    Object.assign(values, { ':et': `agentic_search.${ending.status}`, ':queued': 'queued', ':dpk': due.due_pk, ':dat': due.due_at });
    sets.push('event_type = :et', 'webhook_status = :queued', 'due_pk = :dpk', 'due_at = :dat');
  }
  let condition: string;
  if (expect === 'pending') {
    condition = '#s = :pending';
    values[':pending'] = 'pending';
  } else {
    condition = '#s IN (:pending, :running) AND checkpoint.step = :step';
    Object.assign(values, { ':pending': 'pending', ':running': 'running', ':step': expect.step });
  }
  const settle =
    ending.status === 'completed'
      ? await pendingSettleWrites(job.account_id, job.charge_id, ending.charge > 0 ? 'charged' : 'zero_result', ending.charge, now)
      : await pendingSettleWrites(job.account_id, job.charge_id, 'released', 0, now);
  const items: TransactItem[] = [
    {
      Update: {
        TableName: tableName('jobs'),
        Key: K.job(job.id),
        UpdateExpression: `SET ${sets.join(', ')} REMOVE ${removes.join(', ')}`,
        ConditionExpression: condition,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      },
    },
    ...settle,
    ...releaseSlotWrites(job),
    ...(dropIdempotencyKey ? [{ Delete: { TableName: tableName('jobs'), Key: K.idempotency(job.account_id, dropIdempotencyKey.scope, dropIdempotencyKey.key) } }] : []),
  ];
  try {
    await documentClient().send(new TransactWriteCommand({ TransactItems: items }));
  } catch (e) {
    if (isTransactionCanceled(e) && cancellationReasons(e)[0]?.Code === 'ConditionalCheckFailed') return false;
    throw e;
  }
  countJobEnded(job, ending.status, { at: now, leads: ending.status === 'completed' ? ending.leads : (job.checkpoint.leads ?? 0) });
  return true;
}
