import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LocalStack } from '../../shared/local/stack.js';
import { startServices } from '../../shared/local/services.js';
import { readDirectoryFile } from '../../shared/directory/file.js';
import type { Person } from '../../shared/directory/types.js';
import { getLead } from '../../shared/outreach/leads.repository.js';
import { Client, ROOT, newTenant, startTestStack, reply, type RequestBody } from '../support/local.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * The gaps issue 8 found between docs/decisions.md / docs/decisions.md and what the service answered, each checked over
 * HTTP against the local stack, from the contract's own wording.
 */
let stack: LocalStack;
let admin: Client;
let receiver: WebhookReceiver;
const people: Person[] = [];
const dir = mkdtempSync(join(tmpdir(), 'contract-'));

beforeAll(async () => {
  stack = await startTestStack({ throttleMultiplier: 1000 });
  const file = join(dir, 'directory.jsonl');
  await startServices({ root: ROOT, stack, dataDir: null, directory: { file, people: 400, seed: 11 } });
  for await (const r of readDirectoryFile(file)) if (r.type === 'person') people.push(r);
  admin = new Client(stack);
  receiver = await new WebhookReceiver([]).start();
});
afterAll(async () => {
  await receiver?.stop();
  await stack?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const settle = async () => expect((await admin.console('POST', 'dev/settle/')).body).toEqual({ idle: true });
const serviceNow = async () => new Date((await admin.console('POST', 'dev/clock/', { advance_seconds: 1 })).body.now);
const mailbox = async () => (await admin.console('GET', 'dev/mailbox/')).body.messages as any[];
const balance = async (id: string) => (await admin.console('GET', `accounts/${id}/`)).body.balance as number;
const charges = async (id: string) => (await admin.console('GET', `accounts/${id}/charges/`)).body.results as any[];

let seq = 0;
const recipient = () => `gap${++seq}.${Date.now()}@prospect.test`;

async function sender(account: Record<string, unknown> = {}, senderFields: Record<string, unknown> = {}) {
  const t = await newTenant(stack, account);
  const ea = await admin.console('POST', `accounts/${t.accountId}/sending-accounts/`, { email: `rep${++seq}@seller.test`, type: 'google', ...senderFields });
  return { ...t, ea: ea.body };
}

const emailBody = (to: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  ({
    to: { first_name: 'Jane', company_name: 'Acme Robotics', ...to },
    instructions: 'Introduce our warehouse automation platform and ask for a 15-minute call.',
    ...extra,
  }) as RequestBody<'post_emails'>;

/** Wall-clock hour and weekday of an instant in a zone. */
function localTime(iso: string, timeZone: string): { hour: number; weekday: string } {
  const parts = new Intl.DateTimeFormat('en-GB', { timeZone, weekday: 'short', hour: '2-digit', hourCycle: 'h23' }).formatToParts(new Date(iso));
  return { hour: Number(parts.find((p) => p.type === 'hour')!.value), weekday: parts.find((p) => p.type === 'weekday')!.value };
}

/** Hours the zone is ahead of UTC at `at`. */
function utcOffsetHours(timeZone: string, at: Date): number {
  const p = Object.fromEntries(new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric' }).formatToParts(at).map((x) => [x.type, Number(x.value)]));
  return (Date.UTC(p.year!, p.month! - 1, p.day!, p.hour! % 24, p.minute!) - Math.floor(at.getTime() / 60_000) * 60_000) / 3600_000;
}

/**
 * Directory people whose zone is far enough from UTC that 09:00–11:00 there cannot overlap 09:00–11:00
 * UTC, yet close enough that their weekday mornings are UTC weekdays too.
 */
function farFromUtc(now: Date, exclude: Person[] = []): Person {
  const p = people.find((x) => x.work_email && !exclude.includes(x) && Math.abs(utcOffsetHours(x.location.time_zone, now)) >= 3 && utcOffsetHours(x.location.time_zone, now) <= 8);
  if (!p) throw new Error('the sample directory has nobody far from UTC');
  return p;
}

function expectBestTimeIn(scheduledFor: string, timeZone: string) {
  const local = localTime(scheduledFor, timeZone);
  expect(local.hour).toBeGreaterThanOrEqual(9);
  expect(local.hour).toBeLessThan(11);
  expect(['Sat', 'Sun']).not.toContain(local.weekday);
}

// The public API is called through the typed client; `client.api` remains where a test sends what the
// document does not allow (invalid and malformed bodies, one loop over several paid routes' invalid bodies).
describe('1. best send time is in the recipient’s time zone (docs/decisions.md#best-send-time)', () => {
  test('a directory person found by their email: review none is queued at 09:00–11:00 their time, not the sender’s', async () => {
    const p = farFromUtc(await serviceNow());
    const t = await sender({}, { timezone: 'UTC' });
    const r = await reply(t.client.typed.POST('/api/public/v1/emails/', { body: emailBody({ email: p.work_email, first_name: p.first_name }, { review: 'none' }) }));
    expect(r.status).toBe(202);
    await settle();
    const e = (await reply(t.client.typed.GET('/api/public/v1/emails/{id}/', { params: { path: { id: r.body.id } } }))).body;
    expect(e.status).toBe('queued');
    expectBestTimeIn(e.scheduled_for, p.location.time_zone);
  });

  test('a directory person found by profile URL: approve with best_time lands in their zone', async () => {
    const now = await serviceNow();
    const first = farFromUtc(now);
    const p = farFromUtc(now, people.filter((x) => x.location.time_zone === first.location.time_zone));
    const t = await sender({}, { timezone: 'UTC' });
    const r = await reply(t.client.typed.POST('/api/public/v1/emails/', { body: emailBody({ email: recipient(), first_name: p.first_name, professional_url: `https://www.${p.professional_url}/` }) }));
    await settle();
    const approved = await reply(t.client.typed.POST('/api/public/v1/emails/{id}/approve/', { params: { path: { id: r.body.id } }, body: { schedule: 'best_time' } }));
    expect(approved.status).toBe(200);
    expectBestTimeIn(approved.body.scheduled_for, p.location.time_zone);
  });

  test('a recipient nobody knows keeps the sending account’s zone', async () => {
    const t = await sender({}, { timezone: 'Asia/Tokyo' });
    const r = await reply(t.client.typed.POST('/api/public/v1/emails/', { body: emailBody({ email: recipient() }, { review: 'none' }) }));
    await settle();
    expectBestTimeIn((await reply(t.client.typed.GET('/api/public/v1/emails/{id}/', { params: { path: { id: r.body.id } } }))).body.scheduled_for, 'Asia/Tokyo');
  });
});

describe('2. a paid call rejected as invalid leaves a released audit record (docs/decisions.md#billing-model)', () => {
  test('every paid operation: 400, one record {reserved 0, charged 0, released, reason}, balance untouched', async () => {
    const t = await sender({}, {});
    await admin.console('POST', `accounts/${t.accountId}/webhook-secrets/`);
    const rejected: [string, string, unknown][] = [
      ['search/', 'people_search', { query: 'software engineers', max_results: 24, webhook_url: 'https://hooks.example/x' }],
      ['enrich/phone/', 'phone_enrich', { first_name: 'A', webhook_url: 'https://hooks.example/x' }],
      ['enrich/email/', 'email_enrich', { first_name: 'A', last_name: 'B' }],
      ['enrich/professional-url/', 'professional_url_enrich', { email: 'a@b.test', domain: 'b.test', first_name: 'A', last_name: 'B' }],
      ['enrich/professional-profile/', 'professional_profile_enrich', { professional_url: 'linkedin.com/company/acme' }],
      ['emails/', 'outreach_email', emailBody({ email: 'not-an-email' })],
    ];
    const expected = [];
    for (const [path, operation, body] of rejected) {
      const r = await t.client.api('POST', path, body);
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('invalid_request');
      expected.unshift({ operation, reference: r.headers.get('x-request-id'), reserved: 0, charged: 0, charge_status: 'released', reason: expect.stringMatching(/\S/) });
    }
    const records = await charges(t.accountId);
    expect(records).toEqual(expected.map((x) => expect.objectContaining(x)));
    expect(await balance(t.accountId)).toBe(1250);
  });

  test('malformed JSON on a paid route is audited too; free routes and unknown keys write nothing', async () => {
    const t = await sender();
    const bad = await t.client.api('POST', 'enrich/email/', '{"professional_url":');
    expect(bad.status).toBe(400);
    expect((await reply(t.client.typed.GET('/api/public/v1/emails/', { params: { query: { page: 0 } } }))).status).toBe(400);
    expect((await reply(new Client(stack, 'pk_unknown').typed.POST('/api/public/v1/enrich/email/', { body: {} }))).status).toBe(403);
    const records = await charges(t.accountId);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ operation: 'email_enrich', charge_status: 'released', reserved: 0, charged: 0 });
  });
});

describe('3. daily_limit 0 is usable at create; the email waits in queued (docs/decisions.md#decisions-the-contract-leaves-open)', () => {
  test('202 at create; approved it waits unscheduled and unsent; raising the limit gives it a slot and it sends', async () => {
    const t = await sender({}, { daily_limit: 0 });
    const to = recipient();
    const r = await reply(t.client.typed.POST('/api/public/v1/emails/', { body: emailBody({ email: to }) }));
    expect(r.status).toBe(202);
    await settle();
    expect((await reply(t.client.typed.GET('/api/public/v1/emails/{id}/', { params: { path: { id: r.body.id } } }))).body.status).toBe('pending_review');
    const approved = await reply(t.client.typed.POST('/api/public/v1/emails/{id}/approve/', { params: { path: { id: r.body.id } }, body: { schedule: 'now' } }));
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ status: 'queued', scheduled_for: null });
    await settle();
    expect((await reply(t.client.typed.GET('/api/public/v1/emails/{id}/', { params: { path: { id: r.body.id } } }))).body).toMatchObject({ status: 'queued', scheduled_for: null, sent_at: null });
    expect((await mailbox()).filter((m) => m.to.includes(to))).toHaveLength(0);

    const raised = await admin.console('PATCH', `sending-accounts/${t.ea.id}/`, { daily_limit: 5 });
    expect(raised.status).toBe(200);
    await settle();
    const sent = (await reply(t.client.typed.GET('/api/public/v1/emails/{id}/', { params: { path: { id: r.body.id } } }))).body;
    expect(sent.status).toBe('sent');
    expect(sent.scheduled_for).not.toBeNull();
    expect((await mailbox()).filter((m) => m.to.includes(to))).toHaveLength(1);
  });

  test('still 409 when no account is connected and sending-enabled', async () => {
    const t = await sender({}, { daily_limit: 0, sending_enabled: false });
    const r = await reply(t.client.typed.POST('/api/public/v1/emails/', { body: emailBody({ email: recipient() }) }));
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe('conflict');
  });
});

