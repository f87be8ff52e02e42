import { createHash } from 'node:crypto';
import { serviceClock, type Clock } from '../core/clock.js';
import { newId } from '../core/ids.js';
import { ConflictError, ValidationError } from '../core/errors.js';
import { ExtraItemConditionFailed, reserveWith } from '../accounts/ledger.repository.js';
import { sendMessage } from '../adapters/queue.js';
import { validateWebhookUrl } from '../adapters/web-target.js';
import { webhookTargetPolicy } from '../adapters/webhook-targets.js';
import { logger } from '../core/logger.js';
import { messages, type SearchJobKind } from '../catalog/messages.js';
import { acceptanceView, newJobEnvelope, type Job } from './model.js';
import { getIdempotencyRecord, getJob, newJobWrites } from './jobs.repository.js';

/**
 * Accept an asynchronous job (people search, phone enrichment…).
 *
 * Input: the caller, the job's tier, its validated request, the reservation, an optional Idempotency-Key.
 * Output: the acceptance body `{id, status, created_at}` (a replay returns the existing job's current state).
 *
 * 1. A known Idempotency-Key with the same body is a replay; with another body, 409.
 * 2. A valid public `webhook_url` (400).
 * 3. One DynamoDB transaction: reserve the credits (402 when they don't cover it) on the condition that the
 *    account has an active webhook signing secret (409), write the job and the idempotency key.
 * 4. One SQS message to the worker. The job was written due within the dispatch grace (DEADLINES), so if
 *    the message cannot be sent, or is lost, the sweeper sends it again: the acceptance stands either way.
 */
export interface AcceptJobInput {
  accountId: string;
  keyId: string;
  /** The job's tier, which is also the kind of the search-queue message that runs it. */
  tier: SearchJobKind;
  operation: string;
  request: Record<string, unknown> & { webhook_url: string };
  reserve: number;
  idempotencyKey?: string;
  extra?: Partial<Job>;
}

export const IDEMPOTENCY_KEY = /^[A-Za-z0-9._:-]{1,128}$/;

export function parseIdempotencyKey(headers: Record<string, string>): string | undefined {
  const key = headers['idempotency-key'];
  if (key === undefined) return undefined;
  if (!IDEMPOTENCY_KEY.test(key)) {
    throw new ValidationError('Idempotency-Key must be 1 to 128 characters of letters, digits, period, underscore, colon or hyphen.', [
      { path: 'Idempotency-Key', message: 'invalid format' },
    ]);
  }
  return key;
}

/** JSON with every object's keys sorted, at every depth, so equal bodies hash equally whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

function bodyHash(request: Record<string, unknown>): string {
  return createHash('sha256').update(canonicalJson(request)).digest('hex');
}

async function replay(input: AcceptJobInput, hash: string, now: Date): Promise<ReturnType<typeof acceptanceView> | null> {
  if (!input.idempotencyKey) return null;
  const record = await getIdempotencyRecord(input.accountId, input.tier, input.idempotencyKey, now);
  if (!record) return null;
  if (record.body_hash !== hash) throw new ConflictError('Idempotency-Key was already used with a different request body.');
  const job = await getJob(record.job_id);
  if (!job) return null;
  return acceptanceView(job);
}

export async function acceptJob(input: AcceptJobInput, clock: Clock = serviceClock): Promise<{ replayed: boolean; body: ReturnType<typeof acceptanceView> }> {
  const hash = bodyHash(input.request);
  const existing = await replay(input, hash, clock.now());
  if (existing) return { replayed: true, body: existing };

  const targets = webhookTargetPolicy();
  await validateWebhookUrl(input.request.webhook_url, { resolver: targets.resolver, allowLoopback: targets.allowLoopback });

  const now = clock.now();
  const id = newId('dj', now.getTime());
  const chargeId = newId('chg', now.getTime());
  const job: Job = {
    id,
    account_id: input.accountId,
    key_id: input.keyId,
    tier: input.tier,
    ...newJobEnvelope(now),
    request: input.request,
    charge_id: chargeId,
    ...input.extra,
  };
  const extraItems = newJobWrites(job, input.idempotencyKey ? { scope: input.tier, key: input.idempotencyKey, bodyHash: hash } : undefined);
  try {
    // The signing-secret precondition rides on the reservation's own condition: one transaction in all.
    await reserveWith({ accountId: input.accountId, operation: input.operation, reference: id, amount: input.reserve, chargeId, requireWebhookSecret: true }, extraItems, clock);
  } catch (e) {
    if (e instanceof ExtraItemConditionFailed && input.idempotencyKey) {
      // A concurrent request with the same key won the race: answer as its replay.
      const again = await replay(input, hash, clock.now());
      if (again) return { replayed: true, body: again };
    }
    throw e;
  }

  try {
    await sendMessage('search', messages.job(input.tier, id));
  } catch (e) {
    // The job is recorded and due within the dispatch grace: the sweeper sends its message. The caller's
    // 202 stands; nothing is lost and nothing is charged twice.
    logger.error('job dispatch failed; the sweeper will dispatch it', { jobId: id, error: e as Error });
  }
  return { replayed: false, body: acceptanceView(job) };
}
