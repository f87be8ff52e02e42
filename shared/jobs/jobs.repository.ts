import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient, scanAll } from '../adapters/aws.js';
import { tableName } from '../catalog/resource-names.js';
import type { Job, JobError, WebhookAttempt } from './model.js';
import { jobsKeys as K } from './jobs.keys.js';
import { cancellationReasons, isConditionFailed, isTransactionCanceled } from '../adapters/dynamodb-errors.js';
import type { TransactItem } from '../accounts/ledger.repository.js';
import { setClauses } from '../adapters/update-expression.js';
import { DUE_ATTRIBUTES, dueFields, expiresAt } from '../catalog/tables.js';
import { DEADLINES, after } from '../catalog/deadlines.js';

/** Reads and guarded state changes of a job. Every transition's condition is the state machine's guard. */
export async function getJob(id: string): Promise<Job | null> {
  const out = await documentClient().send(new GetCommand({ TableName: tableName('jobs'), Key: K.job(id), ConsistentRead: true }));
  return (out.Item as Job | undefined) ?? null;
}

/** The job an item key of the jobs table names (the due index hands out keys), or null. */
export const jobIdOfKey = K.jobIdOf;

/** Tenant-scoped read: someone else's job, or a job of another kind, is simply not found. */
export async function getOwnJob(accountId: string, id: string, tier: Job['tier']): Promise<Job | null> {
  const job = await getJob(id);
  return job && job.account_id === accountId && job.tier === tier ? job : null;
}

/** `pending` → `running`; from now the job is due at its deadline, when the sweeper ends it if still running. */
export async function markRunning(job: Job, now: string): Promise<boolean> {
  const due = dueFields(K.job(job.id), after(job.created_at, DEADLINES.JOB_MS));
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: tableName('jobs'),
        Key: K.job(job.id),
        UpdateExpression: 'SET #s = :running, updated_at = :now, due_pk = :dpk, due_at = :dat',
        ConditionExpression: '#s = :pending',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':running': 'running', ':pending': 'pending', ':now': now, ':dpk': due.due_pk, ':dat': due.due_at },
      }),
    );
    return true;
  } catch (e) {
    if (isConditionFailed(e)) return false;
    throw e;
  }
}

export interface JobFinish {
  status: 'completed' | 'failed';
  now: string;
  result: Record<string, unknown> | null;
  error: JobError | null;
  leads_returned: number;
  event_type: string;
  extra?: Record<string, unknown>;
}

/**
 * Finish a job once, in one transaction with `settle` (the writes that settle its reservation): the job's
 * outcome, its charge and its first webhook delivery (`webhook_status: queued`, due within the dispatch
 * grace, so the sweeper sends it if the message is lost) are recorded together or not at all. A second
 * finisher (redelivery) loses the condition and changes nothing. A reservation settled meanwhile by someone
 * else (its writes' condition lost) does not keep the job from finishing.
 */
