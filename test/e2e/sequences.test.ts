import { dsnReport } from '../support/mail-reports.js';
import type { LocalStack } from '../../shared/local/stack.js';
import { startServices } from '../../shared/local/services.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, ROOT, newTenant, startTestStack, reply, type RequestBody } from '../support/local.js';

/** Whole cadences on a loaded machine: generous. */
const LONG = 300_000;

let stack: LocalStack;
let admin: Client;
const dir = mkdtempSync(join(tmpdir(), 'sequences-'));

beforeAll(async () => {
  stack = await startTestStack({ throttleMultiplier: 1000 });
  await startServices({ root: ROOT, stack, dataDir: null, directory: { file: join(dir, 'd.jsonl'), people: 200, seed: 5 } });
  admin = new Client(stack);
}, 120_000);
afterAll(async () => {
  await stack?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const settle = async () => expect((await admin.console('POST', 'dev/settle/')).body).toEqual({ idle: true });
const advance = async (seconds: number) => new Date((await admin.console('POST', 'dev/clock/', { advance_seconds: seconds })).body.now as string);
const mailbox = async () => (await admin.console('GET', 'dev/mailbox/')).body.messages as any[];
const balance = async (id: string) => (await admin.console('GET', `accounts/${id}/`)).body.balance as number;
const charges = async (id: string) => (await admin.console('GET', `accounts/${id}/charges/`)).body.results as any[];
const schedules = () => stack.scheduler.pending().map((s) => s.Name);

let n = 0;
const address = () => `contact${++n}.${Date.now()}@prospect.test`;
const contact = (email = address(), extra: Record<string, unknown> = {}) => ({ email, first_name: 'Jane', last_name: 'Doe', company_name: 'Acme Robotics', ...extra });
const INSTRUCTIONS = 'Introduce our warehouse automation platform and ask for a 15-minute call.';

async function tenant(sender: Record<string, unknown> = {}, account: Record<string, unknown> = {}) {
  const t = await newTenant(stack, account);
  const ea = await admin.console('POST', `accounts/${t.accountId}/sending-accounts/`, { email: `rep${++n}@seller.test`, type: 'google', ...sender });
  return { ...t, ea: ea.body };
}
type Tenant = Awaited<ReturnType<typeof tenant>>;

async function created(t: Tenant, body: Partial<RequestBody<'post_sequences'>>) {
  const r = await reply(t.client.typed.POST('/api/public/v1/sequences/', { body: { instructions: INSTRUCTIONS, ...body } as RequestBody<'post_sequences'> }));
  expect(r.status).toBe(202);
  await settle();
  return r.body;
}
const read = async (t: Tenant, id: string) => (await reply(t.client.typed.GET('/api/public/v1/sequences/{id}/', { params: { path: { id } } }))).body;
const enrollmentOf = (s: any, email: string) => s.enrollments.find((e: any) => e.contact.email === email);

/** Move the service clock in steps of at most a day, settling after each, until `done` holds. */
async function until(done: () => Promise<boolean>, maxDays = 30): Promise<void> {
  for (let i = 0; i < maxDays * 2; i++) {
    if (await done()) return;
    await advance(12 * 3600);
    await settle();
  }
  throw new Error('condition not reached on the service clock');
}

function localParts(iso: string, timeZone: string) {
  const parts = new Intl.DateTimeFormat('en-GB', { timeZone, weekday: 'short', hour: '2-digit', minute: '2-digit', hour12: false }).formatToParts(new Date(iso));
  const get = (type: string) => parts.find((p) => p.type === type)!.value;
  return { weekday: get('weekday'), hour: Number(get('hour')) };
}

// The public API is called through the typed client; `client.api` remains where a test sends what the
// document does not allow (invalid bodies) or loops over several routes with paths built at run time.
describe('a whole cadence', () => {
  test('create → drafts of every step → approve → step 0 → follow-ups 3 and 7 days after the actual sends, in one thread; completed', async () => {
    const t = await tenant({ timezone: 'America/New_York' });
    const [a, b] = [address(), address()];
    const r = await reply(t.client.typed.POST('/api/public/v1/sequences/', { body: { instructions: INSTRUCTIONS, name: 'Q4 robotics', contacts: [contact(a), contact(b)], steps: 3 } }));
    expect(r.status).toBe(202);
    expect(r.body).toEqual({ id: expect.stringMatching(/^sq_[0-9a-z]{26}$/), name: 'Q4 robotics', status: 'drafting', created_at: expect.any(String), contacts_accepted: 2, contacts_rejected: [], total_emails: 6, drafted: 0 });
    expect(await balance(t.accountId)).toBe(1250 - 12);
    await settle();

    let s = await read(t, r.body.id);
    expect(s).toMatchObject({ id: r.body.id, name: 'Q4 robotics', status: 'pending_review', instructions: INSTRUCTIONS, total_emails: 6, drafted: 6, failed: 0 });
    expect(s.enrollments).toHaveLength(2);
    const steps = enrollmentOf(s, a).emails;
    expect(steps.map((e: any) => [e.step, e.status])).toEqual([[0, 'pending_review'], [1, 'pending_review'], [2, 'pending_review']]);
    // Each step shows its enrollment's review window (7 days from the enrollment's last draft), as GET /emails/{id}/ does.
    expect(new Set(steps.map((e: any) => e.review_expires_at)).size).toBe(1);
    expect(Date.parse(steps[0].review_expires_at)).toBeGreaterThan(Date.now() + 6 * 86400_000);
    expect((await reply(t.client.typed.GET('/api/public/v1/emails/{id}/', { params: { path: { id: steps[1].id } } }))).body.review_expires_at).toBe(steps[0].review_expires_at);
    expect(steps[1].subject).toBe(`Re: ${steps[0].subject}`);
    expect(steps[1].body_plain.length).toBeLessThan(steps[0].body_plain.length);
    expect(enrollmentOf(s, a).status).toBe('pending_review');
    expect((await charges(t.accountId)).find((c) => c.reference === r.body.id)).toMatchObject({ operation: 'sequence', reserved: 12, charged: 12, charge_status: 'charged' });
    expect(await balance(t.accountId)).toBe(1238);

    // A step is a regular email: readable and editable while pending_review; approving it alone is the sequence's job.
    const edited = await reply(t.client.typed.PATCH('/api/public/v1/emails/{id}/', { params: { path: { id: steps[2].id } }, body: { subject: 'One last note' } }));
    expect(edited.status).toBe(200);
    // The enrollment's review window (one for all its steps) moves to 7 days from the edit, on every step.
    expect(edited.body).toMatchObject({ step: 2, subject: 'One last note' });
    expect(Date.parse(edited.body.review_expires_at!)).toBeGreaterThan(Date.parse(steps[2].review_expires_at));
    expect(enrollmentOf(await read(t, r.body.id), a).emails.map((e: any) => e.review_expires_at)).toEqual([edited.body.review_expires_at, edited.body.review_expires_at, edited.body.review_expires_at]);
    expect((await reply(t.client.typed.POST('/api/public/v1/emails/{id}/approve/', { params: { path: { id: steps[0].id } }, body: {} }))).status).toBe(409);

    const approved = await reply(t.client.typed.POST('/api/public/v1/sequences/{id}/approve/', { params: { path: { id: r.body.id } } }));
    expect(approved.status).toBe(200);
    expect(approved.body.status).toBe('active');
    const first = enrollmentOf(approved.body, a).emails[0];
    expect(first.status).toBe('queued');
    expect(enrollmentOf(approved.body, a).emails.map((e: any) => e.review_expires_at)).toEqual([null, null, null]);
    const at = localParts(first.scheduled_for, 'America/New_York');
    expect(['Sat', 'Sun']).not.toContain(at.weekday);
    expect(at.hour).toBeGreaterThanOrEqual(9);
    expect(at.hour).toBeLessThan(11);
    expect(enrollmentOf(approved.body, a).emails[1]).toMatchObject({ status: 'queued', scheduled_for: null });
    expect((await reply(t.client.typed.POST('/api/public/v1/sequences/{id}/approve/', { params: { path: { id: r.body.id } } }))).status).toBe(200);

    await until(async () => enrollmentOf(await read(t, r.body.id), a).emails[0].status === 'sent');
    s = await read(t, r.body.id);
    const [sent0, queued1] = enrollmentOf(s, a).emails;
    expect(queued1.status).toBe('queued');
    const gap1 = new Date(queued1.scheduled_for).getTime() - new Date(sent0.sent_at).getTime();
    expect(gap1).toBeGreaterThanOrEqual(3 * 86400_000 - 60_000);
    expect(gap1).toBeLessThan(6 * 86400_000);
    const f1 = localParts(queued1.scheduled_for, 'America/New_York');
    expect(['Sat', 'Sun']).not.toContain(f1.weekday);
    expect(f1.hour).toBeGreaterThanOrEqual(9);
    expect(f1.hour).toBeLessThan(17);
    expect(schedules()).toContain(`send.${queued1.id}`);

    await until(async () => enrollmentOf(await read(t, r.body.id), a).emails[2].status === 'sent');
    s = await read(t, r.body.id);
    const sentSteps = enrollmentOf(s, a).emails;
    expect(new Date(sentSteps[2].sent_at).getTime() - new Date(sentSteps[1].sent_at).getTime()).toBeGreaterThanOrEqual(7 * 86400_000 - 60_000);
    const mails = (await mailbox()).filter((m) => m.to.includes(a));
    expect(mails).toHaveLength(3);
    const [m0, m1, m2] = [sentSteps[0], sentSteps[1], sentSteps[2]].map((e: any) => mails.find((m) => m.subject === e.subject));
    expect(m2.subject).toBe('One last note');
    expect(m1.headers['in-reply-to']).toBe(m0.message_id);
    expect(m2.headers['in-reply-to']).toBe(m1.message_id);
    expect(m2.headers.references).toContain(m0.message_id);
    expect(m2.headers.references).toContain(m1.message_id);

    await until(async () => (await read(t, r.body.id)).status === 'completed');
    s = await read(t, r.body.id);
    expect(s.enrollments.map((e: any) => e.status)).toEqual(['completed', 'completed']);
    expect(await balance(t.accountId)).toBe(1238);
  }, LONG);
});

describe('stopping', () => {
  test('a reply stops that contact (steps cancelled, schedules gone); an auto-reply and a cc reply do not; a bounce does', async () => {
    const t = await tenant();
    const [replier, ooo, bouncer] = [address(), address(), address()];
    const s0 = await created(t, { contacts: [contact(replier), contact(ooo), contact(bouncer)], steps: 3, review: 'none', cc: ['colleague@prospect.test'] });
    expect((await read(t, s0.id)).status).toBe('active');
    await until(async () => (await read(t, s0.id)).enrollments.every((e: any) => e.emails[0].status === 'sent'));
    const s = await read(t, s0.id);
    const mails = await mailbox();
    const messageOf = (to: string) => mails.find((m) => m.to.includes(to))!.message_id;

    const cc = await admin.console('POST', 'dev/inbound/', { from: 'colleague@prospect.test', to: t.ea.email, subject: 'Re: x', text: 'Adding my thoughts', in_reply_to: messageOf(ooo) });
    expect(cc.body).toMatchObject({ classification: 'reply', counted_as_lead_reply: false });
    const auto = await admin.console('POST', 'dev/inbound/', { from: ooo, to: t.ea.email, subject: 'Automatic reply: Out of Office', text: 'I am currently out of the office.', in_reply_to: messageOf(ooo), headers: { 'Auto-Submitted': 'auto-replied' } });
    expect(auto.body.classification).toBe('auto_reply');
    const inbound = await admin.console('POST', 'dev/inbound/', { from: `Jane Doe <${replier}>`, to: t.ea.email, subject: 'Re: hello', text: 'Interested, call me Tuesday.', in_reply_to: messageOf(replier) });
    expect(inbound.body).toMatchObject({ classification: 'reply', counted_as_lead_reply: true });
    const bounce = await admin.console('POST', 'dev/inbound/', { mailbox: t.ea.email, raw: dsnReport({ mailbox: t.ea.email, recipient: bouncer, originalId: messageOf(bouncer) }) });
    expect(bounce.body.classification).toBe('bounce');

    const after = await read(t, s0.id);
    expect(enrollmentOf(after, replier).status).toBe('replied');
    expect(enrollmentOf(after, bouncer).status).toBe('bounced');
    expect(enrollmentOf(after, ooo).status).toBe('active');
    for (const who of [replier, bouncer]) {
      const later = enrollmentOf(after, who).emails.slice(1);
      expect(later.map((e: any) => e.status)).toEqual(['cancelled', 'cancelled']);
      for (const e of later) expect(schedules()).not.toContain(`send.${e.id}`);
    }
    expect(enrollmentOf(after, replier).emails[1].error.code).toBe('recipient_replied');
    expect(schedules()).toContain(`send.${enrollmentOf(after, ooo).emails[1].id}`);

    const replies = (await reply(t.client.typed.GET('/api/public/v1/sequences/{id}/replies/', { params: { path: { id: s0.id } } }))).body.replies;
    expect(replies.map((r: any) => r.classification).sort()).toEqual(['auto_reply', 'bounce', 'reply', 'reply']);
    expect(replies.find((r: any) => r.from_email === replier)).toEqual({
      email_id: enrollmentOf(s, replier).emails[0].id,
      from_email: replier,
      from_name: 'Jane Doe',
      subject: 'Re: hello',
      body_plain: 'Interested, call me Tuesday.',
      classification: 'reply',
      received_at: expect.any(String),
    });

    await until(async () => enrollmentOf(await read(t, s0.id), ooo).status === 'completed');
    expect((await mailbox()).filter((m) => m.to.includes(replier) || m.to.includes(bouncer))).toHaveLength(2);
    expect((await read(t, s0.id)).status).toBe('completed');
  }, LONG);
});

describe('cancel and add contacts', () => {
  test('cancel mid-way: sent steps stay, nothing later goes out, schedules gone, no refund; 409 afterwards', async () => {
    const t = await tenant();
    const who = address();
    const s0 = await created(t, { contacts: [contact(who)], steps: 3, review: 'none' });
    await until(async () => enrollmentOf(await read(t, s0.id), who).emails[0].status === 'sent');
    const before = await balance(t.accountId);
    const c = await reply(t.client.typed.POST('/api/public/v1/sequences/{id}/cancel/', { params: { path: { id: s0.id } } }));
    expect(c.status).toBe(200);
    expect(c.body.status).toBe('cancelled');
    const e = enrollmentOf(c.body, who);
    expect(e.status).toBe('cancelled');
    expect(e.emails.map((m: any) => m.status)).toEqual(['sent', 'cancelled', 'cancelled']);
    for (const m of e.emails) expect(schedules()).not.toContain(`send.${m.id}`);
    await advance(30 * 86400);
    await settle();
    expect((await mailbox()).filter((m) => m.to.includes(who))).toHaveLength(1);
    expect(await balance(t.accountId)).toBe(before);
    expect((await reply(t.client.typed.POST('/api/public/v1/sequences/{id}/cancel/', { params: { path: { id: s0.id } } }))).status).toBe(409);
    expect((await reply(t.client.typed.POST('/api/public/v1/sequences/{id}/approve/', { params: { path: { id: s0.id } } }))).status).toBe(409);
    expect((await reply(t.client.typed.POST('/api/public/v1/sequences/{id}/contacts/', { params: { path: { id: s0.id } }, body: { contacts: [contact()] } }))).status).toBe(409);
  }, LONG);

  test('add contacts to an active sequence: already_enrolled rejected, new ones on their own clock, approve activates only them', async () => {
    const t = await tenant();
    const [first, second] = [address(), address()];
    const s0 = await created(t, { contacts: [contact(first)], steps: 2 });
    await reply(t.client.typed.POST('/api/public/v1/sequences/{id}/approve/', { params: { path: { id: s0.id } } }));
    await until(async () => enrollmentOf(await read(t, s0.id), first).emails[0].status === 'sent');
    const add = await reply(t.client.typed.POST('/api/public/v1/sequences/{id}/contacts/', { params: { path: { id: s0.id } }, body: { contacts: [contact(first), contact(second)] } }));
    expect(add.status).toBe(202);
    expect(add.body).toEqual({ id: s0.id, name: null, status: 'drafting', contacts_accepted: 1, contacts_rejected: [{ contact: contact(first), reason: 'already_enrolled' }], emails_added: 2 });
    expect((await reply(t.client.typed.POST('/api/public/v1/sequences/{id}/contacts/', { params: { path: { id: s0.id } }, body: { contacts: [contact()] } }))).status).toBe(409);
    expect((await reply(t.client.typed.POST('/api/public/v1/sequences/{id}/approve/', { params: { path: { id: s0.id } } }))).status).toBe(409);
    await settle();
    let s = await read(t, s0.id);
    expect(s.status).toBe('active');
    expect(enrollmentOf(s, second).status).toBe('pending_review');
    expect(enrollmentOf(s, first).emails[1].status).toBe('queued');
    const approved = (await reply(t.client.typed.POST('/api/public/v1/sequences/{id}/approve/', { params: { path: { id: s0.id } } }))).body;
    expect(enrollmentOf(approved, second).status).toBe('active');
    expect(enrollmentOf(approved, second).emails[0].scheduled_for).not.toBeNull();
    await until(async () => (await read(t, s0.id)).status === 'completed');
    s = await read(t, s0.id);
    expect(s.total_emails).toBe(4);
    const sequenceCharges = (await charges(t.accountId)).filter((c) => c.reference === s0.id);
    // One reservation per pass (newest first), each settled in full: every draft succeeded.
    expect(sequenceCharges.map((c) => [c.operation, c.reserved, c.charged, c.charge_status])).toEqual([
      ['sequence', 4, 4, 'charged'],
      ['sequence', 4, 4, 'charged'],
    ]);
  }, LONG);
});

describe('rules', () => {
  test('eligibility: every reason reported per contact; none eligible is 400 and costs nothing', async () => {
    const t = await tenant();
    const busy = address();
    await created(t, { contacts: [contact(busy)], steps: 1 });
    // Two single emails sent now: one recipient is then recently contacted, the other unsubscribes through its link.
    const [recent, unsubscribed] = [address(), address()];
    for (const to of [recent, unsubscribed]) {
      const single = await reply(t.client.typed.POST('/api/public/v1/emails/', { body: { to: contact(to), instructions: INSTRUCTIONS } }));
      await settle();
      expect((await reply(t.client.typed.POST('/api/public/v1/emails/{id}/approve/', { params: { path: { id: single.body.id } }, body: { schedule: 'now' } }))).status).toBe(200);
    }
    await settle();
    const link = (await mailbox()).find((m) => m.to.includes(unsubscribed)).headers['list-unsubscribe'] as string;
    const token = /\/u\/([A-Za-z0-9_-]{32})\//.exec(link)![1];
    expect((await reply(t.client.typed.POST('/api/public/v1/u/{token}/', { params: { path: { token } } }))).status).toBeLessThan(400);
    const good = address();
    const bare = { email: address(), first_name: 'Bo' };
    // Invalid contacts on purpose (the document describes valid ones): the untyped call.
    const r = await t.client.api('POST', 'sequences/', {
      instructions: INSTRUCTIONS,
      steps: 2,
      contacts: [contact(good), { email: 'not-an-email', first_name: 'X' }, { email: address() }, contact(busy), contact(recent), bare, contact(good), contact(unsubscribed)],
    });
    expect(r.status).toBe(202);
    expect(r.body.contacts_accepted).toBe(1);
    expect(r.body.total_emails).toBe(2);
    expect(r.body.contacts_rejected.map((x: any) => x.reason)).toEqual(['invalid_contact', 'invalid_contact', 'already_in_automation', 'recently_contacted', 'not_enriched', 'invalid_contact', 'invalid_contact']);
    expect(r.body.contacts_rejected[0].contact).toEqual({ email: 'not-an-email', first_name: 'X' });

    const before = await balance(t.accountId);
    const none = await reply(t.client.typed.POST('/api/public/v1/sequences/', { body: { instructions: INSTRUCTIONS, contacts: [contact(busy), bare] } }));
    expect(none.status).toBe(400);
    expect(none.body.error.code).toBe('invalid_request');
    expect(await balance(t.accountId)).toBe(before);
  }, LONG);

  test('409 without a connected google or microsoft account, and for an smtp from_account; 400 for bad fields', async () => {
    const smtpOnly = await tenant({ type: 'smtp' });
    const conflict = await reply(smtpOnly.client.typed.POST('/api/public/v1/sequences/', { body: { instructions: INSTRUCTIONS, contacts: [contact()] } }));
    expect([conflict.status, conflict.body.error.code]).toEqual([409, 'conflict']);
    const t = await tenant();
    const smtp = await admin.console('POST', `accounts/${t.accountId}/sending-accounts/`, { email: `smtp${++n}@seller.test`, type: 'smtp' });
    expect((await reply(t.client.typed.POST('/api/public/v1/sequences/', { body: { instructions: INSTRUCTIONS, contacts: [contact()], from_account: smtp.body.id } }))).status).toBe(409);
    const disconnected = await tenant({ connected: false });
    expect((await reply(disconnected.client.typed.POST('/api/public/v1/sequences/', { body: { instructions: INSTRUCTIONS, contacts: [contact()] } }))).status).toBe(409);
    const base = { instructions: INSTRUCTIONS, contacts: [contact()] };
    for (const bad of [
      { ...base, steps: 0 },
      { ...base, steps: 5 },
      { ...base, contacts: [] },
      { ...base, contacts: Array.from({ length: 101 }, () => contact()) },
      { ...base, name: 'x'.repeat(201) },
      { ...base, instructions: 'x'.repeat(2001) },
      { ...base, cc: ['a@x.test', 'b@x.test', 'c@x.test', 'd@x.test'] },
      { ...base, reply_to: 'stranger@elsewhere.test' },
      { ...base, from_account: 'ea_00000000000000000000000000' },
      { ...base, review: 'later' },
    ]) {
      const r = await t.client.api('POST', 'sequences/', bad);
      expect([r.status, r.body.error?.code]).toEqual([400, 'invalid_request']);
    }
    expect(await balance(t.accountId)).toBe(1250);
  }, LONG);

  test('failed drafts are released: a sequence whose every draft fails is failed and costs nothing', async () => {
    const t = await tenant();
    const s0 = await created(t, { contacts: [contact(), contact()], steps: 2, instructions: 'Say hello [[fail-draft]]' });
    const s = await read(t, s0.id);
    expect(s.status).toBe('failed');
    expect(s.failed).toBe(4);
    expect(s.enrollments.map((e: any) => e.status)).toEqual(['failed', 'failed']);
    expect(await balance(t.accountId)).toBe(1250);
    expect((await charges(t.accountId)).find((c) => c.reference === s0.id)).toMatchObject({ reserved: 8, charged: 0, charge_status: 'released' });
    expect((await reply(t.client.typed.POST('/api/public/v1/sequences/{id}/contacts/', { params: { path: { id: s0.id } }, body: { contacts: [contact()] } }))).status).toBe(409);
  }, LONG);

  test('cancel while drafting settles what was drafted (charged) and releases the rest', async () => {
    const t = await tenant();
    const r = await reply(t.client.typed.POST('/api/public/v1/sequences/', { body: { instructions: INSTRUCTIONS, contacts: Array.from({ length: 6 }, () => contact()), steps: 3 } }));
    const c = await reply(t.client.typed.POST('/api/public/v1/sequences/{id}/cancel/', { params: { path: { id: r.body.id } } }));
    expect(c.status).toBe(200);
    expect(c.body.status).toBe('cancelled');
    await settle();
    const s = await read(t, r.body.id);
    const drafted = s.drafted as number;
    const charge = (await charges(t.accountId)).find((x) => x.reference === r.body.id);
    expect(charge).toMatchObject({ reserved: 36, charged: 2 * drafted });
    expect(await balance(t.accountId)).toBe(1250 - 2 * drafted);
    expect(s.enrollments.every((e: any) => e.emails.every((m: any) => ['cancelled', 'failed'].includes(m.status)))).toBe(true);
  }, LONG);

  test('tenant isolation and ids: every sq_ route is 404 for another account and for a malformed id', async () => {
    const owner = await tenant();
    const s0 = await created(owner, { contacts: [contact()], steps: 1 });
    const other = await tenant();
    const routes: [string, string, unknown?][] = [
      ['GET', `sequences/${s0.id}/`],
      ['POST', `sequences/${s0.id}/contacts/`, { contacts: [contact()] }],
      ['POST', `sequences/${s0.id}/approve/`],
      ['POST', `sequences/${s0.id}/cancel/`],
      ['GET', `sequences/${s0.id}/replies/`],
    ];
    for (const [method, path, body] of routes) {
      const r = await other.client.api(method, path, body);
      expect([r.status, r.body.error.code]).toEqual([404, 'not_found']);
      const malformed = await owner.client.api(method, path.replace(s0.id, 'sq_NOT-A-ULID'), body);
      expect(malformed.status).toBe(404);
    }
    expect((await read(owner, s0.id)).status).toBe('pending_review');
    expect((await reply(other.client.typed.GET('/api/public/v1/sequences/'))).body.count).toBe(0);
  }, LONG);

  test('list: newest first, paged, without enrollments', async () => {
    const t = await tenant();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await created(t, { contacts: [contact()], steps: 1, name: `s${i}` })).id);
    const page1 = (await reply(t.client.typed.GET('/api/public/v1/sequences/', { params: { query: { page_size: 2 } } }))).body;
    expect(page1).toMatchObject({ count: 3, page: 1, page_size: 2, total_pages: 2 });
    expect(page1.results.map((s: any) => s.id)).toEqual([ids[2], ids[1]]);
    expect(page1.results[0]).toEqual({ id: ids[2], name: 's2', status: 'pending_review', created_at: expect.any(String), instructions: INSTRUCTIONS, total_emails: 1, drafted: 1 });
    const page2 = (await reply(t.client.typed.GET('/api/public/v1/sequences/', { params: { query: { page: 2, page_size: 2 } } }))).body;
    expect(page2.results.map((s: any) => s.id)).toEqual([ids[0]]);
    expect((await reply(t.client.typed.GET('/api/public/v1/sequences/', { params: { query: { page_size: 201 } } }))).status).toBe(400);
  }, LONG);

  test('the read pages its enrollments: page_size, next_cursor to the end, each once and in order; bad page_size or cursor 400; a cursor reads nothing of another sequence or account', async () => {
    const t = await tenant();
    const emails = Array.from({ length: 5 }, () => address());
    const s0 = await created(t, { contacts: emails.map((e) => contact(e)), steps: 2 });
    const page = async (query: { page_size?: number; cursor?: string }, id = s0.id, who = t) => reply(who.client.typed.GET('/api/public/v1/sequences/{id}/', { params: { path: { id }, query } }));
    const sizes: number[] = [];
    const seen: string[] = [];
    const cursors: string[] = [];
    let cursor: string | null = null;
    do {
      const r = await page({ page_size: 2, ...(cursor ? { cursor } : {}) });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ id: s0.id, status: 'pending_review', total_emails: 10, drafted: 10, failed: 0 });
      sizes.push(r.body.enrollments.length);
      seen.push(...r.body.enrollments.map((e: any) => e.contact.email));
      expect(r.body.enrollments.every((e: any) => e.emails.length === 2)).toBe(true);
      cursor = r.body.next_cursor;
      if (cursor) cursors.push(cursor);
    } while (cursor);
    expect(sizes).toEqual([2, 2, 1]);
    expect(seen).toEqual(emails);
    const whole = await read(t, s0.id);
    expect([whole.enrollments.map((e: any) => e.contact.email), whole.next_cursor]).toEqual([emails, null]);

    for (const q of ['page_size=0', 'page_size=201', 'page_size=two', 'cursor=', 'cursor=bm90LWEtY3Vyc29y', 'page=2']) {
      const r = await t.client.api('GET', `sequences/${s0.id}/?${q}`);
      expect([q, r.status, r.body.error.code, r.body.error.details?.length > 0]).toEqual([q, 400, 'invalid_request', true]);
    }
    // An altered cursor (another enrolled address under the first one's digest) and one of another sequence: 400.
    const [id, , digest] = JSON.parse(Buffer.from(cursors[0]!, 'base64url').toString('utf8')) as string[];
    const altered = Buffer.from(JSON.stringify([id, emails[3]!.toLowerCase(), digest]), 'utf8').toString('base64url');
    expect((await t.client.api('GET', `sequences/${s0.id}/?cursor=${altered}`)).body.error).toMatchObject({ code: 'invalid_request', details: [{ path: 'cursor', message: expect.any(String) }] });
    const s1 = await created(t, { contacts: [contact(), contact()], steps: 1 });
    expect((await page({ cursor: cursors[0]! }, s1.id)).status).toBe(400);
    // Another account: 404 for the sequence itself, 400 for its cursor on a sequence of its own.
    const other = await tenant();
    const theirs = await created(other, { contacts: [contact(), contact()], steps: 1 });
    expect((await page({ cursor: cursors[0]! }, s0.id, other)).status).toBe(404);
    expect((await page({ cursor: cursors[0]! }, theirs.id, other)).status).toBe(400);
  }, LONG);

  test('the cadence follows the account followup_days set through the console', async () => {
    const t = await tenant();
    expect((await admin.console('PATCH', `accounts/${t.accountId}/`, { followup_days: [1, 2, 3] })).body.followup_days).toEqual([1, 2, 3]);
    // Pinned to the next Thursday 12:00 (UTC, both zones here): step 0's best time is Friday morning, so
    // the follow-up a day after it falls on Saturday and must go to Monday, whatever the real clock says.
    const now = await advance(1);
    const thursdayNoon = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + ((4 - now.getUTCDay() + 7) % 7 || 7), 12));
    await advance((thursdayNoon.getTime() - now.getTime()) / 1000);
    const who = address();
    const s0 = await created(t, { contacts: [contact(who)], steps: 2, review: 'none' });
    await until(async () => enrollmentOf(await read(t, s0.id), who).emails[1].status === 'sent');
    const [a, b] = enrollmentOf(await read(t, s0.id), who).emails;
    expect(localParts(a.sent_at, 'UTC').weekday).toBe('Fri');
    const followUp = localParts(b.scheduled_for, 'UTC');
    expect(followUp.weekday).toBe('Mon');
    expect(followUp.hour).toBeGreaterThanOrEqual(9);
    expect(followUp.hour).toBeLessThan(11);
    // The clock moves in 12-hour steps, so a send happens up to 12 h after its slot: the follow-up's slot,
    // not its sent_at, is what the cadence set from the previous step's actual sent_at.
    const gap = new Date(b.scheduled_for).getTime() - new Date(a.sent_at).getTime();
    expect(gap).toBeGreaterThanOrEqual(86400_000 - 60_000);
    expect(gap).toBeLessThan(4 * 86400_000); // a day later, or the Monday after a Friday
    expect(new Date(b.sent_at).getTime()).toBeGreaterThanOrEqual(new Date(b.scheduled_for).getTime());
  }, LONG);
});

