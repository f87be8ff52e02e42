import { createHash, randomUUID } from 'node:crypto';
import type { LocalStack } from '../../shared/local/stack.js';
import { Client, newTenant, startTestStack, reply, type RequestBody } from '../support/local.js';
import { ROUTES } from '../../shared/catalog/routes.js';

/**
 * Test emails as a pilot client sees them over HTTP, with the gateway's real throttles (multiplier 1) and
 * the workers running: the catch-all throttle per key, and one test travelling from POST to the dev mailbox.
 */
let stack: LocalStack;
let admin: Client;
beforeAll(async () => {
  // A pilot account per test: more than production's three.
  stack = await startTestStack({ env: { PILOT_ACCOUNT_LIMIT: '10' } });
  admin = new Client(stack);
});
afterAll(async () => {
  await stack?.stop();
});

// Each pilot calls from a loopback address of its own, as users on different networks do: the gateway counts
// the test-email paths per source address too (12 a minute, "Per-source limits at the edge").
let nextSource = 10;

async function pilotWithKeys(keys: number, account: Record<string, unknown> = {}) {
  const source = `127.0.0.${nextSource++}`;
  const t = await newTenant(stack, { pilot: true, ...account });
  const sender = await admin.console('POST', `accounts/${t.accountId}/sending-accounts/`, { email: `rep-${Date.now()}@seller.test`, type: 'google' });
  const clients = [new Client(stack, t.client.apiKey, source)];
  for (let i = 1; i < keys; i++) clients.push(new Client(stack, (await admin.console('POST', `accounts/${t.accountId}/api-keys/`)).body.key, source));
  return { ...t, client: clients[0]!, clients, sender: sender.body as { id: string; email: string } };
}

const post = (c: Client, b: RequestBody<'post_test_emails'>) => reply(c.typed.POST('/api/public/v1/test-emails/', { params: { header: { 'Idempotency-Key': randomUUID() } }, body: b }));

test('the catch-all throttle: 1 per minute with a burst of 2, per key', async () => {
  const p = await pilotWithKeys(2);
  const b = { from_account: p.sender.id, subject: 'Throttle', body_plain: 'Hi' };
  const answers = [await post(p.clients[0]!, b), await post(p.clients[0]!, b), await post(p.clients[0]!, b)];
  expect(answers.map((a) => a.status)).toEqual([202, 202, 429]);
  expect(answers[2]!.body).toEqual({ message: 'Too Many Requests' });
  // The handler counts per key (API Gateway cannot for keys outside a usage plan) and says when to retry.
  expect(Number(answers[2]!.headers.get('retry-after'))).toBeGreaterThanOrEqual(55);
  expect((await post(p.clients[1]!, b)).status).toBe(202);
  // A caller without a key is still told 401 by the handler, not throttled into silence.
  const anonymous = await post(new Client(stack), b);
  expect([anonymous.status, anonymous.body.error?.code]).toEqual([401, 'unauthorized']);
});

test('the catch-all is one bucket per key for POST and GET together (docs/decisions.md#limits)', async () => {
  const p = await pilotWithKeys(2);
  const b = { from_account: p.sender.id, subject: 'One bucket', body_plain: 'Hi' };
  const get = (c: Client, id: string) => reply(c.typed.GET('/api/public/v1/test-emails/{id}/', { params: { path: { id } } }));
  // Two POSTs empty the key's bucket: its GET is refused too.
  const created = [await post(p.clients[0]!, b), await post(p.clients[0]!, b)];
  expect(created.map((a) => a.status)).toEqual([202, 202]);
  const refused = await get(p.clients[0]!, created[0]!.body.id);
  expect([refused.status, refused.body]).toEqual([429, { message: 'Too Many Requests' }]);
  expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(55);
  // Two GETs empty the other key's bucket: its POST is refused too.
  expect([(await get(p.clients[1]!, created[0]!.body.id)).status, (await get(p.clients[1]!, created[1]!.body.id)).status]).toEqual([200, 200]);
  expect((await post(p.clients[1]!, b)).status).toBe(429);
});

