import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServices } from '../../shared/local/services.js';
import { Client, ROOT, newTenant, startTestStack } from '../support/local.js';

test('work that was queued when the local stack stopped is picked up after a restart', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'restart-'));
  const directory = { file: join(dataDir, 'directory.jsonl'), people: 300, seed: 5 };

  // First life: accept a search and an email, but stop before any worker runs.
  let stack = await startTestStack({ dataDir, workers: false, throttleMultiplier: 100 });
  await startServices({ root: ROOT, stack, dataDir, directory });
  const t = await newTenant(stack, {}, { webhookSecret: true, sender: { email: 'rep@seller.test', type: 'google' } });
  const job = await t.client.api('POST', 'search/', { query: 'engineers', max_results: 25, webhook_url: 'http://127.0.0.1:9/hook' });
  const email = await t.client.api('POST', 'emails/', { to: { email: 'x@prospect.test', first_name: 'Xu' }, instructions: 'Introduce our product and ask for a call.' });
  expect([job.status, email.status]).toEqual([202, 202]);
  await stack.stop();

  // Second life: same data directory, workers on.
  stack = await startTestStack({ dataDir, throttleMultiplier: 100 });
  try {
    await startServices({ root: ROOT, stack, dataDir, directory });
    const client = new Client(stack, t.apiKey);
    expect((await new Client(stack).console('POST', 'dev/settle/')).status).toBe(200);
    expect((await client.api('GET', `search/${job.body.id}/`)).body.status).toBe('completed');
    expect((await client.api('GET', `emails/${email.body.id}/`)).body.status).toBe('pending_review');
  } finally {
    await stack.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  // Two full starts of the stack (two JVMs, a directory generated and imported): allow for a loaded machine.
}, 180_000);

test('a gated stack answers 503 on the public API and readiness until it is ready', async () => {
  const stack = await startTestStack({ gated: true, workers: false });
  try {
    const c = new Client(stack);
    const health = await c.call('GET', `http://localhost:${stack.port}/healthz`);
    expect([health.status, health.body]).toEqual([503, { status: 'starting' }]);
    const api = await c.api('GET', 'email/accounts/');
    expect([api.status, api.body]).toEqual([503, { message: 'Service Unavailable' }]);
    expect((await c.console('POST', 'accounts/', { name: 'during start-up' })).status).toBe(201); // the console works
    stack.setReady();
    expect((await c.call('GET', `http://localhost:${stack.port}/healthz`)).status).toBe(200);
    expect((await c.api('GET', 'email/accounts/')).status).toBe(403); // now the gateway's own answer
  } finally {
    await stack.stop();
  }
});
