import { dsnReport } from '../support/mail-reports.js';
import type { LocalStack } from '../../shared/local/stack.js';
import { startServices } from '../../shared/local/services.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, ROOT, newTenant, startTestStack, reply } from '../support/local.js';

let stack: LocalStack;
let admin: Client;
const dir = mkdtempSync(join(tmpdir(), 'outreach-'));

beforeAll(async () => {
  stack = await startTestStack({ throttleMultiplier: 1000 });
  await startServices({ root: ROOT, stack, dataDir: null, directory: { file: join(dir, 'd.jsonl'), people: 200, seed: 3 } });
  admin = new Client(stack);
});
afterAll(async () => {
  await stack?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const settle = async () => expect((await admin.console('POST', 'dev/settle/')).body).toEqual({ idle: true });
const advance = (seconds: number) => admin.console('POST', 'dev/clock/', { advance_seconds: seconds });
const mailbox = async () => (await admin.console('GET', 'dev/mailbox/')).body.messages as any[];
const balance = async (id: string) => (await admin.console('GET', `accounts/${id}/`)).body.balance as number;
const charges = async (id: string) => (await admin.console('GET', `accounts/${id}/charges/`)).body.results as any[];

let seq = 0;
const recipient = () => `lead${++seq}.${Date.now()}@prospect.test`;

async function sender(extra: Record<string, unknown> = {}) {
  const t = await newTenant(stack);
  const ea = await admin.console('POST', `accounts/${t.accountId}/sending-accounts/`, { email: `rep${++seq}@seller.test`, type: 'google', ...extra });
  return { ...t, ea: ea.body };
}

function emailBody(to: string, extra: Record<string, unknown> = {}) {
  return {
    to: { email: to, first_name: 'Jane', last_name: 'Doe', company_name: 'Acme Robotics', context: 'Recently opened a Berlin office.' },
    instructions: 'Write a short, friendly email introducing our warehouse automation platform and ask for a 15-minute call.',
    ...extra,
  };
}

async function drafted(t: Awaited<ReturnType<typeof sender>>, to = recipient(), extra: Record<string, unknown> = {}) {
  const r = await reply(t.client.typed.POST('/api/public/v1/emails/', { body: emailBody(to, extra) }));
  expect(r.status).toBe(202);
  await settle();
  return (await reply(t.client.typed.GET('/api/public/v1/emails/{id}/', { params: { path: { id: r.body.id } } }))).body;
}

// The public API is called through the typed client; `client.api` remains where a test sends what the
// document does not allow (invalid bodies and queries) or loops over routes with paths built at run time.
describe('creating and drafting', () => {
  test('202 with exactly {id, status: drafting, created_at}; draft → pending_review; 2 credits', async () => {
    const t = await sender();
    const r = await reply(t.client.typed.POST('/api/public/v1/emails/', { body: emailBody(recipient()) }));
    expect(r.status).toBe(202);
    expect(r.body).toEqual({ id: expect.stringMatching(/^em_[0-9a-z]{26}$/), status: 'drafting', created_at: expect.any(String) });
    await settle();
    const e = (await reply(t.client.typed.GET('/api/public/v1/emails/{id}/', { params: { path: { id: r.body.id } } }))).body;
    expect(e.status).toBe('pending_review');
    expect(Object.keys(e).sort()).toEqual(
      ['id', 'status', 'to', 'from_email', 'subject', 'body_plain', 'body_html', 'instructions', 'created_at', 'scheduled_for', 'sent_at', 'opened_at', 'replied_at', 'open_count', 'review_expires_at', 'error'].sort(),
    );
    expect(e.to).toEqual({ email: expect.stringContaining('@prospect.test'), name: 'Jane Doe' });
    expect(e.from_email).toBe(t.ea.email);
    expect(e.body_plain).toContain('Jane');
    expect(e.body_plain).toMatch(/warehouse automation platform/);
    expect(e.body_plain).not.toMatch(/Write a short/);
    expect(e.body_html).toContain('<p>');
    expect(new Date(e.review_expires_at).getTime() - new Date(e.created_at).getTime()).toBeGreaterThanOrEqual(7 * 86400_000 - 5000);
    expect(e).toMatchObject({ scheduled_for: null, sent_at: null, opened_at: null, replied_at: null, open_count: 0, error: null });
    expect(await balance(t.accountId)).toBe(1248);
    expect((await charges(t.accountId))[0]).toMatchObject({ operation: 'outreach_email', reference: r.body.id, charged: 2, charge_status: 'charged' });
  });

  test('a failed draft is failed and not charged', async () => {
    const t = await sender();
    const r = await reply(t.client.typed.POST('/api/public/v1/emails/', { body: { ...emailBody(recipient()), instructions: 'Say hello [[fail-draft]]' } }));
    await settle();
    const e = (await reply(t.client.typed.GET('/api/public/v1/emails/{id}/', { params: { path: { id: r.body.id } } }))).body;
    expect(e.status).toBe('failed');
    expect(e.error).toEqual({ code: 'draft_failed', message: expect.any(String) });
    expect(await balance(t.accountId)).toBe(1250);
    expect((await charges(t.accountId))[0].charge_status).toBe('released');
  });

  test('review none goes straight to queued with an automatic send time', async () => {
    const t = await sender();
    const e = await drafted(t, recipient(), { review: 'none' });
    expect(e.status).toBe('queued');
    expect(e.scheduled_for).not.toBeNull();
    const at = new Date(e.scheduled_for);
    expect([1, 2, 3, 4, 5]).toContain(at.getUTCDay());
    expect(at.getUTCHours()).toBeGreaterThanOrEqual(9);
    expect(at.getUTCHours()).toBeLessThan(11);
  });

  test('validation: every rule answers 400 invalid_request', async () => {
    const t = await sender();
    const base = emailBody(recipient());
    const cases: unknown[] = [
      { ...base, to: { ...base.to, email: 'not-an-email' } },
      { ...base, to: { email: 'a@b.test' } },
      { ...base, to: { ...base.to, context: 'x'.repeat(1001) } },
      { ...base, instructions: 'x'.repeat(2001) },
      { ...base, instructions: undefined },
      { ...base, cc: ['a@x.test', 'b@x.test', 'c@x.test', 'd@x.test'] },
      { ...base, bcc: ['a@x.test', 'b@x.test', 'c@x.test', 'd@x.test'] },
      { ...base, review: 'maybe' },
      { ...base, surprise: true },
      { ...base, to: { ...base.to, phone: '+1' } },
      { ...base, reply_to: 'stranger@elsewhere.test' },
      { ...base, from_account: 'ea_00000000000000000000000000' },
      // A header injection through the name (it becomes part of the To header) is refused at create, before any charge.
      { ...base, to: { ...base.to, first_name: 'Ada\r\nBcc: victim@elsewhere.test' } },
      { ...base, to: { ...base.to, last_name: 'Lovelace\n' + 'x' } },
      { ...base, to: { ...base.to, company_name: 'Acme\u0000' } },
    ];
    for (const c of cases) {
      const r = await t.client.api('POST', 'emails/', c);
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('invalid_request');
    }
    const other = await sender();
    const foreign = await reply(t.client.typed.POST('/api/public/v1/emails/', { body: { ...base, from_account: other.ea.id } }));
    expect(foreign.status).toBe(400);
    expect((await reply(t.client.typed.POST('/api/public/v1/emails/', { body: { ...base, reply_to: t.ea.email } }))).status).toBe(202);
    expect(await balance(other.accountId)).toBe(1250);
  });

  test('409 when no account is connected and sending-enabled', async () => {
    const none = await newTenant(stack);
    expect((await reply(none.client.typed.POST('/api/public/v1/emails/', { body: emailBody(recipient()) }))).status).toBe(409);
    const t = await sender({ connected: false });
    const r = await reply(t.client.typed.POST('/api/public/v1/emails/', { body: emailBody(recipient()) }));
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe('conflict');
    expect(await balance(t.accountId)).toBe(1250);
  });

  test('the default sender is the least-loaded connected account', async () => {
    const t = await sender();
    const second = await admin.console('POST', `accounts/${t.accountId}/sending-accounts/`, { email: `second${++seq}@seller.test`, type: 'microsoft' });
    await admin.console('PATCH', `sending-accounts/${t.ea.id}/`, { sending_enabled: false });
    const e = await drafted(t);
    expect(e.from_email).toBe(second.body.email);
  });
});

describe('review, edit, approve, cancel', () => {
  test('edit: subject and sanitised HTML (plain regenerated); window extended; wrong shapes 400', async () => {
    const t = await sender();
    const e = await drafted(t);
    await advance(3600);
    const r = await reply(t.client.typed.PATCH('/api/public/v1/emails/{id}/', { params: { path: { id: e.id } }, body: { subject: 'New subject', body_html: '<p>Hello <b>Jane</b><script>alert(1)</script><img src=x onerror=alert(1)></p><a href="javascript:alert(1)">x</a>' } }));
    expect(r.status).toBe(200);
    expect(r.body.subject).toBe('New subject');
    expect(r.body.body_html).toContain('<b>Jane</b>');
    expect(r.body.body_html).not.toMatch(/script|onerror|javascript:/);
    expect(r.body.body_plain).toContain('Hello');
    expect(r.body.body_plain).not.toContain('<');
    expect(new Date(r.body.review_expires_at).getTime()).toBeGreaterThan(new Date(e.review_expires_at).getTime() + 3000_000);
    const plain = await reply(t.client.typed.PATCH('/api/public/v1/emails/{id}/', { params: { path: { id: e.id } }, body: { body_plain: 'Line one\n\nLine two' } }));
    expect(plain.body.body_html).toContain('<p>Line one</p>');
    expect((await reply(t.client.typed.PATCH('/api/public/v1/emails/{id}/', { params: { path: { id: e.id } }, body: { body_plain: 'a', body_html: '<p>b</p>' } }))).status).toBe(400);
    expect((await reply(t.client.typed.PATCH('/api/public/v1/emails/{id}/', { params: { path: { id: e.id } }, body: {} }))).status).toBe(400);
    expect((await reply(t.client.typed.PATCH('/api/public/v1/emails/{id}/', { params: { path: { id: e.id } }, body: { to: 'x@y.test' } }))).status).toBe(400);
  });

  test('the 7-day window: unapproved emails are cancelled when it passes; an edit extends it', async () => {
    const t = await sender();
    const a = await drafted(t);
    const b = await drafted(t);
    await advance(6 * 86400);
    await reply(t.client.typed.PATCH('/api/public/v1/emails/{id}/', { params: { path: { id: b.id } }, body: { subject: 'Still relevant?' } }));
    await advance(86400 + 60);
    await settle();
    expect((await reply(t.client.typed.GET('/api/public/v1/emails/{id}/', { params: { path: { id: a.id } } }))).body.status).toBe('cancelled');
    expect((await reply(t.client.typed.GET('/api/public/v1/emails/{id}/', { params: { path: { id: b.id } } }))).body.status).toBe('pending_review');
    expect(await balance(t.accountId)).toBe(1246); // no refund on expiry
  });

  test('approve with best_time: queued at a weekday 09:00–11:00 in the sender zone; approve again 409', async () => {
    const t = await sender({ timezone: 'Europe/Berlin' });
    const e = await drafted(t);
    const r = await reply(t.client.typed.POST('/api/public/v1/emails/{id}/approve/', { params: { path: { id: e.id } }, body: {} }));
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('queued');
    expect(r.body.review_expires_at).toBeNull();
    const local = new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Berlin', weekday: 'short', hour: '2-digit', hour12: false }).formatToParts(new Date(r.body.scheduled_for));
    const hour = Number(local.find((p) => p.type === 'hour')!.value);
    expect(hour).toBeGreaterThanOrEqual(9);
    expect(hour).toBeLessThan(11);
    expect(['Sat', 'Sun']).not.toContain(local.find((p) => p.type === 'weekday')!.value);
    const again = await reply(t.client.typed.POST('/api/public/v1/emails/{id}/approve/', { params: { path: { id: e.id } }, body: {} }));
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('conflict');
    expect((await reply(t.client.typed.POST('/api/public/v1/emails/{id}/approve/', { params: { path: { id: e.id } }, body: { schedule: 'at' } }))).status).toBe(400);
  });

  test('approve at a fixed time sends at that time on the service clock', async () => {
    const t = await sender();
    const e = await drafted(t);
    const now = new Date((await advance(1)).body.now).getTime(); // the service clock, moved by earlier tests
    const sendAt = new Date(now + 3 * 86400_000).toISOString();
    const r = await reply(t.client.typed.POST('/api/public/v1/emails/{id}/approve/', { params: { path: { id: e.id } }, body: { schedule: 'at', send_at: sendAt } }));
    expect(r.status).toBe(200);
    expect(r.body.scheduled_for).toBe(sendAt);
    const past = await drafted(t);
    expect((await reply(t.client.typed.POST('/api/public/v1/emails/{id}/approve/', { params: { path: { id: past.id } }, body: { schedule: 'at', send_at: new Date(now - 3600_000).toISOString() } }))).status).toBe(400);
    await settle();
    expect((await reply(t.client.typed.GET('/api/public/v1/emails/{id}/', { params: { path: { id: e.id } } }))).body.status).toBe('queued');
    await advance(4 * 86400);
    await settle();
    const sent = (await reply(t.client.typed.GET('/api/public/v1/emails/{id}/', { params: { path: { id: e.id } } }))).body;
    expect(sent.status).toBe('sent');
    expect(sent.sent_at).not.toBeNull();
  });

  test('cancel: allowed while pending_review or queued (no refund), 409 afterwards; wrong-state edits 409', async () => {
    const t = await sender();
    const a = await drafted(t);
    const c = await reply(t.client.typed.POST('/api/public/v1/emails/{id}/cancel/', { params: { path: { id: a.id } } }));
    expect(c.status).toBe(200);
    expect(c.body.status).toBe('cancelled');
    expect((await reply(t.client.typed.POST('/api/public/v1/emails/{id}/cancel/', { params: { path: { id: a.id } } }))).status).toBe(409);
    expect((await reply(t.client.typed.PATCH('/api/public/v1/emails/{id}/', { params: { path: { id: a.id } }, body: { subject: 'x' } }))).status).toBe(409);
    expect((await reply(t.client.typed.POST('/api/public/v1/emails/{id}/approve/', { params: { path: { id: a.id } }, body: {} }))).status).toBe(409);
    const b = await drafted(t);
    await reply(t.client.typed.POST('/api/public/v1/emails/{id}/approve/', { params: { path: { id: b.id } }, body: { schedule: 'best_time' } }));
    const cq = await reply(t.client.typed.POST('/api/public/v1/emails/{id}/cancel/', { params: { path: { id: b.id } } }));
    expect(cq.body.status).toBe('cancelled');
    await advance(8 * 86400);
    await settle();
    expect((await reply(t.client.typed.GET('/api/public/v1/emails/{id}/', { params: { path: { id: b.id } } }))).body.status).toBe('cancelled');
    expect(await balance(t.accountId)).toBe(1246);
  });

  test('another tenant sees 404 for every operation', async () => {
    const t = await sender();
    const other = await sender();
    const e = await drafted(t);
    for (const [method, path, body] of [
      ['GET', `emails/${e.id}/`, undefined],
      ['PATCH', `emails/${e.id}/`, { subject: 'x' }],
      ['POST', `emails/${e.id}/approve/`, {}],
      ['POST', `emails/${e.id}/cancel/`, undefined],
    ] as const) {
      const r = await other.client.api(method, path, body);
      expect(r.status).toBe(404);
      expect(r.body.error.code).toBe('not_found');
    }
    expect((await reply(other.client.typed.GET('/api/public/v1/emails/'))).body.count).toBe(0);
  });
});

describe('sending, replies, unsubscribe, tracking', () => {
  test('approve now: sent with proper MIME, unsubscribe headers, reply-to; the cc is on the lead’s message, the bcc gets a copy of its own; sent_today counts', async () => {
    const t = await sender();
    const to = recipient();
    const e = await drafted(t, to, { cc: ['boss@prospect.test'], bcc: ['crm@seller.test'], reply_to: undefined });
    const r = await reply(t.client.typed.POST('/api/public/v1/emails/{id}/approve/', { params: { path: { id: e.id } }, body: { schedule: 'now' } }));
    expect(r.body.status).toBe('queued');
    await settle();
    const sent = (await reply(t.client.typed.GET('/api/public/v1/emails/{id}/', { params: { path: { id: e.id } } }))).body;
    expect(sent.status).toBe('sent');
    const msg = (await mailbox()).find((m) => m.to.includes(to));
    expect(msg).toBeDefined();
    expect(msg.from).toBe(t.ea.email);
    // A google sender delivers to the headers: the lead's message goes to the lead and the cc, never the bcc (cc-visible.test.ts).
    expect(msg.delivered_to).toEqual([to, 'boss@prospect.test']);
    expect(msg.cc).toEqual(['boss@prospect.test']);
    expect(msg.bcc).toEqual([]);
    expect(JSON.stringify(msg.headers).toLowerCase()).not.toContain('crm@seller.test');
    expect(msg.subject).toBe(sent.subject);
    expect(msg.text).toContain('unsubscribe');
    expect(msg.html).toContain('/api/public/v1/o/');
    expect(msg.headers['list-unsubscribe']).toMatch(/^<http:\/\/localhost:\d+\/api\/public\/v1\/u\/[A-Za-z0-9_-]+\/>$/);
    // Shared with the cc: its link asks whose address it is, so no one-click (a single recipient keeps it, below).
    expect(msg.headers['list-unsubscribe-post']).toBeUndefined();
    expect(msg.message_id).toMatch(new RegExp(`^<${e.id}\\.`));
    const accounts = (await reply(t.client.typed.GET('/api/public/v1/email/accounts/'))).body.accounts;
    expect(accounts[0].sent_today).toBe(1);
    expect((await reply(t.client.typed.PATCH('/api/public/v1/emails/{id}/', { params: { path: { id: e.id } }, body: { subject: 'x' } }))).status).toBe(409);
    expect((await reply(t.client.typed.POST('/api/public/v1/emails/{id}/cancel/', { params: { path: { id: e.id } } }))).status).toBe(409);
  });

  test('an smtp account sends through SMTP (nodemailer) with the same MIME', async () => {
    const t = await sender({ type: 'smtp' });
    const to = recipient();
    const e = await drafted(t, to, { bcc: ['archive@seller.test'] });
    await reply(t.client.typed.POST('/api/public/v1/emails/{id}/approve/', { params: { path: { id: e.id } }, body: { schedule: 'now' } }));
    await settle();
    expect((await reply(t.client.typed.GET('/api/public/v1/emails/{id}/', { params: { path: { id: e.id } } }))).body.status).toBe('sent');
    const msg = (await mailbox()).find((m) => m.to.includes(to) && m.delivered_to.includes(to));
    expect(msg.from).toBe(t.ea.email);
    expect(msg.delivered_to).toEqual([to]);
    const copy = (await mailbox()).find((m) => m.delivered_to.includes('archive@seller.test') && m.to.includes(to));
    expect(copy).toMatchObject({ from: t.ea.email, bcc: ['archive@seller.test'], delivered_to: ['archive@seller.test'] });
    expect(msg.headers['list-unsubscribe-post']).toBe('List-Unsubscribe=One-Click');
    expect(msg.message_id).toMatch(new RegExp(`^<${e.id}\\.`));
  });

  test('the daily limit spills approvals onto following days', async () => {
    const t = await sender({ daily_limit: 2 });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await drafted(t)).id);
    const scheduled: string[] = [];
    for (const id of ids) scheduled.push((await reply(t.client.typed.POST('/api/public/v1/emails/{id}/approve/', { params: { path: { id } }, body: { schedule: 'now' } }))).body.scheduled_for);
    const days = scheduled.map((s) => s.slice(0, 10));
    expect(days[0]).toBe(days[1]);
    expect(days[2]).toBe(days[3]);
    expect(days[2] > days[0]!).toBe(true);
    expect(days[4]! > days[2]!).toBe(true);
    await settle();
    const statuses = await Promise.all(ids.map(async (id) => (await reply(t.client.typed.GET('/api/public/v1/emails/{id}/', { params: { path: { id } } }))).body.status));
    expect(statuses).toEqual(['sent', 'sent', 'queued', 'queued', 'queued']);
    // Up to just past the second day's slots, which come before the third day's (their hour follows the
    // recipient's zone, so a fixed step could reach either side of the third day's).
    const at = (i: number) => Date.parse(scheduled[i]!);
    expect(at(4)).toBeGreaterThan(Math.max(at(2), at(3)) + 60_000);
    await advance(Math.ceil((Math.max(at(2), at(3)) - at(0)) / 1000) + 60);
    await settle();
    const later = await Promise.all(ids.map(async (id) => (await reply(t.client.typed.GET('/api/public/v1/emails/{id}/', { params: { path: { id } } }))).body.status));
    expect(later.filter((s) => s === 'sent').length).toBe(4);
  });

  test('a reply from the lead: replied status and timestamp, and queued emails to them are not sent', async () => {
    const t = await sender();
    const to = recipient();
    const first = await drafted(t, to);
    const second = await drafted(t, to);
    await reply(t.client.typed.POST('/api/public/v1/emails/{id}/approve/', { params: { path: { id: first.id } }, body: { schedule: 'now' } }));
    await settle();
    const msg = (await mailbox()).find((m) => m.to.includes(to));
    const inbound = await admin.console('POST', 'dev/inbound/', { from: `Jane Doe <${to}>`, to: t.ea.email, subject: `Re: ${msg.subject}`, text: 'Sounds good, Tuesday works.', in_reply_to: msg.message_id, headers: {} });
    expect(inbound.status).toBe(202);
    expect(inbound.body).toMatchObject({ matched: true, classification: 'reply', counted_as_lead_reply: true });
    const replied = (await reply(t.client.typed.GET('/api/public/v1/emails/{id}/', { params: { path: { id: first.id } } }))).body;
    expect(replied.status).toBe('replied');
    expect(replied.replied_at).not.toBeNull();
    await reply(t.client.typed.POST('/api/public/v1/emails/{id}/approve/', { params: { path: { id: second.id } }, body: { schedule: 'now' } }));
    await settle();
    const stopped = (await reply(t.client.typed.GET('/api/public/v1/emails/{id}/', { params: { path: { id: second.id } } }))).body;
    expect(stopped.status).toBe('cancelled');
    expect(stopped.error.code).toBe('recipient_replied');
    expect((await mailbox()).filter((m) => m.to.includes(to))).toHaveLength(1);
    const list = await reply(t.client.typed.GET('/api/public/v1/emails/', { params: { query: { status: 'replied' } } }));
    expect(list.body.results.map((x: any) => x.id)).toEqual([first.id]);
  });

  test('a reply from a cc address does not count; bounces and auto-replies are classified', async () => {
    const t = await sender();
    const to = recipient();
    const e = await drafted(t, to, { cc: ['colleague@prospect.test'] });
    await reply(t.client.typed.POST('/api/public/v1/emails/{id}/approve/', { params: { path: { id: e.id } }, body: { schedule: 'now' } }));
    await settle();
    const msg = (await mailbox()).find((m) => m.to.includes(to));
    const cc = await admin.console('POST', 'dev/inbound/', { from: 'colleague@prospect.test', to: t.ea.email, subject: 'Re: x', text: 'Looping in', in_reply_to: msg.message_id });
    expect(cc.body).toMatchObject({ classification: 'reply', counted_as_lead_reply: false });
    expect((await reply(t.client.typed.GET('/api/public/v1/emails/{id}/', { params: { path: { id: e.id } } }))).body.status).toBe('sent');
    const ooo = await admin.console('POST', 'dev/inbound/', { from: to, to: t.ea.email, subject: 'Automatic reply: Out of Office', text: 'I am currently out of the office.', in_reply_to: msg.message_id, headers: { 'Auto-Submitted': 'auto-replied' } });
    expect(ooo.body.classification).toBe('auto_reply');
    expect((await reply(t.client.typed.GET('/api/public/v1/emails/{id}/', { params: { path: { id: e.id } } }))).body.status).toBe('sent');
    const bounce = await admin.console('POST', 'dev/inbound/', { mailbox: t.ea.email, raw: dsnReport({ mailbox: t.ea.email, recipient: to, originalId: msg.message_id }) });
    expect(bounce.body).toMatchObject({ matched: true, classification: 'bounce' });
    expect((await reply(t.client.typed.GET('/api/public/v1/emails/{id}/', { params: { path: { id: e.id } } }))).body.error.code).toBe('bounced');
    expect((await admin.console('POST', 'dev/inbound/', { from: 'x' })).status).toBe(400);
  });

  test('one-click unsubscribe suppresses the address; the open pixel counts opens', async () => {
    const t = await sender();
    const to = recipient();
    const e = await drafted(t, to);
    await reply(t.client.typed.POST('/api/public/v1/emails/{id}/approve/', { params: { path: { id: e.id } }, body: { schedule: 'now' } }));
    await settle();
    const msg = (await mailbox()).find((m) => m.to.includes(to));
    const pixel = /src="(http:\/\/localhost:\d+\/api\/public\/v1\/o\/[^"]+)"/.exec(msg.html)![1]!;
    for (let i = 0; i < 2; i++) {
      const res = await fetch(pixel);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/gif');
      expect(Buffer.from(await res.arrayBuffer()).subarray(0, 3).toString()).toBe('GIF');
    }
    const opened = (await reply(t.client.typed.GET('/api/public/v1/emails/{id}/', { params: { path: { id: e.id } } }))).body;
    expect(opened.open_count).toBe(2);
    expect(opened.opened_at).not.toBeNull();
    const unsub = msg.headers['list-unsubscribe'].slice(1, -1);
    // A GET (a link scanner, or a person before confirming) shows the confirmation page and suppresses nothing.
    const page = await fetch(unsub);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await page.text()).toMatch(/<form method="post"[^>]*>[\s\S]*<button type="submit">Unsubscribe<\/button>/);
    const stillAllowed = await reply(t.client.typed.POST('/api/public/v1/emails/', { body: emailBody(to) }));
    expect(stillAllowed.status).toBe(202);
    await reply(t.client.typed.POST('/api/public/v1/emails/{id}/cancel/', { params: { path: { id: stillAllowed.body.id } } }));
    // The page's button posts the form; RFC 8058 one-click posts its own body: both suppress at once.
    const confirmed = await fetch(unsub, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'confirm=yes' });
    expect(confirmed.status).toBe(200);
    expect(await confirmed.text()).toMatch(/You have been unsubscribed/);
    const res = await fetch(unsub, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' });
    expect(res.status).toBe(200);
    const refused = await reply(t.client.typed.POST('/api/public/v1/emails/', { body: emailBody(to) }));
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toMatch(/unsubscribed/);
    expect((await fetch(unsub.replace(/u\/[^/]+\//, 'u/not-a-token/'))).status).toBe(404);
    expect((await fetch(unsub.replace(/u\/[^/]+\//, `u/${'A'.repeat(32)}/`))).status).toBe(404);
  });
});

describe('listing', () => {
  test('newest first, status and since filters, paging, validation', async () => {
    const t = await sender();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await drafted(t)).id);
    await reply(t.client.typed.POST('/api/public/v1/emails/{id}/cancel/', { params: { path: { id: ids[0] } } }));
    const all = await reply(t.client.typed.GET('/api/public/v1/emails/'));
    expect(all.body).toMatchObject({ count: 3, page: 1, page_size: 50, total_pages: 1 });
    expect(all.body.results.map((e: any) => e.id)).toEqual([...ids].reverse());
    const paged = await reply(t.client.typed.GET('/api/public/v1/emails/', { params: { query: { page: 2, page_size: 2 } } }));
    expect(paged.body).toMatchObject({ count: 3, page: 2, page_size: 2, total_pages: 2 });
    expect(paged.body.results.map((e: any) => e.id)).toEqual([ids[0]]);
    const cancelled = await reply(t.client.typed.GET('/api/public/v1/emails/', { params: { query: { status: 'cancelled' } } }));
    expect(cancelled.body.results.map((e: any) => e.id)).toEqual([ids[0]]);
    const future = await reply(t.client.typed.GET('/api/public/v1/emails/', { params: { query: { since: new Date(Date.now() + 400 * 86400_000).toISOString() } } }));
    expect(future.body.count).toBe(0);
    for (const q of ['page_size=201', 'page=0', 'status=unknown', 'since=yesterday']) expect((await t.client.api('GET', `emails/?${q}`)).status).toBe(400);
  });
});
