import type { LocalStack } from '../../shared/local/stack.js';
import { startServices } from '../../shared/local/services.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, ROOT, serviceClockNow, startTestStack, toNextNoonUtc } from '../support/local.js';
import { newAppTenant } from '../support/app-users.js';
import { sesEventFor } from '../support/ses-events.js';

/**
 * The effective daily limit on the service clock (docs/decisions.md#decisions-the-contract-leaves-open, docs/outreach.md "Warm-up, engagement throttle and
 * deliverability"): a new mailbox sends on the warm-up ramp and never past it, a bounce burst throttles it, a
 * complaint burst pauses it, the operator's warm-up start lifts the ramp, and the web app's deliverability
 * route reports each day's counts, paged, for the caller's own mailboxes only.
 */
let stack: LocalStack;
let admin: Client;
const dir = mkdtempSync(join(tmpdir(), 'warmup-'));

beforeAll(async () => {
  stack = await startTestStack({ userPool: true, throttleMultiplier: 1000 });
  await startServices({ root: ROOT, stack, dataDir: null, directory: { file: join(dir, 'd.jsonl'), people: 50, seed: 5 } });
  admin = new Client(stack);
}, 120_000);
afterAll(async () => {
  await stack?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const DAY_S = 86_400;
let seq = 0;
const settle = async () => expect((await admin.console('POST', 'dev/settle/')).body).toEqual({ idle: true });
const clockNow = () => serviceClockNow(admin);
const toNextNoon = () => toNextNoonUtc(admin);

type Tenant = Awaited<ReturnType<typeof newAppTenant>>;
async function tenant(sender: Record<string, unknown> = {}): Promise<Tenant & { eaId: string }> {
  const n = ++seq;
  const t = await newAppTenant(stack, `owner${n}.${Date.now()}@warmup.test`, {}, { sender: { email: `rep${n}@seller.test`, type: 'google', ...sender } });
  const accounts = (await t.client.api('GET', 'email/accounts/')).body.accounts;
  return { ...t, eaId: accounts[0].id };
}
const account = async (t: Tenant) => (await t.client.api('GET', 'email/accounts/')).body.accounts[0];

/** `n` drafted emails (pending review), each to its own recipient. */
async function drafted(t: Tenant, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i += 25) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(25, n - i) }, () =>
        t.client.api('POST', 'emails/', { to: { email: `lead${++seq}.${Date.now()}@prospect.test`, first_name: 'Jane', company_name: 'Acme' }, instructions: 'A short hello.' }),
      ),
    );
    for (const r of batch) {
      expect(r.status).toBe(202);
      ids.push(r.body.id);
    }
  }
  await settle();
  return ids;
}
/** Approved to send now, five at a time (racing for the same days' slots). */
const approveNow = async (t: Tenant, ids: string[]) => {
  const out: string[] = [];
  for (let i = 0; i < ids.length; i += 5) {
    const batch = await Promise.all(ids.slice(i, i + 5).map((id) => t.client.api('POST', `emails/${id}/approve/`, { schedule: 'now' })));
    for (const r of batch) {
      expect(r.status).toBe(200);
      out.push(r.body.scheduled_for);
    }
  }
  return out.sort();
};
const getEmail = async (t: Tenant, id: string) => (await t.client.api('GET', `emails/${id}/`)).body;
const sendOf = (emailId: string) => stack.sentMail.find((s) => s.raw?.toString('utf8').includes(`<${emailId}.`))!;
const deliverability = async (t: Tenant & { eaId: string }, query = '') => t.app.route('GET', `sending-accounts/${t.eaId}/deliverability/${query}`);
const inject = async (event: Record<string, unknown>) => expect((await admin.console('POST', 'dev/ses-events/', event)).status).toBe(202);
const messageIdOf = async (id: string) => ((await admin.console('GET', 'dev/mailbox/')).body.messages as { message_id: string }[]).find((m) => m.message_id.startsWith(`<${id}.`))!.message_id;
const daysAgo = async (n: number) => new Date((await clockNow()).getTime() - n * DAY_S * 1000).toISOString();

test('a new mailbox sends on the warm-up ramp and never past it: 50 approved at once go out 20, 25, then the 5 left', async () => {
  const t = await tenant({ daily_limit: 30 });
  expect(await account(t)).toMatchObject({ daily_limit: 20, configured_daily_limit: 30, health: 'warming_up', sent_today: 0, warmup: { day: 1, ramp_limit: 20, complete: false } });
  const ids = await drafted(t, 50);
  const booked = await approveNow(t, ids);
  // Booked by each day's projected ramp: 20 today, then one more step a day.
  const perDay = [...booked.reduce((m, s) => m.set(s.slice(0, 10), (m.get(s.slice(0, 10)) ?? 0) + 1), new Map<string, number>()).values()];
  expect(perDay).toEqual([20, 25, 5]);
  await settle();
  const first = (await clockNow()).toISOString().slice(0, 10);
  for (let d = 0; d < 3; d++) await toNextNoon();
  const days = (await deliverability(t, `?from=${first}&limit=20`)).body.days as { date: string; sent: number }[];
  expect(days.map((d) => d.sent).reverse()).toEqual([20, 25, 5]);
  expect(days.at(-1)!.date).toBe(first);
  const statuses = await Promise.all(ids.map(async (id) => (await getEmail(t, id)).status));
  expect(statuses.every((s) => s === 'sent')).toBe(true);
  // Three healthy days on: the ramp (35) is past the configured 30.
  expect(await account(t)).toMatchObject({ daily_limit: 30, configured_daily_limit: 30, health: 'healthy', warmup: { day: 4, ramp_limit: null, complete: true } });
}, 60_000);