export async function finishJob(id: string, outcome: JobFinish, settle: TransactItem[] = []): Promise<boolean> {
  const names: Record<string, string> = { '#s': 'status', '#r': 'result', '#e': 'error' };
  const values: Record<string, unknown> = {
    ':st': outcome.status,
    ':now': outcome.now,
    ':r': outcome.result,
    ':e': outcome.error,
    ':n': outcome.leads_returned,
    ':et': outcome.event_type,
    ':pending': 'pending',
    ':running': 'running',
    ':queued': 'queued',
  };
  const extra = setClauses(outcome.extra ?? {}, 'x');
  Object.assign(names, extra.names);
  Object.assign(values, extra.values);
  // A finished job (and the delivery log it carries) is kept for its retention, then TTL removes it.
  values[':exp'] = expiresAt('finished_job', new Date(outcome.now));
  const due = dueFields(K.job(id), after(outcome.now, DEADLINES.DISPATCH_GRACE_MS));
  values[':dpk'] = due.due_pk;
  values[':dat'] = due.due_at;
  const sets = [
    '#s = :st', 'updated_at = :now', 'completed_at = :now', '#r = :r', '#e = :e', 'leads_returned = :n', 'event_type = :et', 'expires_at = :exp',
    'webhook_status = :queued', 'due_pk = :dpk', 'due_at = :dat', ...extra.clauses,
  ];
  const update: TransactItem = {
    Update: {
      TableName: tableName('jobs'),
      Key: K.job(id),
      UpdateExpression: `SET ${sets.join(', ')}`,
      ConditionExpression: '#s IN (:pending, :running)',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  };
  try {
    await documentClient().send(new TransactWriteCommand({ TransactItems: [update, ...settle] }));
    return true;
  } catch (e) {
    if (!isTransactionCanceled(e)) throw e;
    const [job, ...rest] = cancellationReasons(e);
    if (job?.Code === 'ConditionalCheckFailed') return false;
    if (settle.length && rest.some((r) => r.Code === 'ConditionalCheckFailed')) return finishJob(id, outcome);
    throw e;
  }
}

/**
 * Checkpoint a running bulk enrichment: append the results of items `from`… and move `bulk_next` on, in one
 * transaction with `ledger` (the items' charges, shared/accounts/ledger.repository.ts `itemChargeWrites`),
 * on condition that the job is still running at `from`. False when it is not (a redelivery got there first,
 * or the job ended): nothing was written, and the caller reads the job again.
 */
export async function saveBulkProgress(id: string, from: number, results: readonly unknown[], found: number, now: string, ledger: TransactItem[]): Promise<boolean> {
  const update: TransactItem = {
    Update: {
      TableName: tableName('jobs'),
      Key: K.job(id),
      UpdateExpression: 'SET bulk_results = list_append(bulk_results, :r), bulk_next = :next, leads_returned = :found, updated_at = :now',
      ConditionExpression: '#s = :running AND bulk_next = :from',
      ExpressionAttributeNames: { '#s': 'status' },
      ExpressionAttributeValues: { ':r': results, ':next': from + results.length, ':found': found, ':now': now, ':running': 'running', ':from': from },
    },
  };
  try {
    await documentClient().send(new TransactWriteCommand({ TransactItems: [update, ...ledger] }));
    return true;
  } catch (e) {
    if (isTransactionCanceled(e) && cancellationReasons(e).some((r) => r.Code === 'ConditionalCheckFailed')) return false;
    throw e;
  }
}

/**
 * Push a job's due time on after the sweeper has re-driven (or looked at) its step, unless the job has moved
 * on meanwhile: still in `status`, or (finished) with no further delivery attempt recorded.
 */
export async function postponeJob(id: string, expect: { status: 'pending' | 'running' } | { attempts: number }, at: Date): Promise<boolean> {
  const due = dueFields(K.job(id), at);
  const byStatus = 'status' in expect;
  const attempts = byStatus ? 0 : expect.attempts;
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: tableName('jobs'),
        Key: K.job(id),
        UpdateExpression: 'SET due_pk = :dpk, due_at = :dat',
        ConditionExpression: byStatus ? '#s = :s' : attempts === 0 ? 'attribute_not_exists(webhook_attempts) OR size(webhook_attempts) = :n' : 'size(webhook_attempts) = :n',
        ...(byStatus ? { ExpressionAttributeNames: { '#s': 'status' } } : {}),
        ExpressionAttributeValues: { ':dpk': due.due_pk, ':dat': due.due_at, ...(byStatus ? { ':s': expect.status } : { ':n': attempts }) },
      }),
    );
    return true;
  } catch (e) {
    if (isConditionFailed(e)) return false;
    throw e;
  }
}

/** Take a job off the due index: nothing is left for the sweeper to do with it. */
export async function clearJobDue(id: string): Promise<void> {
  await documentClient().send(new UpdateCommand({ TableName: tableName('jobs'), Key: K.job(id), UpdateExpression: `REMOVE ${DUE_ATTRIBUTES.join(', ')}` }));
}

