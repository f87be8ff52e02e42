import type { LocalStack } from '../../shared/local/stack.js';
import { getSendingAccount } from '../../shared/accounts/sending-accounts.repository.js';
import type { Mailer } from '../../shared/adapters/mailer.js';
import { mailerFor } from '../../shared/mailboxes/mailbox-mailer.js';
import { getEmail } from '../../shared/outreach/emails.repository.js';
import { isSuppressed } from '../../shared/outreach/leads.repository.js';
import { SEND_LEASE_MS, SendInProgressError, sendEmail } from '../../shared/outreach/send-email.js';
import { Client, newTenant, startTestStack, reply } from '../support/local.js';

/**
 * CC is visible to all on Gmail and Microsoft senders too (docs/outreach.md "CC/BCC copies and paged lists"):
 * the lead's message shows the CC recipients and reaches them with it, once (reply-all reaches everyone),
 * while every BCC still gets a message of their own that nothing else reveals. The message the CC recipients
 * share carries no one-click unsubscribe; its link lets each visitor unsubscribe only their own address, so a
 * CC's choice never stops the lead, and the lead's still does. Checked on what the Gmail API and Microsoft
 * Graph emulators (driven by the official clients) were handed, and on a whole sequence.
 */
let stack: LocalStack;
let admin: Client;