test('a bounce burst throttles the mailbox to half its limit, counted once per email; the window moving on lifts it', async () => {
  const t = await tenant({ warmup_started_at: await daysAgo(60) });
  expect(await account(t)).toMatchObject({ daily_limit: 50, health: 'healthy', warmup: { complete: true } });
  const ids = await drafted(t, 20);
  await approveNow(t, ids);
  await settle();
  for (const id of ids.slice(0, 3)) {
    const event = sesEventFor('bounce-permanent', { messageId: sendOf(id).provider_message_id!, recipient: (await getEmail(t, id)).to.email });
    await inject(event);
    await inject(event); // redelivered: the same event twice counts once
  }
  // The same bounce learnt a second way (a delivery-status message in the inbox) counts once too.
  const dsnOf = await getEmail(t, ids[0]!);
  const dsn = await admin.console('POST', 'dev/inbound/', { from: 'MAILER-DAEMON@prospect.test', to: dsnOf.from_email, subject: 'Undelivered Mail Returned to Sender', text: `Final-Recipient: rfc822; ${dsnOf.to.email}`, headers: { References: await messageIdOf(ids[0]!) } });
  expect(dsn.body).toMatchObject({ matched: true, classification: 'bounce' });
  await settle();
  expect(await account(t)).toMatchObject({ daily_limit: 25, configured_daily_limit: 50, health: 'throttled_bounces', sent_today: 20 });
  const record = (await deliverability(t)).body;
  expect(record.days[0]).toMatchObject({ sent: 20, bounced_hard: 3 });
  expect(record.account.engagement).toMatchObject({ sent: 20, bounced_hard: 3, bounce_rate: 0.15 });
  // Approving 10 more: 5 fit under today's cut limit, the rest wait for the following day.
  const more = await approveNow(t, await drafted(t, 10));
  const today = (await clockNow()).toISOString().slice(0, 10);
  expect(more.filter((s) => s.startsWith(today))).toHaveLength(5);
  for (let d = 0; d < 7; d++) await toNextNoon();
  expect(await account(t)).toMatchObject({ daily_limit: 50, health: 'healthy' });
}, 60_000);

test('a complaint burst pauses the mailbox: nothing is booked until the window has moved on, then sending resumes', async () => {
  const t = await tenant({ warmup_started_at: await daysAgo(60) });
  const ids = await drafted(t, 20);
  await approveNow(t, ids);
  await settle();
  for (const id of ids.slice(0, 2)) await inject(sesEventFor('complaint', { messageId: sendOf(id).provider_message_id!, recipient: (await getEmail(t, id)).to.email }));
  await settle();
  expect(await account(t)).toMatchObject({ daily_limit: 0, health: 'paused_complaints' });
  const complainedOn = (await clockNow()).toISOString().slice(0, 10);
  const [later] = await approveNow(t, await drafted(t, 1));
  // The complaints leave the 7-day window on the 8th day: the first day the pause is lifted.
  const resumes = new Date(Date.parse(`${complainedOn}T00:00:00Z`) + 7 * DAY_S * 1000).toISOString().slice(0, 10);
  expect(later!.slice(0, 10)).toBe(resumes);
  await toNextNoon();
  expect((await account(t)).health).toBe('paused_complaints');
  for (let d = 0; d < 6; d++) await toNextNoon();
  expect(await account(t)).toMatchObject({ daily_limit: 50, health: 'healthy' });
  const days = (await deliverability(t)).body.days;
  expect(days[0]).toMatchObject({ date: resumes, sent: 1 });
}, 60_000);

