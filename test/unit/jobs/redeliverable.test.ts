import { WEBHOOK_LOG_MAX_ATTEMPTS, assertRedeliverable } from '../../../shared/jobs/account-jobs.js';
import { ConflictError } from '../../../shared/core/errors.js';
import type { Job } from '../../../shared/jobs/model.js';

const finished: Job = {
  id: 'job_1',
  account_id: 'acc_1',
  key_id: 'key_1',
  tier: 'people_search',
  status: 'completed',
  created_at: '2026-11-23T10:00:00.000Z',
  updated_at: '2026-11-23T10:00:05.000Z',
  completed_at: '2026-11-23T10:00:05.000Z',
  leads_returned: 1,
  result: { leads: [] },
  error: null,
  request: { query: 'cto in berlin', webhook_url: 'http://127.0.0.1:9/hook' },
  charge_id: 'ch_1',
  event_type: 'people_search.completed',
  webhook_status: 'delivered',
};

const refusal = (job: Job) => {
  try {
    assertRedeliverable(job);
  } catch (e) {
    return e instanceof ConflictError ? e.message : `not a conflict: ${String(e)}`;
  }
  return null;
};

describe('a job event can be redelivered', () => {
  test('once delivered or failed, when the job has finished and has a webhook', () => {
    expect(refusal(finished)).toBeNull();
    expect(refusal({ ...finished, status: 'failed', webhook_status: 'failed' })).toBeNull();
  });

  test('not without a webhook (409)', () => {
    expect(refusal({ ...finished, request: { query: 'cto in berlin' } })).toBe('This job has no webhook.');
    expect(refusal({ ...finished, event_type: undefined })).toBe('This job has no webhook.');
  });

  test('not before it has finished (409)', () => {
    expect(refusal({ ...finished, status: 'running', completed_at: null, webhook_status: undefined })).toBe('This job has not finished yet.');
  });

  test('not while a delivery is queued (409)', () => {
    expect(refusal({ ...finished, webhook_status: 'queued' })).toBe('A delivery of this job is already queued.');
  });

  test('not once its delivery log holds WEBHOOK_LOG_MAX_ATTEMPTS attempts (409): the log on the job item stays bounded', () => {
    const attempt = { attempt: 1, at: '2026-11-23T10:00:06.000Z', status: 500, error: 'http_5xx', duration_ms: 12, next_retry_at: null };
    const attempts = (n: number) => Array.from({ length: n }, (_, i) => ({ ...attempt, attempt: i + 1 }));
    expect(refusal({ ...finished, webhook_attempts: attempts(WEBHOOK_LOG_MAX_ATTEMPTS - 1) })).toBeNull();
    expect(refusal({ ...finished, webhook_attempts: attempts(WEBHOOK_LOG_MAX_ATTEMPTS) })).toMatch(/sent 50 times/);
  });
});
