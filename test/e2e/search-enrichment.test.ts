import { parsePhoneNumberWithError } from 'libphonenumber-js';
import type { LocalStack } from '../../shared/local/stack.js';
import type { Company, Person } from '../../shared/directory/types.js';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../shared/adapters/aws.js';
import { tableName } from '../../shared/catalog/resource-names.js';
import { mailEvidenceKeys } from '../../shared/email-status/mail-evidence.repository.js';
import { Client, newTenant, reply, startTestServices, type TestServices } from '../support/local.js';
import type { WebhookReceiver } from '../support/webhook-receiver.js';
import { sesEventFor } from '../support/ses-events.js';

let services: TestServices | undefined;
let stack: LocalStack;
let receiver: WebhookReceiver;
let people: Person[] = [];
let companies = new Map<string, Company>();
let admin: Client;

beforeAll(async () => {
  // hooks.public.test stands for a public host: it "resolves" through the local static table only.
  const env = { WEBHOOK_HOSTS: JSON.stringify({ 'hooks.public.test': ['93.184.216.34'], 'rebind.test': ['93.184.216.34', '10.0.0.7'], 'meta.test': ['169.254.169.254'] }) };
  const started = await startTestServices({ throttleMultiplier: 1000, env, directory: { people: 3000, seed: 7 }, webhookReceiver: true });
  ({ stack, admin, receiver } = services = started);
  ({ people, companies } = await started.readDirectory());
});
afterAll(async () => services?.stop());

const tenant = (account: Record<string, unknown> = {}) => newTenant(stack, account, { webhookReceiver: receiver });

async function settle() {
  const r = await admin.console('POST', 'dev/settle/');
  expect(r.body).toEqual({ idle: true });
}

const balance = async (accountId: string) => (await admin.console('GET', `accounts/${accountId}/`)).body.balance as number;
const charges = async (accountId: string) => (await admin.console('GET', `accounts/${accountId}/charges/`)).body.results as any[];