/**
 * Lease delivery attempt n for `leaseMs`: a concurrent redelivery of the same message finds the lease
 * and stands back; a lease left by a crashed worker expires and the attempt can be made again.
 */
export async function leaseWebhookAttempt(id: string, attempt: number, nowMs: number, leaseMs: number): Promise<boolean> {
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: tableName('jobs'),
        Key: K.job(id),
        UpdateExpression: 'SET webhook_lease = :lease',
        ConditionExpression: 'attribute_not_exists(webhook_lease) OR webhook_lease.attempt <> :n OR webhook_lease.until_ms < :now',
        ExpressionAttributeValues: { ':lease': { attempt, until_ms: nowMs + leaseMs }, ':n': attempt, ':now': nowMs },
      }),
    );
    return true;
  } catch (e) {
    if (isConditionFailed(e)) return false;
    throw e;
  }
}

/**
 * Record attempt n of a webhook delivery exactly once: the condition is that n-1 attempts are recorded,
 * so a redelivered message cannot log (or act on) the same attempt twice.
 */
export async function recordWebhookAttempt(id: string, attempt: WebhookAttempt, finalStatus: 'queued' | 'delivered' | 'failed'): Promise<boolean> {
  // A retry still to come is due at its time (plus the grace for its message or schedule to arrive).
  const due = attempt.next_retry_at ? dueFields(K.job(id), after(attempt.next_retry_at, DEADLINES.DISPATCH_GRACE_MS)) : null;
  const dueClause = due ? ', due_pk = :dpk, due_at = :dat' : ` REMOVE ${DUE_ATTRIBUTES.join(', ')}`;
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: tableName('jobs'),
        Key: K.job(id),
        UpdateExpression: `SET webhook_attempts = list_append(if_not_exists(webhook_attempts, :empty), :a), webhook_status = :ws${dueClause}`,
        ConditionExpression: attempt.attempt === 1 ? 'attribute_not_exists(webhook_attempts) OR size(webhook_attempts) = :zero' : 'size(webhook_attempts) = :prev',
        ExpressionAttributeValues: {
          ':a': [attempt],
          ':empty': [],
          ':ws': finalStatus,
          ...(due ? { ':dpk': due.due_pk, ':dat': due.due_at } : {}),
          ...(attempt.attempt === 1 ? { ':zero': 0 } : { ':prev': attempt.attempt - 1 }),
        },
      }),
    );
    return true;
  } catch (e) {
    if (isConditionFailed(e)) return false;
    throw e;
  }
}

/**
 * Queue one more delivery of a finished job's event after its deliveries ended (delivered or given up):
 * back to `queued`, due within the dispatch grace (so the sweeper sends it if the message is lost), on
 * condition that nothing changed since `attempts` were read. False when it did, or a delivery is still queued.
 */
export async function reopenWebhookDelivery(id: string, attempts: number, now: Date): Promise<boolean> {
  const due = dueFields(K.job(id), after(now.toISOString(), DEADLINES.DISPATCH_GRACE_MS));
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: tableName('jobs'),
        Key: K.job(id),
        UpdateExpression: 'SET webhook_status = :queued, due_pk = :dpk, due_at = :dat',
        ConditionExpression: 'webhook_status IN (:delivered, :failed) AND size(webhook_attempts) = :n',
        ExpressionAttributeValues: { ':queued': 'queued', ':delivered': 'delivered', ':failed': 'failed', ':n': attempts, ':dpk': due.due_pk, ':dat': due.due_at },
      }),
    );
    return true;
  } catch (e) {
    if (isConditionFailed(e)) return false;
    throw e;
  }
}

/** The fields of a job an account's job list shows (not its results). */
const JOB_LIST_FIELDS = ['id', 'tier', '#s', 'created_at', 'completed_at', 'leads_returned', 'webhook_status', '#q'];

/**
 * An account's jobs, newest first, from the account index every job already carries (job ids are ULIDs,
 * so its sort key is creation order): no extra item or index per job. `after` is the last job id of the
 * previous page.
 */
