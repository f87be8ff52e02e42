import fc from 'fast-check';
import type { LocalStack } from '../../shared/local/stack.js';
import { ROUTES } from '../../shared/catalog/routes.js';
import { newId } from '../../shared/core/ids.js';
import { newTenant, startTestStack, type Client } from '../support/local.js';

let stack: LocalStack;
let tenant: { client: Client; admin: Client; accountId: string; apiKey: string };
beforeAll(async () => {
  stack = await startTestStack({ workers: false, throttleMultiplier: 10_000 });
  tenant = await newTenant(stack, {}, { webhookSecret: true });
});
afterAll(async () => {
  await stack?.stop();
});

/** A well-shaped value for every parameter but the one under test. */
const valid: Record<string, (resource: string) => string> = {
  job_id: () => newId('dj'),
  key_id: () => newId('key'),
  secret_id: () => newId('whsec'),
  ea_id: () => newId('ea'),
  token: () => 'A'.repeat(32),
  id: (r) => (r.includes('/accounts/{id}') ? newId('acct') : newId('em')),
};

const idRoutes = ROUTES.filter((r) => r.path.includes('{'));

/** Any string, sent percent-encoded, or a raw segment with a broken percent-encoding. */
const segment = fc.oneof(
  fc.string({ maxLength: 40 }).map((s) => encodeURIComponent(s)),
  fc.string({ minLength: 1100, maxLength: 3000 }).map((s) => encodeURIComponent(s)),
  fc.constantFrom('%ZZ', '%', '%E0%A4%A', 'a%2', '..', '%2F..%2F'),
);

test('no id-bearing route answers 5xx to any string in its path; a malformed id is 404', async () => {
  for (const route of idRoutes) {
    const names = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
    for (const name of names) {
      await fc.assert(
        fc.asyncProperty(segment, async (bad) => {
          if (bad === '') return;
          const path = route.path.replace(/\{(\w+)\}/g, (_, n: string) => (n === name ? bad : valid[n]!(route.path)));
          // The tenant's own account where an account id is not the parameter under test.
          const concrete = name === 'id' ? path : path.replace(/\/accounts\/acct_[0-9a-z]{26}\//, `/accounts/${tenant.accountId}/`);
          const res = await fetch(`http://localhost:${stack.port}${concrete}`, {
            method: route.method,
            headers: { 'content-type': 'application/json', 'x-api-key': tenant.apiKey, 'x-admin-token': stack.adminToken },
            body: route.method === 'GET' || route.method === 'DELETE' ? undefined : '{}',
          });
          await res.arrayBuffer();
          expect(res.status).toBeLessThan(500);
          // The web app's routes check the Cognito token before anything else, as API Gateway's authorizer does.
          if (route.auth === 'user') expect(res.status).toBe(401);
          else if (res.status !== 403) expect(res.status).toBe(404);
        }),
        { numRuns: 12, seed: 4242 },
      );
    }
  }
}, 240_000);