describe('4. the console contract (docs/decisions.md#console-api)', () => {
  test('PATCH accounts/{id}/: every field, defaults, answered and read back', async () => {
    const created = await admin.console('POST', 'accounts/', { name: 'Before' });
    expect(created.body).toMatchObject({ attachments_enabled: false, followup_days: [3, 7, 14] });
    const id = created.body.id;
    const patch = { name: 'After', agentic_search: true, auto_recharge: true, attachments_enabled: true, followup_days: [2, 5, 10] };
    const r = await admin.console('PATCH', `accounts/${id}/`, patch);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ...created.body, ...patch });
    expect((await admin.console('GET', `accounts/${id}/`)).body).toEqual(r.body);
    expect((await admin.console('PATCH', 'accounts/acct_00000000000000000000000000/', { name: 'x' })).status).toBe(404);
  });

  test('PATCH accounts/{id}/ validation: 400 invalid_request', async () => {
    const id = (await admin.console('POST', 'accounts/', { name: 'V' })).body.id;
    for (const bad of [{}, { balance: 5 }, { name: '' }, { pilot: 'yes' }, { followup_days: [3, 7] }, { followup_days: [3, 7, 14, 21] }, { followup_days: [0, 7, 14] }, { followup_days: [3, 7, 61] }, { followup_days: [3, 7.5, 14] }]) {
      const r = await admin.console('PATCH', `accounts/${id}/`, bad);
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('invalid_request');
    }
  });

  test('public_api false: the account’s keys get 403 permission_denied; true again restores them', async () => {
    const t = await sender();
    expect((await admin.console('PATCH', `accounts/${t.accountId}/`, { public_api: false })).body.public_api).toBe(false);
    const denied = await reply(t.client.typed.GET('/api/public/v1/email/accounts/'));
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('permission_denied');
    await admin.console('PATCH', `accounts/${t.accountId}/`, { public_api: true });
    expect((await reply(t.client.typed.GET('/api/public/v1/email/accounts/'))).status).toBe(200);
  });

  test('pilot through PATCH respects PILOT_ACCOUNT_LIMIT both ways', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await admin.console('POST', 'accounts/', { name: `pilot-${i}` })).body.id);
    for (const id of ids.slice(0, 3)) expect((await admin.console('PATCH', `accounts/${id}/`, { pilot: true })).status).toBe(200);
    expect((await admin.console('PATCH', `accounts/${ids[0]}/`, { pilot: true })).status).toBe(200); // already a pilot: takes no place
    const fourth = await admin.console('PATCH', `accounts/${ids[3]}/`, { pilot: true, name: 'not applied' });
    expect(fourth.status).toBe(409);
    expect(fourth.body.error.code).toBe('conflict');
    expect((await admin.console('GET', `accounts/${ids[3]}/`)).body).toMatchObject({ pilot: false, name: 'pilot-3' });
    expect((await admin.console('PATCH', `accounts/${ids[1]}/`, { pilot: false })).body.pilot).toBe(false);
    expect((await admin.console('PATCH', `accounts/${ids[3]}/`, { pilot: true })).body.pilot).toBe(true);
    expect((await admin.console('POST', 'accounts/', { name: 'fifth', pilot: true })).status).toBe(409);
  });

  test('PATCH sending-accounts/{ea_id}/ signature_html: sanitised, at most 10,000 characters', async () => {
    const t = await sender();
    const r = await admin.console('PATCH', `sending-accounts/${t.ea.id}/`, { signature_html: '<p>Jane <b>Doe</b><script>alert(1)</script><img src=x onerror=alert(1)></p>' });
    expect(r.status).toBe(200);
    expect(r.body.signature_html).toBe('<p>Jane <b>Doe</b></p>');
    expect(r.body.id).toBe(t.ea.id);
    const long = await admin.console('PATCH', `sending-accounts/${t.ea.id}/`, { signature_html: `<p>${'x'.repeat(9_994)}</p>` });
    expect(long.status).toBe(400);
    expect(long.body.error.code).toBe('invalid_request');
  });
});