beforeAll(async () => {
  stack = await startTestStack({ throttleMultiplier: 1000 });
  admin = new Client(stack);
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

const LONG = 300_000;
const settle = async () => expect((await admin.console('POST', 'dev/settle/')).body).toEqual({ idle: true });
const advance = async (seconds: number) => admin.console('POST', 'dev/clock/', { advance_seconds: seconds });
const mailbox = async () => (await admin.console('GET', 'dev/mailbox/')).body.messages as any[];
const lower = (xs: string[]) => xs.map((a) => a.toLowerCase());
/** A message as a JSON string without the fields that name whom it was delivered to. */
const whole = (m: any) => JSON.stringify({ ...m, delivered_to: undefined, bcc: undefined });
const unsubLink = (m: any) => (m.headers['list-unsubscribe'] as string).slice(1, -1);
const post = (url: string, body: string) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
const choose = (url: string, address: string) => post(url, new URLSearchParams({ confirm: 'yes', recipient: address }).toString());

let seq = 0;
async function tenantWith(type: 'google' | 'microsoft') {
  const t = await newTenant(stack);
  const ea = await admin.console('POST', `accounts/${t.accountId}/sending-accounts/`, { email: `rep${++seq}.${Date.now()}@${type}.test`, type });
  expect(ea.status).toBe(201);
  expect(ea.body.connected).toBe(true);
  return { ...t, ea: ea.body as { id: string; email: string } };
}
type Tenant = Awaited<ReturnType<typeof tenantWith>>;

async function created(t: Tenant, lead: string, cc: string[], bcc: string[]) {
  const r = await reply(t.client.typed.POST('/api/public/v1/emails/', { body: { to: { email: lead, first_name: 'Jane', company_name: 'Acme Robotics' }, instructions: 'Introduce our warehouse automation platform.', cc, bcc } }));
  expect(r.status).toBe(202);
  await settle();
  return r.body.id as string;
}
const readEmail = async (t: Tenant, id: string) => (await reply(t.client.typed.GET('/api/public/v1/emails/{id}/', { params: { path: { id } } }))).body;

describe.each(['google', 'microsoft'] as const)('%s sender', (type) => {
  test('the lead’s message shows the CC and is delivered to lead and CC as one message; each BCC gets its own, revealed nowhere; a redelivery sends nothing more', async () => {
    const t = await tenantWith(type);
    const n = `${type}${++seq}.${Date.now()}`;
    const lead = `lead.${n}@prospect.test`;
    const cc = `colleague.${n}@prospect.test`;
    const bcc = [`crm.${n}@seller.test`, `manager.${n}@seller.test`];
    const id = await created(t, lead, [cc], bcc);
    expect((await reply(t.client.typed.POST('/api/public/v1/emails/{id}/approve/', { params: { path: { id } }, body: { schedule: 'now' } }))).status).toBe(200);
    await settle();
    expect((await readEmail(t, id)).status).toBe('sent');

    const ours = (await mailbox()).filter((m) => m.delivered_to.some((a: string) => a.includes(n)));
    const to = (address: string) => ours.filter((m) => lower(m.delivered_to).includes(address));
    // Three messages: the lead's (with the CC on it) and one per BCC. Every recipient got exactly one.
    expect(ours).toHaveLength(3);
    for (const address of [lead, cc, ...bcc]) expect(to(address)).toHaveLength(1);
    const [shared] = to(lead);
    expect(to(cc)[0]).toBe(shared);
    expect(lower(shared.delivered_to).sort()).toEqual([cc, lead].sort());
    expect(lower(shared.to)).toEqual([lead]);
    expect(lower(shared.cc)).toEqual([cc]);
    expect(shared.message_id).toMatch(new RegExp(`^<${id}\\.`));
    // What the provider was handed: its sent message shows the CC, and has no Bcc header.
    const sentItem = stack.mailProviders.mailbox(t.ea.email)!.messages.filter((m) => m.raw.includes(lead));
    expect(sentItem).toHaveLength(1);
    expect(sentItem[0]!.internetMessageId).toBe(shared.message_id);
    expect(sentItem[0]!.raw).toMatch(new RegExp(`^Cc: ${cc.replace(/\./g, '\\.')}\\r?$`, 'im'));
    expect(sentItem[0]!.raw).not.toMatch(/^Bcc:/im);

    // The shared message carries the link and pixel, but no one-click unsubscribe (a POST cannot say who pressed).
    const link = unsubLink(shared);
    expect(link).toMatch(/\/api\/public\/v1\/u\/[A-Za-z0-9_-]+\/$/);
    expect(shared.headers['list-unsubscribe-post']).toBeUndefined();
    expect(shared.text).toContain(link);
    expect(shared.html).toContain('/api/public/v1/o/');

    for (const b of bcc) {
      const [copy] = to(b);
      expect(copy.delivered_to).toEqual([b]);
      expect(copy.to).toEqual([b]);
      expect([copy.cc, copy.bcc, copy.headers.bcc]).toEqual([[], [], undefined]);
      expect(whole(copy)).not.toContain('/api/public/v1/u/');
      expect(whole(copy)).not.toContain('/api/public/v1/o/');
      // No BCC shows in any message but as its own recipient.
      for (const m of ours.filter((x) => x !== copy)) expect(whole(m)).not.toContain(b);
    }

    // A redelivery of the send message (the email is `sent`, every copy settled) sends nothing.
    const before = (await mailbox()).length;
    await sendEmail(t.accountId, id);
    await sendEmail(t.accountId, id, { nowMs: () => Date.now() + SEND_LEASE_MS + 1000 });
    expect((await mailbox()).length).toBe(before);

    // The CC opening it counts as the lead's open: one pixel for both.
    const pixel = /src="([^"]*\/api\/public\/v1\/o\/[^"]+)"/.exec(shared.html)![1]!;
    expect((await fetch(pixel)).status).toBe(200);
    expect((await readEmail(t, id)).open_count).toBe(1);

    // The link's page lists both visible recipients, never the BCCs; a one-click POST suppresses nobody.
    const page = await (await fetch(link)).text();
    for (const a of [lead, cc]) expect(page).toContain(`name="recipient" value="${a}"`);
    for (const b of bcc) expect(page).not.toContain(b);
    const oneClick = await post(link, 'List-Unsubscribe=One-Click');
    expect(oneClick.status).toBe(200);
    expect(await oneClick.text()).toContain(`value="${cc}"`);
    expect([await isSuppressed(t.accountId, lead), await isSuppressed(t.accountId, cc)]).toEqual([false, false]);
    // An address the message did not go to (a BCC, a stranger) suppresses nobody.
    for (const other of [bcc[0]!, `stranger.${n}@prospect.test`]) expect((await choose(link, other)).status).toBe(200);
    for (const a of [lead, cc, ...bcc]) expect(await isSuppressed(t.accountId, a)).toBe(false);

    // The CC choosing their own address: only the CC is suppressed; the lead can still be written to.
    const done = await choose(link, cc);
    expect(done.status).toBe(200);
    expect(await done.text()).toContain(`You have been unsubscribed: ${cc}`);
    expect([await isSuppressed(t.accountId, lead), await isSuppressed(t.accountId, cc)]).toEqual([false, true]);
    const again = await reply(t.client.typed.POST('/api/public/v1/emails/', { body: { to: { email: lead, first_name: 'Jane' }, instructions: 'Follow up briefly.' } }));
    expect(again.status).toBe(202);
    await reply(t.client.typed.POST('/api/public/v1/emails/{id}/cancel/', { params: { path: { id: again.body.id } } }));
    // The lead choosing their own address unsubscribes the lead, as a single-recipient link does.
    expect(await (await choose(link, lead)).text()).toContain(`You have been unsubscribed: ${lead}`);
    expect(await isSuppressed(t.accountId, lead)).toBe(true);
  });
});

test('a Gmail send that dies handing over a BCC copy: the redelivery never sends the lead’s message again, nor a CC copy, nor the copy in doubt', async () => {
  const t = await tenantWith('google');
  const n = `crash${++seq}.${Date.now()}`;
  const lead = `lead.${n}@prospect.test`;
  const cc = `colleague.${n}@prospect.test`;
  const bcc = [`crm.${n}@seller.test`, `manager.${n}@seller.test`];
  const id = await created(t, lead, [cc], bcc);
  // Booked well ahead on the service clock, so the stack's own timer leaves it to this test.
  const sendAt = new Date(Date.now() + 3 * 86_400_000).toISOString();
  expect((await reply(t.client.typed.POST('/api/public/v1/emails/{id}/approve/', { params: { path: { id } }, body: { schedule: 'at', send_at: sendAt } }))).status).toBe(200);
  const queued = await getEmail(t.accountId, id);
  expect(queued!.status).toBe('queued');
  const clock = { now: () => new Date(Date.parse(queued!.scheduled_for!) + 1000) };
  const real = mailerFor((await getSendingAccount(t.accountId, t.ea.id))!);
  expect(real.envelopeDelivery).toBeUndefined();
  const delivered = async () => (await mailbox()).filter((m) => m.delivered_to.some((a: string) => a.includes(n))).map((m) => lower(m.delivered_to).sort());
  // The real Gmail engine; the attempt's worker dies as it hands over the first BCC copy.
  const dying: Mailer = { send: (mail) => (mail.to.includes(lead) ? real.send(mail) : new Promise<never>(() => undefined)) };
  void sendEmail(t.accountId, id, { mailer: dying, clock });
  let e = await getEmail(t.accountId, id);
  for (let i = 0; i < 200 && e!.copies?.bcc0 !== 'sending'; i++) {
    await new Promise((r) => setTimeout(r, 25));
    e = await getEmail(t.accountId, id);
  }
  // The CC recipients were on the lead's message: the record has no CC copy to send, and says who shared it.
  expect(e!.status).toBe('sent');
  expect(e!.copies).toEqual({ bcc0: 'sending', bcc1: 'due' });
  expect(e!.shared_with).toEqual([cc]);
  expect(await delivered()).toEqual([[cc, lead].sort()]);
  await expect(sendEmail(t.accountId, id, { clock })).rejects.toBeInstanceOf(SendInProgressError);
  for (let i = 0; i < 2; i++) await sendEmail(t.accountId, id, { clock, nowMs: () => Date.now() + SEND_LEASE_MS + 1000 });
  e = await getEmail(t.accountId, id);
  expect(e!.copies).toEqual({ bcc0: 'interrupted', bcc1: 'sent' });
  // The lead and the CC once, together; the copy in doubt never again; the other BCC once.
  expect(await delivered()).toEqual([[cc, lead].sort(), [bcc[1]]]);
});

test('a sequence with a CC on a Gmail sender: the CC unsubscribing through the shared link leaves the lead’s enrollment running (and the CC off later steps); the lead’s own choice ends it', async () => {
  const t = await tenantWith('google');
  const n = `seq${++seq}.${Date.now()}`;
  const lead = `lead.${n}@prospect.test`;
  const cc = `colleague.${n}@prospect.test`;
  const r = await reply(t.client.typed.POST('/api/public/v1/sequences/', { body: { instructions: 'Introduce our warehouse automation platform and ask for a 15-minute call.', contacts: [{ email: lead, first_name: 'Jane', company_name: 'Acme Robotics' }], steps: 3, review: 'none', cc: [cc] } }));
  expect(r.status).toBe(202);
  await settle();
  const read = async () => (await reply(t.client.typed.GET('/api/public/v1/sequences/{id}/', { params: { path: { id: r.body.id } } }))).body.enrollments[0];
  // The service clock moves to the next booked send (a jump far past it would have the sweeper redrive the
  // send before its timer fires), or half a day when nothing is booked.
  const until = async (done: (enrollment: any) => boolean) => {
    for (let i = 0; i < 60; i++) {
      const enrollment = await read();
      if (done(enrollment)) return;
      const booked = enrollment.emails.filter((e: any) => e.status === 'queued' && e.scheduled_for).map((e: any) => Date.parse(e.scheduled_for));
      const now = Date.parse((await advance(1)).body.now);
      await advance(booked.length ? Math.max(5, Math.ceil((Math.min(...booked) - now) / 1000) + 5) : 12 * 3600);
      await settle();
    }
    throw new Error('condition not reached on the service clock');
  };
  const ours = async () => (await mailbox()).filter((m) => m.delivered_to.some((a: string) => a.includes(n)));

  await until((en) => en.emails[0].status === 'sent');
  const [first] = await ours();
  expect(lower(first.delivered_to).sort()).toEqual([cc, lead].sort());
  expect(lower(first.cc)).toEqual([cc]);
  const link = unsubLink(first);
  expect((await choose(link, cc)).status).toBe(200);
  expect([await isSuppressed(t.accountId, lead), await isSuppressed(t.accountId, cc)]).toEqual([false, true]);

  // Step 1 still goes to the lead, and no longer to the unsubscribed CC: the lead alone, with one-click again.
  await until((en) => en.emails[1].status !== 'queued' && en.emails[1].status !== 'pending_review' && en.emails[1].status !== 'drafting');
  const mid = await read();
  expect(mid.status).toBe('active');
  expect(mid.emails[1].status).toBe('sent');
  const second = (await ours()).find((m) => m !== first && m.message_id !== first.message_id)!;
  expect(lower(second.delivered_to)).toEqual([lead]);
  expect(second.cc).toEqual([]);
  expect(second.headers['list-unsubscribe-post']).toBe('List-Unsubscribe=One-Click');

  // The lead choosing their own address on the shared link of step 0: step 2 is not sent, the enrollment ends.
  expect(await (await choose(link, lead)).text()).toContain(`You have been unsubscribed: ${lead}`);
  await until((en) => en.status !== 'active');
  const end = await read();
  expect(end.status).toBe('cancelled');
  expect(end.emails[2].status).not.toBe('sent');
  expect(end.emails[2].error.code).toBe('unsubscribed');
  expect(await ours()).toHaveLength(2);
}, LONG);