describe('people search', () => {
  test('needs an active signing secret (409) and a valid public webhook_url (400)', async () => {
    const t = await newTenant(stack);
    const body = { query: 'software engineers', max_results: 25, webhook_url: receiver.url };
    const noSecret = await reply(t.client.typed.POST('/api/public/v1/search/', { body: body }));
    expect(noSecret.status).toBe(409);
    expect(noSecret.body.error.code).toBe('conflict');
    const w = await tenant();
    for (const url of ['https://10.0.0.1/hook', 'https://rebind.test/hook', 'https://meta.test/hook', 'ftp://hooks.public.test/', 'https://unknown-host.test/x', 'not a url', 'https://user:pw@hooks.public.test/', 'https://hooks.public.test:8080/hook', 'https://hooks.public.test:22/hook']) {
      const r = await reply(w.client.typed.POST('/api/public/v1/search/', { body: { ...body, webhook_url: url } }));
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('invalid_request');
      expect(r.body.error.details).toEqual([{ path: 'webhook_url', message: expect.any(String) }]);
    }
    // Each rejection is audited as `released`, nothing charged (docs/decisions.md#billing-model).
    expect((await charges(w.accountId)).map((c) => [c.charge_status, c.charged])).toEqual(Array(9).fill(['released', 0]));
    // Revoking the only secret brings the 409 back; revoking twice is harmless.
    const s = await admin.console('POST', `accounts/${t.accountId}/webhook-secrets/`);
    expect((await reply(t.client.typed.POST('/api/public/v1/search/', { body: body }))).status).toBe(202);
    expect((await admin.console('DELETE', `accounts/${t.accountId}/webhook-secrets/${s.body.id}/`)).status).toBe(204);
    expect((await admin.console('DELETE', `accounts/${t.accountId}/webhook-secrets/${s.body.id}/`)).status).toBe(204);
    expect((await reply(t.client.typed.POST('/api/public/v1/search/', { body: body }))).status).toBe(409);
  });

  test('validation: max_results bounds, query length, unknown fields, query xor search_id', async () => {
    const t = await tenant();
    const base = { query: 'software engineers', max_results: 25, webhook_url: receiver.url };
    for (const bad of [
      { ...base, max_results: 24 },
      { ...base, max_results: 101 },
      { ...base, max_results: 30.5 },
      { ...base, query: 'x'.repeat(501) },
      { ...base, surprise: 1 },
      { max_results: 25, webhook_url: receiver.url },
      { ...base, search_id: 'dj_01aaaaaaaaaaaaaaaaaaaaaaaa' },
    ]) {
      const r = await t.client.api('POST', 'search/', bad);
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('invalid_request');
    }
  });

  test('accepts (202), completes, charges 1 per lead, delivers a signed webhook, and polls', async () => {
    const t = await tenant();
    const before = await balance(t.accountId);
    const r = await reply(t.client.typed.POST('/api/public/v1/search/', { body: { query: 'software engineers', max_results: 25, webhook_url: receiver.url } }));
    expect(r.status).toBe(202);
    expect(Object.keys(r.body).sort()).toEqual(['created_at', 'id', 'status']);
    expect(r.body.id).toMatch(/^dj_[0-9a-z]{26}$/);
    expect(r.body.status).toBe('pending');
    await settle();

    const poll = await reply(t.client.typed.GET('/api/public/v1/search/{job_id}/', { params: { path: { job_id: r.body.id } } }));
    expect(poll.status).toBe(200);
    expect(poll.body).toMatchObject({ id: r.body.id, status: 'completed', tier: 'people_search', created_at: r.body.created_at, error: null });
    expect(typeof poll.body.updated_at).toBe('string');
    expect(typeof poll.body.completed_at).toBe('string');
    const leads = poll.body.result.results;
    expect(leads.length).toBe(25);
    expect(poll.body.leads_returned).toBe(25);
    expect(poll.body.result.total_returned).toBe(25);
    for (const lead of leads) {
      expect(Object.keys(lead).sort()).toEqual(['company', 'current_job_title', 'first_name', 'full_name', 'headline', 'last_name', 'location', 'professional_url'].sort());
      expect(lead.professional_url).toMatch(/^linkedin\.com\/in\/[a-z0-9-]+$/);
      expect(lead.current_job_title.toLowerCase()).toMatch(/engineer|developer/);
      expect(Object.keys(lead.company).sort()).toEqual(['domain', 'employee_count', 'industry', 'name', 'professional_url']);
      expect(Number.isInteger(lead.company.employee_count)).toBe(true);
    }
    expect(poll.body.parsed_query.functions.length + poll.body.parsed_query.titles.length).toBeGreaterThan(0);

    expect(await balance(t.accountId)).toBe(before - 25);
    const [charge] = await charges(t.accountId);
    expect(charge).toMatchObject({ operation: 'people_search', reference: r.body.id, reserved: 25, charged: 25, charge_status: 'charged' });

    const hooks = receiver.for(r.body.id);
    expect(hooks).toHaveLength(1);
    expect(hooks[0]!.verified).toBe(true);
    expect(hooks[0]!.headers['webhook-id']).toBe(`msg_${r.body.id}`);
    expect(hooks[0]!.body).toEqual({ id: r.body.id, event_type: 'search.completed', results: leads, total_returned: 25 });

    const log = await admin.console('GET', `accounts/${t.accountId}/jobs/${r.body.id}/webhook-deliveries/`);
    expect(log.body.status).toBe('delivered');
    expect(log.body.attempts).toHaveLength(1);
    expect(log.body.attempts[0]).toMatchObject({ attempt: 1, status: 204, error: null, next_retry_at: null });
  });

  test('continuation returns the next page without overlap, only for the caller', async () => {
    const t = await tenant();
    const first = await reply(t.client.typed.POST('/api/public/v1/search/', { body: { query: 'software engineers', max_results: 25, webhook_url: receiver.url } }));
    await settle();
    const seen = new Set<string>((await reply(t.client.typed.GET('/api/public/v1/search/{job_id}/', { params: { path: { job_id: first.body.id } } }))).body.result.results.map((l: any) => l.professional_url));
    let parent = first.body.id;
    for (let page = 0; page < 2; page++) {
      const next = await reply(t.client.typed.POST('/api/public/v1/search/', { body: { search_id: parent, max_results: 25, webhook_url: receiver.url } }));
      expect(next.status).toBe(202);
      await settle();
      const res = (await reply(t.client.typed.GET('/api/public/v1/search/{job_id}/', { params: { path: { job_id: next.body.id } } }))).body;
      expect(res.status).toBe('completed');
      expect(res.result.results.length).toBeGreaterThan(0);
      for (const l of res.result.results) {
        expect(seen.has(l.professional_url)).toBe(false);
        seen.add(l.professional_url);
      }
      parent = next.body.id;
    }
    const other = await tenant();
    const foreign = await reply(other.client.typed.POST('/api/public/v1/search/', { body: { search_id: first.body.id, max_results: 25, webhook_url: receiver.url } }));
    expect(foreign.status).toBe(404);
    expect((await reply(other.client.typed.GET('/api/public/v1/search/{job_id}/', { params: { path: { job_id: first.body.id } } }))).status).toBe(404);
    expect((await reply(t.client.typed.GET('/api/public/v1/enrich/phone/{job_id}/', { params: { path: { job_id: first.body.id } } }))).status).toBe(404);
  });

  test('a search that matches nobody completes with zero leads and costs nothing', async () => {
    const t = await tenant();
    const before = await balance(t.accountId);
    const r = await reply(t.client.typed.POST('/api/public/v1/search/', { body: { query: 'chief executive officers at Zyzzyva Quantum Holdings', max_results: 25, webhook_url: receiver.url } }));
    await settle();
    const poll = (await reply(t.client.typed.GET('/api/public/v1/search/{job_id}/', { params: { path: { job_id: r.body.id } } }))).body;
    expect(poll.status).toBe('completed');
    expect(poll.result).toEqual({ results: [], total_returned: 0 });
    expect(await balance(t.accountId)).toBe(before);
    expect((await charges(t.accountId))[0]).toMatchObject({ charge_status: 'zero_result', charged: 0 });
    expect(receiver.for(r.body.id)[0]!.body).toEqual({ id: r.body.id, event_type: 'search.completed', results: [], total_returned: 0 });
  });

  test('a query with nothing to search on fails with invalid_input and is not charged', async () => {
    const t = await tenant();
    const before = await balance(t.accountId);
    const r = await reply(t.client.typed.POST('/api/public/v1/search/', { body: { query: 'the and of', max_results: 25, webhook_url: receiver.url } }));
    await settle();
    const poll = (await reply(t.client.typed.GET('/api/public/v1/search/{job_id}/', { params: { path: { job_id: r.body.id } } }))).body;
    expect(poll.status).toBe('failed');
    expect(poll.error).toEqual({ code: 'invalid_input', message: 'invalid search query' });
    expect(poll.result).toEqual({ error: poll.error });
    expect(await balance(t.accountId)).toBe(before);
    expect((await charges(t.accountId))[0].charge_status).toBe('released');
    expect(receiver.for(r.body.id)[0]!.body).toEqual({ id: r.body.id, event_type: 'search.failed', error: { code: 'invalid_input', message: 'invalid search query' } });
  });

  test('Idempotency-Key: same body replays the same job; another body is 409; one reservation', async () => {
    const t = await tenant();
    const body = { query: 'marketing directors', max_results: 30, webhook_url: receiver.url };
    const a = await reply(t.client.typed.POST('/api/public/v1/search/', { params: { header: { 'Idempotency-Key': 'order-42' } }, body: body }));
    const b = await reply(t.client.typed.POST('/api/public/v1/search/', { params: { header: { 'Idempotency-Key': 'order-42' } }, body: body }));
    expect(a.status).toBe(202);
    expect(b.status).toBe(202);
    expect(b.body.id).toBe(a.body.id);
    const c = await reply(t.client.typed.POST('/api/public/v1/search/', { params: { header: { 'Idempotency-Key': 'order-42' } }, body: { ...body, max_results: 31 } }));
    expect(c.status).toBe(409);
    expect((await reply(t.client.typed.POST('/api/public/v1/search/', { params: { header: { 'Idempotency-Key': 'bad key!' } }, body: body }))).status).toBe(400);
    await settle();
    const replay = await reply(t.client.typed.POST('/api/public/v1/search/', { params: { header: { 'Idempotency-Key': 'order-42' } }, body: body }));
    expect(replay.body).toEqual({ id: a.body.id, status: 'completed', created_at: a.body.created_at });
    // One reservation; the rejected bad key is audited as released (reserved 0).
    expect((await charges(t.accountId)).filter((x) => x.operation === 'people_search').map((x) => x.reserved)).toEqual([0, 30]);
  });

  test('402 when the balance cannot cover max_results', async () => {
    const t = await tenant({ credits: 24 });
    const r = await reply(t.client.typed.POST('/api/public/v1/search/', { body: { query: 'software engineers', max_results: 25, webhook_url: receiver.url } }));
    expect(r.status).toBe(402);
    expect(r.body.error.code).toBe('insufficient_credits');
    expect(await balance(t.accountId)).toBe(24);
  });

  test('a failed delivery is retried with the same webhook-id; the result stays pollable', async () => {
    const t = await tenant();
    receiver.failNext(1);
    const r = await reply(t.client.typed.POST('/api/public/v1/search/', { body: { query: 'product managers', max_results: 25, webhook_url: receiver.url } }));
    await settle(); // the 5-second retry rides on an SQS delay, so settle waits for it
    const hooks = receiver.for(r.body.id);
    expect(hooks.map((h) => h.status)).toEqual([500, 204]);
    expect(hooks[0]!.headers['webhook-id']).toBe(hooks[1]!.headers['webhook-id']);
    expect(hooks.every((h) => h.verified)).toBe(true);
    const log = (await admin.console('GET', `accounts/${t.accountId}/jobs/${r.body.id}/webhook-deliveries/`)).body;
    expect(log.status).toBe('delivered');
    expect(log.attempts.map((a: any) => a.status)).toEqual([500, 204]);
    expect(log.attempts[0].next_retry_at).not.toBeNull();
  });

  test('long retry waits move with the service clock; a public target is never contacted locally', async () => {
    const t = await tenant();
    const r = await reply(t.client.typed.POST('/api/public/v1/search/', { body: { query: 'sales managers', max_results: 25, webhook_url: 'https://hooks.public.test/hook' } }));
    expect(r.status).toBe(202);
    await settle();
    let log = (await admin.console('GET', `accounts/${t.accountId}/jobs/${r.body.id}/webhook-deliveries/`)).body;
    expect(log.attempts.length).toBe(2); // first attempt, then the 5 s retry
    expect(log.attempts[0].error).toBe('blocked_address'); // a class, not the reason's text
    expect(log.status).toBe('queued');
    await admin.console('POST', 'dev/clock/', { advance_seconds: 301 });
    await settle();
    log = (await admin.console('GET', `accounts/${t.accountId}/jobs/${r.body.id}/webhook-deliveries/`)).body;
    expect(log.attempts.length).toBe(3);
    expect((await reply(t.client.typed.GET('/api/public/v1/search/{job_id}/', { params: { path: { job_id: r.body.id } } }))).body.status).toBe('completed');
  });
});