describe('5. smaller gaps', () => {
  test('instructions come back exactly as supplied; bounds apply to the raw string', async () => {
    const t = await sender();
    const instructions = '  Keep it short: introduce the platform.\n';
    const r = await reply(t.client.typed.POST('/api/public/v1/emails/', { body: emailBody({ email: recipient() }, { instructions }) }));
    expect(r.status).toBe(202);
    expect((await reply(t.client.typed.GET('/api/public/v1/emails/{id}/', { params: { path: { id: r.body.id } } }))).body.instructions).toBe(instructions);
    for (const bad of [` ${'x'.repeat(1999)} `, '   \n ']) {
      const rejected = await reply(t.client.typed.POST('/api/public/v1/emails/', { body: emailBody({ email: recipient() }, { instructions: bad }) }));
      expect(rejected.status).toBe(400);
    }
  });

  test('search query: at most 500 characters as sent — 510 with surrounding spaces is 400', async () => {
    const t = await newTenant(stack, {}, { webhookSecret: true });
    const query = `${' '.repeat(5)}VP of Sales at fintech companies in the US${' '.repeat(5)}`.padEnd(510, ' ');
    expect(query.length).toBe(510);
    const r = await reply(t.client.typed.POST('/api/public/v1/search/', { body: { query, max_results: 25, webhook_url: 'https://hooks.example/x' } }));
    expect(r.status).toBe(400);
    expect(r.body.error.details.map((d: { path: string }) => d.path)).toContain('query');
  });

  test('GET /emails/ is newest first by created_at, even for concurrent creates', async () => {
    const t = await sender();
    const created = await Promise.all(Array.from({ length: 16 }, () => reply(t.client.typed.POST('/api/public/v1/emails/', { body: emailBody({ email: recipient() }) }))));
    expect(created.every((r) => r.status === 202)).toBe(true);
    const list = (await reply(t.client.typed.GET('/api/public/v1/emails/'))).body.results as { id: string; created_at: string }[];
    expect(list).toHaveLength(16);
    const times = list.map((e) => e.created_at);
    expect(times).toEqual([...times].sort().reverse());
    const byCreate = new Map(created.map((r) => [r.body.id, r.body.created_at]));
    for (const e of list) expect(e.created_at).toBe(byCreate.get(e.id));
  });

  test('a create refused for credits (402) makes no lead; an accepted one does', async () => {
    const poor = await sender({ credits: 1 });
    const to = recipient();
    const r = await reply(poor.client.typed.POST('/api/public/v1/emails/', { body: emailBody({ email: to }) }));
    expect(r.status).toBe(402);
    expect(r.body.error.code).toBe('insufficient_credits');
    expect(await getLead(poor.accountId, to)).toBeNull();
    await admin.console('POST', `accounts/${poor.accountId}/credits/`, { amount: 10 });
    expect((await reply(poor.client.typed.POST('/api/public/v1/emails/', { body: emailBody({ email: to }) }))).status).toBe(202);
    expect(await getLead(poor.accountId, to)).toMatchObject({ email: to, first_name: 'Jane' });
  });

  test('since accepts any ISO 8601 form: date only, no offset (UTC), an offset, basic form', async () => {
    const t = await sender();
    const first = (await reply(t.client.typed.POST('/api/public/v1/emails/', { body: emailBody({ email: recipient() }) }))).body;
    const second = (await reply(t.client.typed.POST('/api/public/v1/emails/', { body: emailBody({ email: recipient() }) }))).body;
    const count = async (since: string) => {
      const r = await reply(t.client.typed.GET('/api/public/v1/emails/', { params: { query: { since: since } } }));
      expect(r.status).toBe(200);
      return r.body.count as number;
    };
    const day = first.created_at.slice(0, 10);
    const nextDay = new Date(Date.parse(`${day}T00:00:00Z`) + 86400_000).toISOString().slice(0, 10);
    expect(await count(day)).toBe(2);
    expect(await count(nextDay)).toBe(0);
    expect(await count(day.replaceAll('-', ''))).toBe(2);
    const afterFirst = new Date(Date.parse(first.created_at) + 1).toISOString();
    expect(await count(afterFirst.replace('Z', ''))).toBe(second.created_at > first.created_at ? 1 : 0);
    const plusTwo = new Date(Date.parse(first.created_at) + 2 * 3600_000).toISOString().replace('Z', '+02:00');
    expect(await count(plusTwo)).toBe(2);
    expect((await reply(t.client.typed.GET('/api/public/v1/emails/', { params: { query: { since: 'yesterday' } } }))).status).toBe(400);
    expect((await reply(t.client.typed.GET('/api/public/v1/emails/', { params: { query: { since: '2026-02-30' } } }))).status).toBe(400);
  });

  test('identity shapes: names pair up only when names are the shape in use', async () => {
    const t = await newTenant(stack, {}, { webhookSecret: true });
    const p = people.find((x) => x.work_email)!;
    const withUrl = await reply(t.client.typed.POST('/api/public/v1/enrich/email/', { body: { professional_url: p.professional_url, first_name: p.first_name } }));
    expect(withUrl.status).toBe(200);
    expect(withUrl.body).toEqual({ email: p.work_email, email_status: 'unknown', email_status_reason: 'unverified' });
    expect((await reply(t.client.typed.POST('/api/public/v1/enrich/email/', { body: { first_name: p.first_name, domain: 'acme.test' } }))).status).toBe(400);
    const phone = await reply(t.client.typed.POST('/api/public/v1/enrich/phone/', { body: { professional_url: p.professional_url, last_name: p.last_name, webhook_url: receiver.url } }));
    expect(phone.status).toBe(202);
    await settle();
    expect((await t.client.api('POST', 'enrich/professional-url/', { email: p.work_email, first_name: p.first_name })).status).toBe(400);
  });
});

