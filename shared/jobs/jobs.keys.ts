/**
 * Every key of the jobs table, and nothing else builds one. Only repositories import this.
 *   JOB#<id> / JOB                                   a job (gsi1: ACCOUNT#<account> / JOB#<id>)
 *   IDEM#<account>#<tier>#<Idempotency-Key> / IDEM   an idempotency record → the job it created
 *   CONC#KEY#<key id> / CONC, CONC#ACCOUNT#<account> / CONC   agentic jobs pending or running (`active`)
 */
export const jobsKeys = {
  job: (jobId: string) => ({ pk: `JOB#${jobId}`, sk: 'JOB' }),
  jobPrefix: 'JOB#',
  /** The job id of a job item's key, or null for any other item. */
  jobIdOf: (key: { pk: string; sk: string }) => (key.pk.startsWith('JOB#') && key.sk === 'JOB' ? key.pk.slice(4) : null),
  jobByAccount: (accountId: string, jobId: string) => ({ gsi1pk: `ACCOUNT#${accountId}`, gsi1sk: `JOB#${jobId}` }),
  idempotency: (accountId: string, scope: string, key: string) => ({ pk: `IDEM#${accountId}#${scope}#${key}`, sk: 'IDEM' }),
  concurrency: (scope: 'KEY' | 'ACCOUNT', id: string) => ({ pk: `CONC#${scope}#${id}`, sk: 'CONC' }),
};
