import net from 'node:net';
import type { LocalStack } from '../../shared/local/stack.js';
import { Client, newTenant, startTestStack } from '../support/local.js';
import { drainQueue } from '../support/probes.js';
import { getJob } from '../../shared/jobs/jobs.repository.js';
import { runPhoneEnrichJob } from '../../shared/enrichment/phone-job.js';
import { deliverJobEvent } from '../../shared/jobs/job-webhooks.js';
import { DELIVERY_ERROR_CLASSES } from '../../shared/webhooks/delivery-errors.js';
import type { Scheduler } from '../../shared/adapters/scheduler.js';

/**
 * The webhook port rule at submission, and what a failed delivery leaves in the stored and served log:
 * an error class, never the socket's message with the address and port it tried (the log must not work
 * as a port scanner). Workers do not run: the test makes the attempt itself.
 */
let stack: LocalStack;
let admin: Client;
beforeAll(async () => {
  // hooks.public.test stands for a public host: it "resolves" through the local static table only.
  stack = await startTestStack({ workers: false, throttleMultiplier: 100, env: { WEBHOOK_HOSTS: JSON.stringify({ 'hooks.public.test': ['93.184.216.34'] }) } });
  admin = new Client(stack);
});
afterAll(async () => {
  await stack?.stop();
});

const noScheduler: Scheduler = { scheduleAt: async () => undefined, cancel: async () => undefined };

/** A loopback port nothing listens on (it was free a moment ago). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const phoneBody = (webhook_url: string) => ({ email: `nobody-${Math.random().toString(36).slice(2)}@nowhere.test`, webhook_url });

test('a webhook_url naming a port other than 443 or 8443 is a 400 on webhook_url; loopback in local mode may name any port', async () => {
  const t = await newTenant(stack, { credits: 2000 }, { webhookSecret: true });
  for (const url of ['https://hooks.public.test:8080/hook', 'https://hooks.public.test:22/hook', 'https://93.184.216.34:8080/hook']) {
    const r = await t.client.api('POST', 'enrich/phone/', phoneBody(url));
    expect([url, r.status]).toEqual([url, 400]);
    expect(r.body.error.code).toBe('invalid_request');
    expect(r.body.error.details).toEqual([{ path: 'webhook_url', message: 'webhook_url port must be 443 or 8443' }]);
  }
  for (const url of ['https://hooks.public.test/hook', 'https://hooks.public.test:443/hook', 'https://hooks.public.test:8443/hook', 'http://127.0.0.1:8080/hook', 'http://localhost:22/hook']) {
    const r = await t.client.api('POST', 'enrich/phone/', phoneBody(url));
    expect([url, r.status]).toEqual([url, 202]);
  }
});

test('a refused delivery is stored and served as the class `refused`, with no address or port in the log', async () => {
  const t = await newTenant(stack, { credits: 200 }, { webhookSecret: true });
  const port = await closedPort();
  const accepted = await t.client.api('POST', 'enrich/phone/', phoneBody(`http://127.0.0.1:${port}/hook`));
  expect(accepted.status).toBe(202);
  await drainQueue(stack, 'search');
  await runPhoneEnrichJob(accepted.body.id, null);
  await drainQueue(stack, 'webhooks');
  await deliverJobEvent(accepted.body.id, 1, { scheduler: noScheduler });

  const stored = (await getJob(accepted.body.id))!.webhook_attempts!;
  expect(stored).toHaveLength(1);
  expect(stored[0]).toMatchObject({ attempt: 1, status: null, error: 'refused' });

  const served = await admin.console('GET', `accounts/${t.accountId}/jobs/${accepted.body.id}/webhook-deliveries/`);
  expect(served.status).toBe(200);
  expect(served.body.attempts.map((a: { error: string }) => a.error)).toEqual(['refused']);
  for (const text of [JSON.stringify(stored), JSON.stringify(served.body)]) {
    expect(text).not.toMatch(new RegExp(`[: ]${port}\\b`)); // the port as a socket message writes it
    expect(text).not.toMatch(/127\.0\.0\.1|ECONN|connect /);
  }
});

test('a target the local stack may not contact is logged as `blocked_address`', async () => {
  const t = await newTenant(stack, { credits: 200 }, { webhookSecret: true });
  const accepted = await t.client.api('POST', 'enrich/phone/', phoneBody('https://hooks.public.test:8443/hook'));
  expect(accepted.status).toBe(202);
  await drainQueue(stack, 'search');
  await runPhoneEnrichJob(accepted.body.id, null);
  await drainQueue(stack, 'webhooks');
  await deliverJobEvent(accepted.body.id, 1, { scheduler: noScheduler });
  const served = await admin.console('GET', `accounts/${t.accountId}/jobs/${accepted.body.id}/webhook-deliveries/`);
  expect(served.body.attempts).toEqual([expect.objectContaining({ attempt: 1, status: null, error: 'blocked_address' })]);
  expect(JSON.stringify(served.body)).not.toMatch(/93\.184|:8443\b|loopback/);
  for (const a of served.body.attempts) expect(DELIVERY_ERROR_CLASSES).toContain(a.error);
});
