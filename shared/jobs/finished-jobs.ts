import { TERMINAL, type Job } from './model.js';

/**
 * Finished jobs this process has read, by id, least recently used evicted first. A job's polling view
 * never changes once it has finished (finishing is conditional on `pending`/`running`; later writes touch
 * only its webhook delivery fields), so a poll of a finished job needs only the caller's key record.
 */
export class FinishedJobs {
  private readonly jobs = new Map<string, Job>();
  constructor(private readonly capacity: number) {}

  get(jobId: string): Job | undefined {
    const job = this.jobs.get(jobId);
    if (job) {
      this.jobs.delete(jobId);
      this.jobs.set(jobId, job);
    }
    return job;
  }

  has(jobId: string): boolean {
    return this.jobs.has(jobId);
  }

  /** Keep the job if it has finished; an unfinished job is still changing and is not kept. */
  offer(job: Job): void {
    if (!TERMINAL.includes(job.status)) return;
    this.jobs.delete(job.id);
    this.jobs.set(job.id, job);
    if (this.jobs.size > this.capacity) this.jobs.delete(this.jobs.keys().next().value!);
  }

  get size(): number {
    return this.jobs.size;
  }
}
