import type { RouteDef } from '../../shared/catalog/routes.js';

/** SPEC.md and DESIGN.md routes not in the route table yet, with the bindings they will most likely need. */
export const PLANNED: RouteDef[] = (
  [
    ['GET', '/api/public/v1/openapi.json', 'functions/openapi/get.ts'],
  ] as const
).map(([method, path, module]) => ({
  method,
  path,
  module,
  auth: path.startsWith('/api/console/') ? 'admin' : 'api_key',
  throttle: { perMinute: 60, burst: 10 },
  // The widest route bindings in use today: a projection that errs on the side of more statements.
  bindings: { tables: { accounts: 'readwrite', jobs: 'readwrite', outreach: 'readwrite' }, queues: { search: 'send' }, scheduler: true },
}));
