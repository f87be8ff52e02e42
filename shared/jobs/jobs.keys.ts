/**
 * Every key of the jobs table, and nothing else builds one. Only repositories import this.
 *   JOB#<id> / JOB                                   a job (gsi1: ACCOUNT#<account> / JOB#<id>)
 *   IDEM#<account>#<tier>#<Idempotency-Key> / IDEM   an idempotency record → the job it created
 */
export const jobsKeys = {
  job: (jobId: string) => ({ pk: `JOB#${jobId}`, sk: 'JOB' }),
  jobPrefix: 'JOB#',
  jobByAccount: (accountId: string, jobId: string) => ({ gsi1pk: `ACCOUNT#${accountId}`, gsi1sk: `JOB#${jobId}` }),
  idempotency: (accountId: string, scope: string, key: string) => ({ pk: `IDEM#${accountId}#${scope}#${key}`, sk: 'IDEM' }),
};
