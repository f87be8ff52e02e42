import { servedAttempt } from '../../../shared/jobs/delivery-log.js';

describe('servedAttempt', () => {
  const base = { attempt: 1, at: '2026-11-26T12:00:00.000Z', status: null, duration_ms: 3, next_retry_at: null };

  it('serves a class as stored, and null as null', () => {
    expect(servedAttempt({ ...base, error: 'refused' })).toEqual({ ...base, error: 'refused' });
    expect(servedAttempt({ ...base, status: 503, error: 'http_5xx' })).toEqual({ ...base, status: 503, error: 'http_5xx' });
    expect(servedAttempt({ ...base, status: 204, error: null })).toEqual({ ...base, status: 204, error: null });
  });

  it('serves a socket message stored before errors were classified as `other`', () => {
    for (const old of ['connect ECONNREFUSED 10.0.0.1:8080', 'no response within 15000 ms', 'webhook_url no longer valid: webhook_url must resolve only to public addresses']) {
      expect(servedAttempt({ ...base, error: old })).toEqual({ ...base, error: 'other' });
    }
  });
});
