import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LocalStack } from '../../shared/local/stack.js';
import { startServices } from '../../shared/local/services.js';
import { readDirectoryFile } from '../../shared/directory/file.js';
import type { Person } from '../../shared/directory/types.js';
import { FIT_WEIGHTS } from '../../shared/search-engine/fit-score.js';
import { Client, ROOT, newTenant, startTestStack, reply } from '../support/local.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

/** Deep search over HTTP on the local stack, as a client sees it: acceptance, polling, webhooks and charges. */
let stack: LocalStack;
let receiver: WebhookReceiver;
const people = new Map<string, Person>();
let admin: Client;
const dir = mkdtempSync(join(tmpdir(), 'deep-search-'));

beforeAll(async () => {
  stack = await startTestStack({ throttleMultiplier: 1000 });
  const file = join(dir, 'directory.jsonl');
  await startServices({ root: ROOT, stack, dataDir: null, directory: { file, people: 3000, seed: 11 } });
  for await (const r of readDirectoryFile(file)) if (r.type === 'person') people.set(r.professional_url, r);
  receiver = await new WebhookReceiver([]).start();
  admin = new Client(stack);
}, 180_000);
afterAll(async () => {
  await receiver?.stop();
  await stack?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const secrets: string[] = [];
async function tenant(account: Record<string, unknown> = {}) {
  const t = await newTenant(stack, account);
  const s = await t.admin.console('POST', `accounts/${t.accountId}/webhook-secrets/`);
  secrets.push(s.body.secret);
  receiver.setSecrets(secrets);
  return t;
}

async function settle() {
  expect((await admin.console('POST', 'dev/settle/')).body).toEqual({ idle: true });
}

const balance = async (accountId: string) => (await admin.console('GET', `accounts/${accountId}/`)).body.balance as number;
const charges = async (accountId: string) => (await admin.console('GET', `accounts/${accountId}/charges/`)).body.results as any[];

const ITEM_KEYS = ['company', 'current_job_title', 'email', 'experience', 'first_name', 'full_name', 'headline', 'last_name', 'location', 'professional_url', 'score'];

// The public API is called through the typed client; `client.api` remains where a test sends what the
// document does not allow (invalid bodies) or a path built at run time (another tenant's ids, wrong kinds).
describe('deep search', () => {
  test('409 without an active signing secret; invalid bodies are 400 and audited as released', async () => {
    const t = await newTenant(stack);
    const body = { query: 'marketing directors', webhook_url: receiver.url };
    const noSecret = await reply(t.client.typed.POST('/api/public/v1/deep-search/', { body: body }));
    expect(noSecret.status).toBe(409);
    expect(noSecret.body.error.code).toBe('conflict');
    expect(await balance(t.accountId)).toBe(1250);

    const w = await tenant();
    const bad = [
      { ...body, mode: 'deluxe' },
      { ...body, query: 'x'.repeat(501) },
      { ...body, query: '   ' },
      { ...body, max_results: 25 },
      { query: 'marketing directors' },
      { ...body, webhook_url: 'https://10.0.0.1/hook' },
    ];
    for (const b of bad) {
      const r = await w.client.api('POST', 'deep-search/', b);
      expect([r.status, r.body.error.code]).toEqual([400, 'invalid_request']);
    }
    expect((await charges(w.accountId)).map((c) => [c.operation, c.charge_status, c.reserved, c.charged])).toEqual(Array(bad.length).fill(['deep_search', 'released', 0, 0]));
    expect(await balance(w.accountId)).toBe(1250);
  });

  test('standard: 202 acceptance, a researched shortlist by signed webhook and polling, 200 credits charged', async () => {
    const t = await tenant();
    const r = await reply(t.client.typed.POST('/api/public/v1/deep-search/', { body: { query: 'software engineers in the United States', webhook_url: receiver.url } }));
    expect(r.status).toBe(202);
    expect(Object.keys(r.body).sort()).toEqual(['created_at', 'id', 'status']);
    expect(r.body.id).toMatch(/^dj_[0-9a-z]{26}$/);
    expect(r.body.status).toBe('pending');
    expect(await balance(t.accountId)).toBe(1050);
    const atAcceptance = (await charges(t.accountId))[0];
    expect(atAcceptance).toMatchObject({ operation: 'deep_search', reference: r.body.id, reserved: 200 });
    // The twin's worker runs the job as soon as it is queued and may already have finished it: the charge is
    // then settled at the price, never released.
    expect([atAcceptance.charge_status, atAcceptance.charged]).toEqual(atAcceptance.charge_status === 'pending' ? ['pending', 0] : ['charged', 200]);
    await settle();

    const poll = await reply(t.client.typed.GET('/api/public/v1/deep-search/{job_id}/', { params: { path: { job_id: r.body.id } } }));
    expect(poll.status).toBe(200);
    expect(poll.body).toMatchObject({ id: r.body.id, status: 'completed', tier: 'deep_search', created_at: r.body.created_at, error: null, leads_returned: 25 });
    expect(Date.parse(poll.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(r.body.created_at));
    expect(Date.parse(poll.body.completed_at)).toBeGreaterThanOrEqual(Date.parse(r.body.created_at));
    const items = poll.body.result.results as any[];
    expect(poll.body.result.total_returned).toBe(25);
    expect(items).toHaveLength(25);
    for (const [i, item] of items.entries()) {
      // Beyond SPEC (issue 34): an item with an email carries its email status beside it.
      expect(Object.keys(item).sort()).toEqual(item.email ? [...ITEM_KEYS, 'email_status', 'email_status_reason'].sort() : ITEM_KEYS);
      if (item.email) expect(item).toMatchObject({ email_status: 'unknown', email_status_reason: 'unverified' });
      expect(Number.isInteger(item.score) && item.score >= 0 && item.score <= 100).toBe(true);
      if (i) expect(item.score).toBeLessThanOrEqual(items[i - 1].score);
      expect(item.professional_url).toMatch(/^linkedin\.com\/in\/[a-z0-9-]+$/);
      // Researched from the directory: the enrichment engine's work email and the full employment history.
      const person = people.get(item.professional_url)!;
      expect(item.email).toBe(person.work_email ?? '');
      expect(item.experience).toEqual(person.experience.map((x) => ({ company: x.company_name, title: x.title, date_range: `${x.start} - ${x.end ?? 'present'}` })));
      expect(person.location.country_code).toBe('US');
    }
    expect(items.filter((i) => i.email !== '').length).toBeGreaterThan(0);
    // The polling envelope explains each score (a title implies its seniorities); the weights are the fit model's.
    expect(poll.body.score_breakdown.weights).toEqual(FIT_WEIGHTS);
    expect(poll.body.score_breakdown.items.map((b: any) => [b.professional_url, b.score])).toEqual(items.map((i) => [i.professional_url, i.score]));
    for (const b of poll.body.score_breakdown.items) expect(Object.keys(b.parts).sort()).toEqual(['function', 'location', 'recency', 'seniority', 'title']);

    const [charge] = await charges(t.accountId);
    expect(charge).toMatchObject({ operation: 'deep_search', reference: r.body.id, reserved: 200, charged: 200, charge_status: 'charged' });
    expect(await balance(t.accountId)).toBe(1050);

    const hooks = receiver.for(r.body.id);
    expect(hooks).toHaveLength(1);
    expect(hooks[0]!.verified).toBe(true);
    expect(hooks[0]!.headers['webhook-id']).toBe(`msg_${r.body.id}`);
    // The webhook item is exactly docs/decisions.md's: no score parts, no parsed query.
    expect(hooks[0]!.body).toEqual({ id: r.body.id, event_type: 'deep_search.completed', results: items, total_returned: 25 });
  });

  test('extended: up to 100 people for 400 credits', async () => {
    const t = await tenant();
    const r = await reply(t.client.typed.POST('/api/public/v1/deep-search/', { body: { query: 'software engineers', mode: 'extended', webhook_url: receiver.url } }));
    expect(r.status).toBe(202);
    expect(await balance(t.accountId)).toBe(850);
    await settle();
    const poll = (await reply(t.client.typed.GET('/api/public/v1/deep-search/{job_id}/', { params: { path: { job_id: r.body.id } } }))).body;
    expect(poll.status).toBe('completed');
    expect(poll.result.results).toHaveLength(100);
    expect(poll.leads_returned).toBe(100);
    expect((await charges(t.accountId))[0]).toMatchObject({ reserved: 400, charged: 400, charge_status: 'charged' });
    expect(await balance(t.accountId)).toBe(850);
  });

  test('a run that finds nobody is still charged in full', async () => {
    const t = await tenant();
    const r = await reply(t.client.typed.POST('/api/public/v1/deep-search/', { body: { query: 'chief executive officers at Zyzzyva Quantum Holdings', webhook_url: receiver.url } }));
    await settle();
    const poll = (await reply(t.client.typed.GET('/api/public/v1/deep-search/{job_id}/', { params: { path: { job_id: r.body.id } } }))).body;
    expect([poll.status, poll.leads_returned]).toEqual(['completed', 0]);
    expect(poll.result).toEqual({ results: [], total_returned: 0 });
    expect((await charges(t.accountId))[0]).toMatchObject({ reference: r.body.id, reserved: 200, charged: 200, charge_status: 'charged' });
    expect(await balance(t.accountId)).toBe(1050);
    expect(receiver.for(r.body.id)[0]!.body).toEqual({ id: r.body.id, event_type: 'deep_search.completed', results: [], total_returned: 0 });
  });

  test('a query that cannot be understood fails as invalid_input and its reservation is released', async () => {
    const t = await tenant();
    const r = await reply(t.client.typed.POST('/api/public/v1/deep-search/', { body: { query: 'the and of', mode: 'extended', webhook_url: receiver.url } }));
    expect(r.status).toBe(202);
    await settle();
    const poll = (await reply(t.client.typed.GET('/api/public/v1/deep-search/{job_id}/', { params: { path: { job_id: r.body.id } } }))).body;
    expect([poll.status, poll.result, poll.leads_returned]).toEqual(['failed', { error: { code: 'invalid_input', message: 'invalid deep-search query' } }, 0]);
    expect(poll.error).toEqual({ code: 'invalid_input', message: 'invalid deep-search query' });
    expect((await charges(t.accountId))[0]).toMatchObject({ reference: r.body.id, reserved: 400, charged: 0, charge_status: 'released' });
    expect(await balance(t.accountId)).toBe(1250);
    const hooks = receiver.for(r.body.id);
    expect(hooks.map((h) => h.verified)).toEqual([true]);
    expect(hooks[0]!.body).toEqual({ id: r.body.id, event_type: 'deep_search.failed', error: { code: 'invalid_input', message: 'invalid deep-search query' } });
  });

  test('Idempotency-Key: the same body replays the same job with one reservation; a changed body is 409', async () => {
    const t = await tenant();
    const body = { query: 'product managers in London', webhook_url: receiver.url };
    const a = await reply(t.client.typed.POST('/api/public/v1/deep-search/', { params: { header: { 'Idempotency-Key': 'deep-1' } }, body: body }));
    const b = await reply(t.client.typed.POST('/api/public/v1/deep-search/', { params: { header: { 'Idempotency-Key': 'deep-1' } }, body: { ...body, mode: 'standard' } }));
    expect([a.status, b.status]).toEqual([202, 202]);
    // The replay is the same job as it stands now: the worker may already have picked it up.
    expect({ ...b.body, status: undefined }).toEqual({ ...a.body, status: undefined });
    expect(['pending', 'running', 'completed']).toContain(b.body.status);
    for (const changed of [{ ...body, mode: 'extended' as const }, { ...body, webhook_url: `${receiver.url}?other` }, { ...body, query: 'product managers in Paris' }]) {
      const c = await reply(t.client.typed.POST('/api/public/v1/deep-search/', { params: { header: { 'Idempotency-Key': 'deep-1' } }, body: changed }));
      expect([c.status, c.body.error.code]).toEqual([409, 'conflict']);
    }
    await settle();
    const replay = await reply(t.client.typed.POST('/api/public/v1/deep-search/', { params: { header: { 'Idempotency-Key': 'deep-1' } }, body: body }));
    expect(replay.body).toEqual({ id: a.body.id, status: 'completed', created_at: a.body.created_at });
    expect((await charges(t.accountId)).map((c) => [c.reference, c.reserved, c.charge_status])).toEqual([[a.body.id, 200, 'charged']]);
    expect(receiver.for(a.body.id)).toHaveLength(1);
    // The key is the caller's: another account's same key is a new job.
    const other = await tenant();
    const theirs = await reply(other.client.typed.POST('/api/public/v1/deep-search/', { params: { header: { 'Idempotency-Key': 'deep-1' } }, body: body }));
    expect(theirs.status).toBe(202);
    expect(theirs.body.id).not.toBe(a.body.id);
  });

  test('402 when the balance cannot cover the mode; 404 for another tenant’s job, another kind’s route and a malformed id', async () => {
    const poor = await tenant({ credits: 399 });
    const r = await reply(poor.client.typed.POST('/api/public/v1/deep-search/', { body: { query: 'sales managers', mode: 'extended', webhook_url: receiver.url } }));
    expect([r.status, r.body.error.code]).toEqual([402, 'insufficient_credits']);
    expect(await balance(poor.accountId)).toBe(399);

    const owner = await tenant();
    const job = await reply(owner.client.typed.POST('/api/public/v1/deep-search/', { body: { query: 'sales managers', webhook_url: receiver.url } }));
    await settle();
    expect((await reply(owner.client.typed.GET('/api/public/v1/deep-search/{job_id}/', { params: { path: { job_id: job.body.id } } }))).status).toBe(200);
    const stranger = await tenant();
    for (const path of [`deep-search/${job.body.id}/`, 'deep-search/dj_01aaaaaaaaaaaaaaaaaaaaaaaa/', 'deep-search/dj_nope/', 'deep-search/job/']) {
      const res = await stranger.client.api('GET', path);
      expect([path, res.status, res.body.error?.code]).toEqual([path, 404, 'not_found']);
    }
    expect((await reply(owner.client.typed.GET('/api/public/v1/search/{job_id}/', { params: { path: { job_id: job.body.id } } }))).status).toBe(404);
    expect((await reply(owner.client.typed.GET('/api/public/v1/deep-search/{job_id}/', { params: { path: { job_id: 'dj_nope' } } }))).status).toBe(404);
  });
});
