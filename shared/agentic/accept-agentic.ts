import { createHash } from 'node:crypto';
import { serviceClock, type Clock } from '../core/clock.js';
import { newId } from '../core/ids.js';
import { AppError, ConflictError } from '../core/errors.js';
import { optionalEnv } from '../core/env.js';
import { logger } from '../core/logger.js';
import { ExtraItemConditionFailed, reserveWith } from '../accounts/ledger.repository.js';
import { sendMessage } from '../adapters/queue.js';
import { webhookTargetPolicy } from '../adapters/webhook-targets.js';
import { messages } from '../catalog/messages.js';
import { canonicalJson } from '../jobs/accept-job.js';
import { getIdempotencyRecord, getJob, newJobWrites } from '../jobs/jobs.repository.js';
import { acceptanceView, newJobEnvelope } from '../jobs/model.js';
import { validateWebhookUrl } from '../adapters/web-target.js';
import { FAILURE_MESSAGES } from '../webhooks/events.js';
import { endAgenticJob, takeSlotWrites } from './agentic.repository.js';
import { FIRST_CHECKPOINT, isAgenticJob, type AgenticJob, type AgenticSearchRequest } from './model.js';

/**
 * Accept an agentic search (docs/decisions.md#agentic-search).
 *
 * Input: the caller (account and API key), the validated body, an optional Idempotency-Key.
 * Output: the acceptance body `{id, status, created_at}`.
 *
 * 1. The account is enrolled (the console flag `agentic_search`): the route checks that, with a 404, before
 *    the body is read (functions/agentic-search/create.ts), so an invalid body of an account not enrolled is
 *    a 404 too and leaves no audit record.
 * 2. An Idempotency-Key is scoped to the API key: the same body replays the job (no reservation, no
 *    dispatch, no concurrency slot); a changed body, `webhook_url` included, is a 409.
 * 3. A valid public `webhook_url` (400).
 * 4. One transaction: `max_credits` reserved (402; 409 without an active signing secret), the job, the
 *    key, and a slot of the API key (at most 2 pending or running) and of the account (at most 3), each
 *    counted by a conditional write (429 when full).
 * 5. The first step's message. If it cannot be sent the admission is undone in one transaction (job
 *    `failed`, reservation released, slots returned, key removed) and the caller gets a 500.
 */
export const AGENTIC_OPERATION = 'agentic_search';

export class ConcurrencyLimitError extends AppError {
  constructor(scope: 'key' | 'account') {
    super(429, 'rate_limited', scope === 'key' ? 'At most 2 agentic searches may be pending or running per API key.' : 'At most 3 agentic searches may be pending or running per account.');
  }
}

/** docs/decisions.md "500: internal admission or dispatch failure for agentic search; reservation released". */
export class AdmissionFailedError extends AppError {
  constructor() {
    super(500, 'internal_error', 'The agentic search could not be started; nothing was reserved or charged. Retry.', undefined, true);
  }
}

export const DEFAULT_DEADLINE_SECONDS = 1200;
export const deadlineSeconds = () => Number(optionalEnv('AGENTIC_DEADLINE_SECONDS') ?? DEFAULT_DEADLINE_SECONDS);

const idempotencyScope = (keyId: string) => `agentic_search#${keyId}`;

async function replay(accountId: string, keyId: string, key: string, hash: string, now: Date) {
  const record = await getIdempotencyRecord(accountId, idempotencyScope(keyId), key, now);
  if (!record) return null;
  if (record.body_hash !== hash) throw new ConflictError('Idempotency-Key was already used with a different request body.');
  const job = await getJob(record.job_id);
  return job ? acceptanceView(job) : null;
}

export async function acceptAgenticSearch(
  caller: { accountId: string; keyId: string },
  request: AgenticSearchRequest,
  idempotencyKey: string | undefined,
  clock: Clock = serviceClock,
): Promise<{ replayed: boolean; body: ReturnType<typeof acceptanceView> }> {
  const hash = createHash('sha256').update(canonicalJson(request)).digest('hex');
  if (idempotencyKey) {
    const existing = await replay(caller.accountId, caller.keyId, idempotencyKey, hash, clock.now());
    if (existing) return { replayed: true, body: existing };
  }
  const targets = webhookTargetPolicy();
  await validateWebhookUrl(request.webhook_url, { resolver: targets.resolver, allowLoopback: targets.allowLoopback });

  const now = clock.now();
  const id = newId('dj', now.getTime());
  const job: AgenticJob = {
    id,
    account_id: caller.accountId,
    key_id: caller.keyId,
    tier: 'agentic_search',
    ...newJobEnvelope(now),
    request: { ...request },
    charge_id: newId('chg', now.getTime()),
    checkpoint: FIRST_CHECKPOINT,
    deadline_at: new Date(now.getTime() + deadlineSeconds() * 1000).toISOString(),
  };
  const idem = idempotencyKey ? { scope: idempotencyScope(caller.keyId), key: idempotencyKey, bodyHash: hash } : undefined;
  const jobWrites = newJobWrites(job, idem);
  try {
    await reserveWith(
      { accountId: caller.accountId, operation: AGENTIC_OPERATION, reference: id, amount: request.max_credits, chargeId: job.charge_id, requireWebhookSecret: true },
      [...jobWrites, ...takeSlotWrites(job)],
      clock,
    );
  } catch (e) {
    if (!(e instanceof ExtraItemConditionFailed)) throw e;
    if (e.index >= jobWrites.length) throw new ConcurrencyLimitError(e.index === jobWrites.length ? 'key' : 'account');
    // The key's record exists: a concurrent request with the same key won the race.
    const again = idempotencyKey ? await replay(caller.accountId, caller.keyId, idempotencyKey, hash, clock.now()) : null;
    if (again) return { replayed: true, body: again };
    throw e;
  }

  try {
    await sendMessage('search', messages.agenticStep(id, 0));
  } catch (e) {
    logger.error('agentic dispatch failed; undoing the admission', { jobId: id, error: e as Error });
    const stored = await getJob(id);
    if (isAgenticJob(stored)) {
      await endAgenticJob(stored, { status: 'failed', error: { code: 'error', message: FAILURE_MESSAGES.agentic_search.error } }, { step: 0 }, clock.now(), idem);
    }
    throw new AdmissionFailedError();
  }
  return { replayed: false, body: acceptanceView(job) };
}
