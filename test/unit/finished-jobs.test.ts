import { FinishedJobs } from '../../shared/jobs/finished-jobs.js';
import type { Job } from '../../shared/jobs/model.js';

const job = (id: string, status: Job['status']) => ({ id, status }) as Job;

describe('finished jobs held for polling', () => {
  test('keeps only finished jobs, at most its capacity, least recently used evicted first', () => {
    const held = new FinishedJobs(2);
    held.offer(job('pending', 'pending'));
    held.offer(job('running', 'running'));
    expect(held.size).toBe(0);
    held.offer(job('a', 'completed'));
    held.offer(job('b', 'failed'));
    expect(held.get('a')?.status).toBe('completed');
    held.offer(job('c', 'completed'));
    expect(held.has('b')).toBe(false);
    expect(held.has('a')).toBe(true);
    expect(held.has('c')).toBe(true);
    expect(held.size).toBe(2);
  });
});
