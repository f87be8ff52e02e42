import { randomBytes } from 'node:crypto';
import { Agent, request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LocalStack } from '../../shared/local/stack.js';
import { startServices } from '../../shared/local/services.js';
import { SOURCE_RATE_LIMITS } from '../../shared/catalog/routes.js';
import { Client, ROOT, newTenant, startTestStack, reply } from '../support/local.js';

/**
 * The per-source limits at the edge, against the real local gateway at the contract's numbers (multiplier 1).
 * Linux routes all of 127.0.0.0/8 to loopback, so a client socket bound to 127.0.0.2 is another source than
 * one bound to 127.0.0.1, as the gateway sees it (the connection's address; X-Forwarded-For is not trusted).
 */
let stack: LocalStack;
let admin: Client;
const dir = mkdtempSync(join(tmpdir(), 'edge-rate-'));

beforeAll(async () => {
  stack = await startTestStack();
  await startServices({ root: ROOT, stack, dataDir: null, directory: { file: join(dir, 'd.jsonl'), people: 50, seed: 7 } });
  admin = new Client(stack);
}, 120_000);
afterAll(async () => {
  for (const a of agents.values()) a.destroy();
  await stack?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const agents = new Map<string, Agent>();
/** Keep-alive connections bound to one loopback source address. */
const agentOf = (from: string) => {
  let agent = agents.get(from);
  if (!agent) agents.set(from, (agent = new Agent({ keepAlive: true, maxSockets: 8, localAddress: from })));
  return agent;
};

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request from `from` (a 127.0.0.0/8 address), optionally claiming another address in X-Forwarded-For. */
function send(from: string, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  const { hostname, port } = new URL(stack.baseUrl);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, method, path, headers, agent: agentOf(from) }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const junkToken = () => randomBytes(24).toString('base64url');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `workers` loops sending `next()` from `from` until `stop()` says so; every status, in order of answer. */
function flood(from: string, next: () => [string, string, Record<string, string>?, string?], stop: (sent: number) => boolean, workers = 8) {
  const statuses: number[] = [];
  let sent = 0;
  const done = Promise.all(
    Array.from({ length: workers }, async () => {
      while (!stop(sent)) {
        sent++;
        const [method, path, headers, body] = next();
        statuses.push((await send(from, method, path, headers, body)).status);
      }
    }),
  );
  return { statuses, done };
}

/** A real email sent to a lead, and the token of its one-click unsubscribe link (List-Unsubscribe). */
async function sentEmailToken(): Promise<string> {
  const t = await newTenant(stack);
  await admin.console('POST', `accounts/${t.accountId}/sending-accounts/`, { email: `rep.${Date.now()}@seller.test`, type: 'google' });
  const to = `lead.${Date.now()}@prospect.test`;
  const created = await reply(
    t.client.typed.POST('/api/public/v1/emails/', {
      body: { to: { email: to, first_name: 'Jane', last_name: 'Doe', company_name: 'Acme Robotics' }, instructions: 'Introduce our warehouse automation platform and ask for a 15-minute call.' },
    }),
  );
  expect(created.status).toBe(202);
  expect((await admin.console('POST', 'dev/settle/')).body).toEqual({ idle: true });
  expect((await reply(t.client.typed.POST('/api/public/v1/emails/{id}/approve/', { params: { path: { id: created.body.id } }, body: { schedule: 'now' } }))).status).toBe(200);
  expect((await admin.console('POST', 'dev/settle/')).body).toEqual({ idle: true });
  const mail = ((await admin.console('GET', 'dev/mailbox/')).body.messages as any[]).find((m) => m.to.includes(to));
  return /\/u\/([A-Za-z0-9_-]{32})\//.exec(mail.headers['list-unsubscribe'] as string)![1]!;
}

/** RFC 8058: what a mail client POSTs to the List-Unsubscribe URL. */
const ONE_CLICK = { 'content-type': 'application/x-www-form-urlencoded' };
const ONE_CLICK_BODY = 'List-Unsubscribe=One-Click';

test('one-click unsubscribes are never refused by a flood: a source sending far past the page’s limit still reaches the handler, and its real one-click is recorded', async () => {
  const pageLimit = SOURCE_RATE_LIMITS.unsubscribe.limit;
  const token = await sentEmailToken();

  // One-click POSTs with made-up tokens from 127.0.0.2, well past the page's per-source limit: each reaches the
  // handler (an unknown token: 404), none is refused at the edge.
  const junk = flood('127.0.0.2', () => ['POST', `/api/public/v1/u/${junkToken()}/`, { ...ONE_CLICK, 'x-forwarded-for': '203.0.113.9' }, ONE_CLICK_BODY], (sent) => sent >= pageLimit + 200);
  await junk.done;
  expect(junk.statuses.filter((s) => s !== 404)).toEqual([]);
  // The flooding source's own real one-click, and another source's, are recorded and confirmed.
  const mine = await send('127.0.0.2', 'POST', `/api/public/v1/u/${token}/`, ONE_CLICK, ONE_CLICK_BODY);
  expect([mine.status, JSON.parse(mine.body)]).toEqual([200, { unsubscribed: true }]);
  const page = await send('127.0.0.1', 'POST', `/api/public/v1/u/${token}/`, { 'content-type': 'application/x-www-form-urlencoded' }, 'confirm=yes');
  expect([page.status, page.body]).toEqual([200, expect.stringContaining('You have been unsubscribed')]);
}, 120_000);

test('the unsubscribe page (GET) and the OAuth callback are refused per source at their limits; WAF’s answer ignores X-Forwarded-For', async () => {
  const page = flood('127.0.0.4', () => ['GET', `/api/public/v1/u/${junkToken()}/`, { 'x-forwarded-for': '203.0.113.9' }], (sent) => sent >= SOURCE_RATE_LIMITS.unsubscribe.limit + 60);
  await page.done;
  expect(page.statuses.filter((s) => s === 404).length).toBeLessThanOrEqual(SOURCE_RATE_LIMITS.unsubscribe.limit);
  expect(page.statuses.slice(-50)).toEqual(Array(50).fill(429));
  const refused = await send('127.0.0.4', 'GET', `/api/public/v1/u/${junkToken()}/`, { 'x-forwarded-for': '198.51.100.7' });
  expect([refused.status, JSON.parse(refused.body), refused.headers['x-request-id']]).toEqual([429, { message: 'Too Many Requests' }, undefined]);
  // The same source's other routes count apart: the open pixel still answers it.
  expect((await send('127.0.0.4', 'GET', `/api/public/v1/o/${junkToken()}/`)).status).not.toBe(429);

  // The callback without its trailing slash counts as the callback at the edge (WAF sees the path as sent) and
  // is then the gateway's 403, so neither the callback's own warnings nor its stage budget (120/min for every
  // caller) come into it. WAF's refusal is the one without an X-Request-Id; another source is not refused.
  const oauthLimit = SOURCE_RATE_LIMITS.oauthCallback.limit;
  const callback = () => `/oauth/callback?state=${junkToken()}&code=x`;
  const answers: Answer[] = [];
  for (let i = 0; i < oauthLimit + 10; i++) answers.push(await send('127.0.0.5', 'GET', callback()));
  const byWaf = answers.map((a) => a.status === 429 && a.headers['x-request-id'] === undefined);
  expect(byWaf.slice(0, oauthLimit)).toEqual(Array(oauthLimit).fill(false));
  expect(byWaf.slice(oauthLimit)).toEqual(Array(10).fill(true));
  const other = await send('127.0.0.1', 'GET', callback());
  expect([other.status, other.headers['x-request-id']]).toEqual([403, expect.any(String)]);
}, 120_000);

test('API-key routes: one source’s flood of made-up keys is refused at its ceiling before the authorizer; other sources’ keys still reach it', async () => {
  const limit = SOURCE_RATE_LIMITS.apiKey.limit;
  const t = await newTenant(stack);
  const path = '/api/public/v1/email/accounts/';

  // A key never issued: the authorizer's Deny (cached per presented key) answers 403 until the source's ceiling.
  const junk = flood('127.0.0.3', () => ['GET', path, { 'x-api-key': 'pk_never-issued' }], (sent) => sent >= limit + 200, 16);
  await junk.done;
  const forbidden = junk.statuses.filter((s) => s === 403).length;
  expect(forbidden).toBeGreaterThanOrEqual(limit);
  expect(junk.statuses.filter((s) => s !== 403 && s !== 429)).toEqual([]);
  expect(junk.statuses.slice(-50)).toEqual(Array(50).fill(429));

  // Past it, a fresh made-up key from that source is refused with 429, not 403: the authorizer never saw it;
  // a real key from there waits too (the ceiling is per source over every API-key route).
  expect((await send('127.0.0.3', 'GET', path, { 'x-api-key': `pk_${junkToken()}` })).status).toBe(429);
  expect((await send('127.0.0.3', 'GET', '/api/public/v1/search/', { 'x-api-key': t.apiKey })).status).toBe(429);
  // Another source is untouched: its made-up key reaches the authorizer (403), its real key the handler (200).
  expect((await send('127.0.0.1', 'GET', path, { 'x-api-key': `pk_${junkToken()}` })).status).toBe(403);
  const mine = await send('127.0.0.1', 'GET', path, { 'x-api-key': t.apiKey });
  expect([mine.status, typeof mine.headers['x-request-id']]).toEqual([200, 'string']);
}, 120_000);