describe('enrichment', () => {
  const withEmail = () => people.find((p) => p.work_email && p.phone)!;
  const withoutPhone = () => people.find((p) => p.work_email && !p.phone)!;
  const companyOf = (p: Person) => companies.get(p.company_id)!;

  test('email: found 200 (5 credits), no match 404 (5 credits), invalid 400 (free)', async () => {
    const t = await tenant();
    const p = withEmail();
    const found = await reply(t.client.typed.POST('/api/public/v1/enrich/email/', { body: { professional_url: `https://www.${p.professional_url}/` } }));
    expect(found.status).toBe(200);
    // Beyond SPEC (issue 34): the status beside the email; the sample's domains take mail, nothing has been sent.
    expect(found.body).toEqual({ email: p.work_email, email_status: 'unknown', email_status_reason: 'unverified' });
    const byDomain = await reply(t.client.typed.POST('/api/public/v1/enrich/email/', { body: { first_name: p.first_name, last_name: p.last_name, domain: companyOf(p).domain } }));
    expect(byDomain.body).toEqual(found.body);
    const byCompany = await reply(t.client.typed.POST('/api/public/v1/enrich/email/', { body: { first_name: p.first_name, last_name: p.last_name, company_name: companyOf(p).name } }));
    expect(byCompany.status).toBe(404); // accepted shape, but cannot resolve an email without a profile URL
    const none = await reply(t.client.typed.POST('/api/public/v1/enrich/email/', { body: { professional_url: 'linkedin.com/in/nobody-at-all-000000' } }));
    expect(none.status).toBe(404);
    expect(none.body.error.code).toBe('not_found');
    for (const bad of [{}, { first_name: 'A' }, { first_name: 'A', last_name: 'B' }, { first_name: 'A', last_name: 'B', domain: 'nodot' }, { first_name: 'A', last_name: 'B', domain: 'a.com', company_name: 'A' }, { professional_url: 'https://example.com/company/x' }, { email: 'a@b.com' }]) {
      const r = await t.client.api('POST', 'enrich/email/', bad);
      expect(r.status).toBe(400);
    }
    const cs = (await charges(t.accountId)).filter((c) => c.charge_status !== 'released');
    expect(cs.map((c) => [c.operation, c.charged, c.charge_status])).toEqual(Array(4).fill(['email_enrich', 5, 'charged']));
    expect(await balance(t.accountId)).toBe(1250 - 20);
  });

  test('professional URL: exactly one shape; bare-host result; 3 credits', async () => {
    const t = await tenant();
    const p = withEmail();
    const byEmail = await reply(t.client.typed.POST('/api/public/v1/enrich/professional-url/', { body: { email: p.work_email!.toUpperCase() } }));
    expect(byEmail.status).toBe(200);
    expect(byEmail.body).toEqual({ professional_url: p.professional_url });
    const byName = await reply(t.client.typed.POST('/api/public/v1/enrich/professional-url/', { body: { first_name: p.first_name, last_name: p.last_name, company_name: companyOf(p).name } }));
    expect(byName.body).toEqual({ professional_url: p.professional_url });
    const mixed = await reply(t.client.typed.POST('/api/public/v1/enrich/professional-url/', { body: { email: p.work_email!, first_name: p.first_name, last_name: p.last_name, domain: companyOf(p).domain } }));
    expect(mixed.status).toBe(400);
    expect(mixed.body.error.code).toBe('invalid_request');
    expect((await reply(t.client.typed.POST('/api/public/v1/enrich/professional-url/', { body: { email: 'nobody@nowhere.example' } }))).status).toBe(404);
    const cs = (await charges(t.accountId)).filter((c) => c.charge_status !== 'released');
    expect(cs.map((c) => c.charged)).toEqual([3, 3, 3]);
  });

  test('professional profile: SPEC shape, URL forms, 404 charged, invalid URL free', async () => {
    const t = await tenant();
    const p = withEmail();
    const r = await reply(t.client.typed.POST('/api/public/v1/enrich/professional-profile/', { body: { professional_url: `http://uk.${p.professional_url}?trk=x` } }));
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['current_position', 'education', 'experience', 'first_name', 'full_name', 'headline', 'last_name', 'location'].sort());
    expect(r.body.full_name).toBe(p.full_name);
    expect(Object.keys(r.body.location).sort()).toEqual(['city', 'country', 'country_code']);
    expect(r.body.current_position).toEqual({ title: p.current_job_title, company_name: companyOf(p).name, company_industry: companyOf(p).industry });
    for (const e of r.body.experience) expect(e.start === null || /^\d{4}-\d{2}$/.test(e.start)).toBe(true);
    expect((await reply(t.client.typed.POST('/api/public/v1/enrich/professional-profile/', { body: { professional_url: 'linkedin.com/company/acme' } }))).status).toBe(400);
    expect((await reply(t.client.typed.POST('/api/public/v1/enrich/professional-profile/', { body: { professional_url: 'linkedin.com/in/no-such-person-123' } }))).status).toBe(404);
    expect((await charges(t.accountId)).filter((c) => c.charge_status !== 'released').map((c) => c.charged)).toEqual([2, 2]);
  });

  test('phone: 50 on a hit (E.164), 0 on a miss (phone null), webhook and polling', async () => {
    const t = await tenant();
    const hit = withEmail();
    const miss = withoutPhone();
    const a = await reply(t.client.typed.POST('/api/public/v1/enrich/phone/', { body: { professional_url: hit.professional_url, webhook_url: receiver.url } }));
    const b = await reply(t.client.typed.POST('/api/public/v1/enrich/phone/', { body: { email: miss.work_email!, webhook_url: receiver.url } }));
    expect(a.status).toBe(202);
    expect(Object.keys(a.body).sort()).toEqual(['created_at', 'id', 'status']);
    await settle();
    const pa = (await reply(t.client.typed.GET('/api/public/v1/enrich/phone/{job_id}/', { params: { path: { job_id: a.body.id } } }))).body;
    expect(pa).toMatchObject({ status: 'completed', tier: 'phone_enrich', result: { phone: hit.phone }, error: null });
    expect(parsePhoneNumberWithError(pa.result.phone).isValid()).toBe(true);
    const pb = (await reply(t.client.typed.GET('/api/public/v1/enrich/phone/{job_id}/', { params: { path: { job_id: b.body.id } } }))).body;
    expect(pb).toMatchObject({ status: 'completed', result: { phone: null } });
    expect(receiver.for(a.body.id)[0]!.body).toEqual({ id: a.body.id, event_type: 'phone_enrich.completed', phone: hit.phone });
    expect(receiver.for(b.body.id)[0]!.body).toEqual({ id: b.body.id, event_type: 'phone_enrich.completed', phone: null });
    const cs = await charges(t.accountId);
    expect(cs.map((c) => [c.reference, c.charged, c.charge_status])).toEqual([
      [b.body.id, 0, 'zero_result'],
      [a.body.id, 50, 'charged'],
    ]);
    expect(await balance(t.accountId)).toBe(1200);
    expect((await reply(t.client.typed.POST('/api/public/v1/enrich/phone/', { body: { first_name: 'A', last_name: 'B', webhook_url: receiver.url } }))).status).toBe(400);
  });
});