test("the operator's warm-up start lifts the ramp; an invalid one is refused", async () => {
  const t = await tenant({ daily_limit: 200 });
  expect(await account(t)).toMatchObject({ daily_limit: 20, health: 'warming_up' });
  expect((await admin.console('PATCH', `sending-accounts/${t.eaId}/`, { warmup_started_at: 'last month' })).status).toBe(400);
  const future = await admin.console('PATCH', `sending-accounts/${t.eaId}/`, { warmup_started_at: new Date((await clockNow()).getTime() + DAY_S * 1000).toISOString() });
  expect(future.status).toBe(400);
  expect(future.body.error.details).toEqual([{ path: 'warmup_started_at', message: 'must not be in the future' }]);
  const patched = await admin.console('PATCH', `sending-accounts/${t.eaId}/`, { warmup_started_at: await daysAgo(14) });
  expect(patched.status).toBe(200);
  // 14 healthy days: the ramp's 15th step.
  expect(patched.body).toMatchObject({ daily_limit: 140, configured_daily_limit: 200, health: 'warming_up', warmup: { day: 15, ramp_limit: 140 } });
  expect(await account(t)).toMatchObject({ daily_limit: 140, configured_daily_limit: 200 });
  const booked = await approveNow(t, await drafted(t, 30));
  const today = (await clockNow()).toISOString().slice(0, 10);
  expect(booked.every((s) => s.startsWith(today))).toBe(true);
}, 60_000);

test('the deliverability route: each counter once per email, days newest first, paged with a cursor; another account’s mailbox is 404', async () => {
  const t = await tenant({ warmup_started_at: await daysAgo(60) });
  const dayOne = await drafted(t, 4);
  await approveNow(t, dayOne);
  await settle();
  const [a, b, c, d] = await Promise.all(dayOne.map((id) => getEmail(t, id)));
  const mailbox = (await admin.console('GET', 'dev/mailbox/')).body.messages as { message_id: string; html: string }[];
  const token = (id: string) => mailbox.find((m) => m.message_id.startsWith(`<${id}.`))!.html.match(/\/o\/([A-Za-z0-9_-]+)\//)![1]!;
  // Opened twice (counted once), unsubscribed, replied, delivered (SES), soft-bounced, complained (once).
  for (let i = 0; i < 2; i++) await fetch(`${stack.baseUrl}o/${token(a.id)}/`);
  await fetch(`${stack.baseUrl}u/${token(b.id)}/`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' });
  const messageId = mailbox.find((m) => m.message_id.startsWith(`<${c.id}.`))!.message_id;
  for (let i = 0; i < 2; i++) expect((await admin.console('POST', 'dev/inbound/', { from: `Jane <${c.to.email}>`, to: c.from_email, subject: 'Re: hello', text: 'Sounds good, let us talk.', in_reply_to: messageId })).body).toMatchObject({ matched: true, classification: 'reply', counted_as_lead_reply: true });
  await inject(sesEventFor('delivery', { messageId: sendOf(d.id).provider_message_id!, recipient: d.to.email }));
  await inject(sesEventFor('bounce-transient', { messageId: sendOf(d.id).provider_message_id!, recipient: d.to.email }));
  const complaint = sesEventFor('complaint', { messageId: sendOf(d.id).provider_message_id!, recipient: d.to.email });
  await inject(complaint);
  await inject(complaint);
  await settle();
  const first = (await clockNow()).toISOString().slice(0, 10);
  const second = await toNextNoon();
  await approveNow(t, await drafted(t, 2));
  await settle();
  const third = await toNextNoon();
  await approveNow(t, await drafted(t, 1));
  await settle();

  const all = await deliverability(t, `?from=${first}&to=${third}`);
  expect(all.status).toBe(200);
  expect(all.body.account).toMatchObject({ id: t.eaId, email: expect.stringMatching(/@seller\.test$/), daily_limit: 50, configured_daily_limit: 50, health: 'healthy', warmup: expect.objectContaining({ complete: true }) });
  expect(all.body.days).toEqual([
    { date: third, sent: 1, delivered: 0, bounced_hard: 0, bounced_soft: 0, complained: 0, opened: 0, replied: 0, unsubscribed: 0 },
    { date: second, sent: 2, delivered: 0, bounced_hard: 0, bounced_soft: 0, complained: 0, opened: 0, replied: 0, unsubscribed: 0 },
    { date: first, sent: 4, delivered: 1, bounced_hard: 0, bounced_soft: 1, complained: 1, opened: 1, replied: 1, unsubscribed: 1 },
  ]);
  expect(all.body.next_cursor).toBeNull();

  const page1 = await deliverability(t, `?from=${first}&to=${third}&limit=2`);
  expect(page1.body.days.map((x: { date: string }) => x.date)).toEqual([third, second]);
  expect(page1.body.next_cursor).toEqual(expect.any(String));
  const page2 = await deliverability(t, `?from=${first}&to=${third}&limit=2&cursor=${page1.body.next_cursor}`);
  expect(page2.body.days.map((x: { date: string }) => x.date)).toEqual([first]);
  expect(page2.body.next_cursor).toBeNull();
  expect((await deliverability(t, '?cursor=not-a-cursor')).status).toBe(400);
  expect((await deliverability(t, `?from=${third}&to=${first}`)).status).toBe(400);

  const other = await tenant();
  expect((await other.app.route('GET', `sending-accounts/${t.eaId}/deliverability/`)).status).toBe(404);
  expect((await other.app.route('GET', `sending-accounts/${other.eaId}/deliverability/`)).body.days).toEqual([]);
}, 60_000);
