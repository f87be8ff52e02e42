import type { RouteDef } from '../../shared/catalog/routes.js';

/** SPEC.md and DESIGN.md routes not in the route table yet, with the bindings they will most likely need. */
export const PLANNED: RouteDef[] = (
  [
    ['DELETE', '/api/app/v1/webhook-secrets/{secret_id}/', 'functions/app/revoke-webhook-secret.ts'],
    ['GET', '/api/app/v1/account/', 'functions/app/get-account.ts'],
    ['GET', '/api/app/v1/api-keys/', 'functions/app/list-api-keys.ts'],
    ['POST', '/api/app/v1/api-keys/', 'functions/app/create-api-key.ts'],
    ['DELETE', '/api/app/v1/api-keys/{key_id}/', 'functions/app/revoke-api-key.ts'],
    ['POST', '/api/app/v1/webhook-secrets/', 'functions/app/create-webhook-secret.ts'],
    ['GET', '/api/app/v1/charges/', 'functions/app/list-charges.ts'],
    ['GET', '/api/app/v1/sending-accounts/', 'functions/app/list-sending-accounts.ts'],
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