// Issue 34 item 2 (beyond SPEC): a hard bounce in one account's sending makes an address `invalid` for every
// account, through a record that names no account; a delivery confirms the address and its pattern; sequences
// refuse invalid addresses as `invalid_contact`. One round of sends serves every assertion (each settle ≈ 3 s).
describe('email status from the service’s own sending', () => {
  let n = 0;
  const sender = () => ({ email: `rep${++n}.${Date.now()}@seller.test`, type: 'google' });
  const findEmail = async (t: { client: Client }, p: Person) => (await reply(t.client.typed.POST('/api/public/v1/enrich/email/', { body: { professional_url: p.professional_url } }))).body;
  const sendOf = (emailId: string) => stack.sentMail.find((s) => s.raw?.toString('utf8').includes(`<${emailId}.`));
  const inject = async (event: Record<string, unknown>) => expect((await admin.console('POST', 'dev/ses-events/', event)).status).toBe(202);

  test('a bounce makes the address invalid and a delivery valid for another account, the delivery’s pattern confirms a colleague, the record names no account, sequences refuse the bounced address', async () => {
    // From the end of the directory, away from the people the tests above use.
    const byCompany = new Map<string, Person[]>();
    for (const p of [...people].reverse()) if (p.work_email && !/\d@/.test(p.work_email)) byCompany.set(p.company_id, [...(byCompany.get(p.company_id) ?? []), p]);
    const groups = [...byCompany.values()];
    const [delivered, colleague] = groups.find((ps) => ps.length >= 2)!;
    const bounced = groups.find((ps) => ps[0]!.company_id !== delivered!.company_id)![0]!;
    const sending = await newTenant(stack, {}, { sender: sender() });
    const later = await newTenant(stack, {}, { sender: sender() });
    expect(await findEmail(later, bounced)).toEqual({ email: bounced.work_email, email_status: 'unknown', email_status_reason: 'unverified' });

    const ids: string[] = [];
    for (const p of [bounced, delivered!]) {
      const created = await reply(sending.client.typed.POST('/api/public/v1/emails/', { body: { to: { email: p.work_email!, first_name: p.first_name, last_name: p.last_name }, instructions: 'Introduce our analytics product in two sentences.' } }));
      expect(created.status).toBe(202);
      ids.push(created.body.id);
    }
    await settle();
    for (const id of ids) expect((await reply(sending.client.typed.POST('/api/public/v1/emails/{id}/approve/', { params: { path: { id } }, body: { schedule: 'now' } }))).status).toBe(200);
    await settle();
    await inject(sesEventFor('bounce-permanent', { messageId: sendOf(ids[0]!)!.provider_message_id!, recipient: bounced.work_email! }));
    await inject(sesEventFor('delivery', { messageId: sendOf(ids[1]!)!.provider_message_id!, recipient: delivered!.work_email! }));
    await settle();

    expect(await findEmail(later, bounced)).toEqual({ email: bounced.work_email, email_status: 'invalid', email_status_reason: 'hard_bounce' });
    expect(await findEmail(later, delivered!)).toEqual({ email: delivered!.work_email, email_status: 'valid', email_status_reason: 'delivered' });
    expect(await findEmail(later, colleague!)).toEqual({ email: colleague!.work_email, email_status: 'valid', email_status_reason: 'pattern_confirmed' });

    // The shared record: keyed by the address's hash, holding neither account nor the address itself.
    const items = ((await documentClient().send(new ScanCommand({ TableName: tableName('mail_evidence') }))).Items ?? []) as Record<string, unknown>[];
    expect(items.find((i) => i.pk === mailEvidenceKeys.address(bounced.work_email!).pk)).toMatchObject({ bounced_at: expect.any(String) });
    const stored = JSON.stringify(items);
    for (const secret of [sending.accountId, later.accountId, bounced.work_email!, delivered!.work_email!]) expect(stored).not.toContain(secret);

    // Sequences: the bounced address (for an account that never sent to it), a disposable one and one whose domain
    // has no mail exchanger are invalid_contact; a plain prospect is accepted.
    const seq = await reply(
      later.client.typed.POST('/api/public/v1/sequences/', {
        body: {
          name: 'Status check',
          instructions: 'Introduce our analytics product briefly.',
          steps: 1,
          contacts: [
            { email: bounced.work_email!, first_name: bounced.first_name, company_name: 'Acme' },
            { email: 'sam@mailinator.com', first_name: 'Sam', company_name: 'Acme' },
            { email: 'kim@nowhere.invalid', first_name: 'Kim', company_name: 'Acme' },
            { email: `lee.${Date.now()}@prospect.test`, first_name: 'Lee', company_name: 'Acme' },
          ],
        },
      }),
    );
    expect(seq.status).toBe(202);
    expect(seq.body.contacts_accepted).toBe(1);
    expect(seq.body.contacts_rejected.map((r: { contact: { email: string }; reason: string }) => [r.contact.email, r.reason])).toEqual([
      [bounced.work_email, 'invalid_contact'],
      ['sam@mailinator.com', 'invalid_contact'],
      ['kim@nowhere.invalid', 'invalid_contact'],
    ]);
  });
});