export async function queryAccountJobs(accountId: string, limit: number, after?: string): Promise<{ jobs: Pick<Job, 'id' | 'tier' | 'status' | 'created_at' | 'completed_at' | 'leads_returned' | 'webhook_status' | 'request'>[]; last: string | null }> {
  const index = K.jobByAccount(accountId, after ?? '');
  const out = await documentClient().send(
    new QueryCommand({
      TableName: tableName('jobs'),
      IndexName: 'gsi1',
      KeyConditionExpression: after ? 'gsi1pk = :pk AND gsi1sk < :after' : 'gsi1pk = :pk AND begins_with(gsi1sk, :prefix)',
      ExpressionAttributeValues: { ':pk': index.gsi1pk, ...(after ? { ':after': index.gsi1sk } : { ':prefix': K.jobPrefix }) },
      ExpressionAttributeNames: { '#s': 'status', '#q': 'request' },
      ProjectionExpression: JOB_LIST_FIELDS.join(', '),
      ScanIndexForward: false,
      Limit: limit,
    }),
  );
  const jobs = (out.Items ?? []) as Pick<Job, 'id' | 'tier' | 'status' | 'created_at' | 'completed_at' | 'leads_returned' | 'webhook_status' | 'request'>[];
  return { jobs, last: out.LastEvaluatedKey ? (jobs.at(-1)?.id ?? null) : null };
}

/** What an Idempotency-Key remembers: the job it created and a hash of the body that created it. */
export interface IdempotencyRecord {
  job_id: string;
  body_hash: string;
}

/** The record of a key still within its retention (TTL deletes expired items only some time later). */
export async function getIdempotencyRecord(accountId: string, scope: string, key: string, now: Date): Promise<IdempotencyRecord | null> {
  const out = await documentClient().send(new GetCommand({ TableName: tableName('jobs'), Key: K.idempotency(accountId, scope, key), ConsistentRead: true }));
  if (!out.Item || (out.Item.expires_at as number) <= Math.floor(now.getTime() / 1000)) return null;
  return { job_id: out.Item.job_id as string, body_hash: out.Item.body_hash as string };
}

/**
 * The writes that record a new job (and its Idempotency-Key), to ride in the caller's transaction (the
 * credit reservation). Each is conditioned on not existing yet, so a concurrent twin loses cleanly.
 */
export function newJobWrites(job: Job, idempotency?: { scope: string; key: string; bodyHash: string }): TransactItem[] {
  const table = tableName('jobs');
  const created = new Date(job.created_at);
  return [
    // Due within the dispatch grace: if the message that runs it is lost, the sweeper sends it again.
    {
      Put: {
        TableName: table,
        Item: { ...K.job(job.id), ...job, ...K.jobByAccount(job.account_id, job.id), ...dueFields(K.job(job.id), after(created, DEADLINES.DISPATCH_GRACE_MS)) },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    ...(idempotency
      ? [
          {
            Put: {
              TableName: table,
              Item: { ...K.idempotency(job.account_id, idempotency.scope, idempotency.key), job_id: job.id, body_hash: idempotency.bodyHash, created_at: job.created_at, expires_at: expiresAt('idempotency_record', created) },
              // A key whose record has expired (but not yet been removed by TTL) may be used afresh.
              ConditionExpression: 'attribute_not_exists(pk) OR expires_at <= :now',
              ExpressionAttributeValues: { ':now': Math.floor(created.getTime() / 1000) },
            },
          },
        ]
      : []),
  ];
}

/** Jobs not yet finished (local restart resume; a full scan is fine for the one-machine twin's sizes). */
export async function scanUnfinishedOrUndelivered(): Promise<Job[]> {
  return scanAll<Job>({
    TableName: tableName('jobs'),
    FilterExpression: 'begins_with(pk, :p) AND (#s IN (:pending, :running) OR webhook_status = :queued)',
    ExpressionAttributeNames: { '#s': 'status' },
    ExpressionAttributeValues: { ':p': K.jobPrefix, ':pending': 'pending', ':running': 'running', ':queued': 'queued' },
    ConsistentRead: true,
  });
}
