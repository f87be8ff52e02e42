import type { RouteDef } from '../../shared/catalog/routes.js';

/** SPEC.md and DESIGN.md routes not in the route table yet, with the bindings they will most likely need. */
export const PLANNED: RouteDef[] = (
  [
    // The web app's outreach review queue (issue 18, part B).
    ['GET', '/api/app/v1/emails/', 'functions/app/list-emails.ts'],
    ['GET', '/api/app/v1/emails/{email_id}/', 'functions/app/get-email.ts'],
    ['PATCH', '/api/app/v1/emails/{email_id}/', 'functions/app/edit-email.ts'],
    ['POST', '/api/app/v1/emails/{email_id}/approve/', 'functions/app/approve-email.ts'],
    ['POST', '/api/app/v1/emails/{email_id}/cancel/', 'functions/app/cancel-email.ts'],
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