describe('enrollment locks, cancel races, reply_to', () => {
  test('concurrent creates with one contact: exactly one enrolls it, the others report already_in_automation and reserve nothing for it; free again after cancel', async () => {
    const t = await tenant();
    const shared = address();
    const others = [address(), address(), address()];
    const rs = await Promise.all(others.map((o) => reply(t.client.typed.POST('/api/public/v1/sequences/', { body: { instructions: INSTRUCTIONS, contacts: [contact(shared), contact(o)], steps: 1 } }))));
    expect(rs.map((r) => r.status)).toEqual([202, 202, 202]);
    const winners = rs.filter((r) => r.body.contacts_accepted === 2);
    expect(winners).toHaveLength(1);
    for (const r of rs.filter((x) => x !== winners[0])) {
      expect(r.body).toMatchObject({ contacts_accepted: 1, contacts_rejected: [{ contact: contact(shared), reason: 'already_in_automation' }], total_emails: 1 });
    }
    // 2 credits for each email: the winner's two, one for each of the others.
    expect(await balance(t.accountId)).toBe(1250 - 2 * 4);
    await settle();
    const holders = [];
    for (const r of rs) if ((await read(t, r.body.id)).enrollments.some((e: any) => e.contact.email === shared)) holders.push(r.body.id);
    expect(holders).toEqual([winners[0]!.body.id]);

    expect((await reply(t.client.typed.POST('/api/public/v1/sequences/{id}/cancel/', { params: { path: { id: winners[0]!.body.id } } }))).status).toBe(200);
    const again = await reply(t.client.typed.POST('/api/public/v1/sequences/', { body: { instructions: INSTRUCTIONS, contacts: [contact(shared)], steps: 1 } }));
    expect(again.body).toMatchObject({ contacts_accepted: 1, contacts_rejected: [] });
  }, LONG);

  test('cancel while the first enrollments are written and drafted: no step left drafting, pending_review or queued; drafts so far charged; every address free again', async () => {
    const t = await tenant();
    const contacts = Array.from({ length: 40 }, () => contact());
    const creating = reply(t.client.typed.POST('/api/public/v1/sequences/', { body: { instructions: INSTRUCTIONS, contacts, steps: 2 } }));
    let id: string | undefined;
    // The sequence is listed as soon as its reservation is written, while its enrollments are being written.
    for (let i = 0; i < 400 && !id; i++) id = (await reply(t.client.typed.GET('/api/public/v1/sequences/'))).body.results[0]?.id;
    const cancelled = await reply(t.client.typed.POST('/api/public/v1/sequences/{id}/cancel/', { params: { path: { id: id! } } }));
    expect(cancelled.status).toBe(200);
    expect((await creating).status).toBe(202);
    await settle();
    const s = await read(t, id!);
    expect(s.status).toBe('cancelled');
    for (const e of s.enrollments) {
      expect(['cancelled', 'failed']).toContain(e.status);
      for (const m of e.emails) expect(['cancelled', 'failed']).toContain(m.status);
    }
    const drafted = s.drafted as number;
    expect((await charges(t.accountId)).find((c) => c.reference === id)).toMatchObject({ reserved: 160, charged: 2 * drafted, charge_status: drafted > 0 ? 'charged' : 'released' });
    expect(await balance(t.accountId)).toBe(1250 - 2 * drafted);
    const again = await reply(t.client.typed.POST('/api/public/v1/sequences/', { body: { instructions: INSTRUCTIONS, contacts, steps: 1 } }));
    expect(again.body).toMatchObject({ contacts_accepted: 40, contacts_rejected: [] });
  }, LONG);

  test('a reply sent to the reply_to account stops the enrollment like a reply to the sender', async () => {
    const t = await tenant();
    const replies = (await admin.console('POST', `accounts/${t.accountId}/sending-accounts/`, { email: `replies${++n}@seller.test`, type: 'microsoft' })).body;
    const who = address();
    const s0 = await created(t, { contacts: [contact(who)], steps: 2, review: 'none', from_account: t.ea.id, reply_to: replies.email });
    await until(async () => enrollmentOf(await read(t, s0.id), who).emails[0].status === 'sent');
    const sent = (await mailbox()).find((m) => m.to.includes(who));
    expect(sent.headers['reply-to']).toContain(replies.email);
    const inbound = await admin.console('POST', 'dev/inbound/', { from: `Jane Doe <${who}>`, to: replies.email, subject: `Re: ${sent.subject}`, text: 'Happy to talk next week.', in_reply_to: sent.message_id });
    expect(inbound.body).toMatchObject({ classification: 'reply', counted_as_lead_reply: true });
    const e = enrollmentOf(await read(t, s0.id), who);
    expect(e.status).toBe('replied');
    expect(e.emails.map((m: any) => m.status)).toEqual(['replied', 'cancelled']);
    expect(schedules()).not.toContain(`send.${e.emails[1].id}`);
    await advance(30 * 86400);
    await settle();
    expect((await mailbox()).filter((m) => m.to.includes(who))).toHaveLength(1);
  }, LONG);
});