test('a test with signature and attachments goes from POST to the dev mailbox once, and GET shows it sent', async () => {
  const p = await pilotWithKeys(2);
  await admin.console('PATCH', `accounts/${p.accountId}/`, { attachments_enabled: true });
  await admin.console('PATCH', `sending-accounts/${p.sender.id}/`, { signature_html: '<p>Grace Hopper<br>Compilers Inc.</p>' });
  const csv = Buffer.from('name,title\nGrace,Rear Admiral\n');
  const created = await post(p.clients[0]!, {
    from_account: p.sender.id,
    subject: 'Finished copy for review',
    body_html: '<p>Hello team,</p><p>here is the <b>final</b> copy.</p>',
    attachments: [{ filename: 'people.csv', content_type: 'text/csv', content_base64: csv.toString('base64') }],
  });
  expect([created.status, created.body.status]).toEqual([202, 'queued']);
  expect((await admin.console('POST', 'dev/settle/')).body).toEqual({ idle: true });

  const got = await reply(p.clients[1]!.typed.GET('/api/public/v1/test-emails/{id}/', { params: { path: { id: created.body.id } } }));
  expect(got.body).toMatchObject({ id: created.body.id, status: 'sent', error: null, attachments: [{ filename: 'people.csv', content_type: 'text/csv', size_bytes: csv.length }] });
  const messages = ((await admin.console('GET', 'dev/mailbox/')).body.messages as any[]).filter((m) => m.subject === 'Finished copy for review');
  expect(messages).toHaveLength(1);
  const [m] = messages;
  expect(m).toMatchObject({ from: p.sender.email, to: [created.body.to], message_id: got.body.internet_message_id });
  expect(m.html).toMatch(/final[\s\S]*Grace Hopper[\s\S]*outreach pilot/);
  expect(m.text).toMatch(/final[\s\S]*Grace Hopper[\s\S]*outreach pilot/);
  expect(m.attachments).toEqual([{ filename: 'people.csv', content_type: 'text/csv', size_bytes: csv.length, sha256: createHash('sha256').update(csv).digest('hex') }]);
});

test('the gateway holds every caller together to the stage ceiling; the handler holds each key to 1 per minute burst 2', async () => {
  const route = ROUTES.find((r) => r.method === 'GET' && r.path.endsWith('test-emails/{id}/'))!;
  const ceiling = route.edgeThrottle!.burst;
  const p = await pilotWithKeys(1);
  const t0 = Date.now();
  // Every request from a source of its own, so the per-source rule (12 a minute) never speaks: the stage does.
  const answers = await Promise.all(Array.from({ length: ceiling + 10 }, (_, i) => reply(new Client(stack, p.client.apiKey, `127.0.1.${i + 1}`).typed.GET('/api/public/v1/test-emails/{id}/', { params: { path: { id: randomUUID() } } }))));
  const refilled = Math.ceil(((Date.now() - t0) / 60_000) * route.edgeThrottle!.perMinute);
  const fromHandler = answers.filter((a) => a.status === 429 && a.headers.get('retry-after'));
  const fromGateway = answers.filter((a) => a.status === 429 && !a.headers.get('retry-after'));
  // Two reach the use case (an unknown id: 404); the others the stage let through are refused per key by the handler.
  expect(answers.filter((a) => a.status === 404)).toHaveLength(2);
  expect(2 + fromHandler.length + fromGateway.length).toBe(answers.length);
  expect(2 + fromHandler.length).toBeLessThanOrEqual(ceiling + refilled);
  expect(fromGateway.length).toBeGreaterThanOrEqual(10 - refilled);
  for (const a of [...fromHandler, ...fromGateway]) expect(a.body).toEqual({ message: 'Too Many Requests' });
});