describe('issue 31: agentic search for an account not enrolled is 404 before its body is judged (docs/decisions.md#agentic-search)', () => {
  test('invalid, malformed and valid bodies all get 404 not_found and leave no audit record; enrolled, the invalid one is 400 and audited', async () => {
    const t = await newTenant(stack, { agentic_search: false }, { webhookSecret: true });
    const bodies: unknown[] = [{ query: '', webhook_url: receiver.url }, { max_credits: 1 }, '{"query":', { query: 'platform engineers at robotics start-ups', webhook_url: receiver.url }];
    for (const body of bodies) {
      const r = await t.client.api('POST', 'agentic-search/', body);
      expect([r.status, r.body.error?.code]).toEqual([404, 'not_found']);
    }
    expect(await charges(t.accountId)).toEqual([]);
    expect(await balance(t.accountId)).toBe(1250);
    // The same invalid body once enrolled: the route exists, so 400 with its released audit record.
    expect((await admin.console('PATCH', `accounts/${t.accountId}/`, { agentic_search: true })).status).toBe(200);
    const invalid = await t.client.api('POST', 'agentic-search/', bodies[0]);
    expect(invalid.status).toBe(400);
    expect(await charges(t.accountId)).toEqual([expect.objectContaining({ operation: 'agentic_search', charge_status: 'released', reserved: 0, charged: 0 })]);
  });
});
