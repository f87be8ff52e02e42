import { LruMap } from '../core/lru-map.js';
import { TERMINAL, type Job } from './model.js';

/**
 * Finished jobs this process has read, by id, least recently used evicted first. A job's polling view
 * never changes once it has finished (finishing is conditional on `pending`/`running`; later writes touch
 * only its webhook delivery fields), so a poll of a finished job needs only the caller's key record.
 */
export class FinishedJobs {
  private readonly jobs: LruMap<string, Job>;
  constructor(capacity: number) {
    this.jobs = new LruMap(capacity);
  }

  get(jobId: string): Job | undefined {
    return this.jobs.get(jobId);
  }

  has(jobId: string): boolean {
    return this.jobs.has(jobId);
  }

  /** Keep the job if it has finished; an unfinished job is still changing and is not kept. */
  offer(job: Job): void {
    if (TERMINAL.includes(job.status)) this.jobs.set(job.id, job);
  }

  get size(): number {
    return this.jobs.size;
  }
}
