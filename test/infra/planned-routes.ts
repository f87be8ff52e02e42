import type { RouteDef } from '../../shared/catalog/routes.js';

/** SPEC.md and DESIGN.md routes not in the route table yet, with the bindings they will most likely need. */
export const PLANNED: RouteDef[] = (
  [
    // The web app's outreach, sequence and search-job pages (issue 18, part B).
    ['GET', '/api/app/v1/sequences/', 'functions/app/list-sequences.ts'],
    ['GET', '/api/app/v1/sequences/{sequence_id}/', 'functions/app/get-sequence.ts'],
    ['GET', '/api/app/v1/sequences/{sequence_id}/replies/', 'functions/app/sequence-replies.ts'],
    ['GET', '/api/app/v1/jobs/', 'functions/app/list-jobs.ts'],
    ['GET', '/api/app/v1/jobs/{job_id}/', 'functions/app/get-job.ts'],
    ['GET', '/api/app/v1/jobs/{job_id}/webhook-deliveries/', 'functions/app/webhook-deliveries.ts'],
    ['POST', '/api/app/v1/jobs/{job_id}/webhook-deliveries/redeliver/', 'functions/app/redeliver-webhook.ts'],
  ] as const
).map(([method, path, module]) => ({
  method,
  path,
  module,
  auth: path.startsWith('/api/app/') ? 'user' : path.startsWith('/api/console/') ? 'admin' : 'api_key',
  throttle: { perMinute: 60, burst: 10 },
  // The widest route bindings in use today: a projection that errs on the side of more statements.
  bindings: { tables: { accounts: 'readwrite', jobs: 'readwrite', outreach: 'readwrite' }, queues: { search: 'send' }, scheduler: true },
}));
