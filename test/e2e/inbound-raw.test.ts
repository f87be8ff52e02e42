import { jest } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LocalStack } from '../../shared/local/stack.js';
import { Client, ROOT, newTenant, reply, startTestStack, type RequestBody } from '../support/local.js';
import { plainMessage } from '../support/mail-reports.js';

// Mail as it really arrives, over HTTP against the twin: `POST dev/inbound/` with `{mailbox, raw}` puts the
// RFC 5322 text into the emulated Gmail mailbox of a connected sender (then the poll finds it), or through
// SES receiving for any other sender (the object stored in the inbound bucket, then the inbound-mail function).
let stack: LocalStack;
let admin: Client;
beforeAll(async () => {
  stack = await startTestStack({ throttleMultiplier: 1000, mailboxPollSeconds: 0 });
  admin = new Client(stack);
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});
jest.setTimeout(180_000);

const settle = async () => expect((await admin.console('POST', 'dev/settle/')).body).toEqual({ idle: true });
const advance = async (seconds: number) => admin.console('POST', 'dev/clock/', { advance_seconds: seconds });
const mailbox = async () => (await admin.console('GET', 'dev/mailbox/')).body.messages as any[];
const inbound = async (mailboxAddress: string, raw: string) => {
  const r = await admin.console('POST', 'dev/inbound/', { mailbox: mailboxAddress, raw });
  expect(r.status).toBe(202);
  return r.body;
};

let n = 0;
const address = () => `lead${++n}.${Date.now()}@prospect.test`;
const contact = (email: string) => ({ email, first_name: 'Jane', last_name: 'Doe', company_name: 'Acme Robotics' });

/** `google`: a mailbox connected through the emulated consent (read by the poll); `ses`: an SES sender (its mail arrives by SES receiving). */
async function tenant(kind: 'google' | 'ses') {
  const t = await newTenant(stack);
  const ea = await admin.console('POST', `accounts/${t.accountId}/sending-accounts/`, { email: `rep${++n}.${Date.now()}@seller.test`, ...(kind === 'google' ? { type: 'google' } : { type: 'smtp', transport: 'ses' }) });
  expect(ea.status).toBe(201);
  return { ...t, ea: ea.body as { id: string; email: string } };
}
type Tenant = Awaited<ReturnType<typeof tenant>>;

/** A sequence of `steps` to `contacts`, auto-approved, with step 0 sent to each. */
async function running(t: Tenant, contacts: string[], extra: Record<string, unknown> = {}) {
  const r = await reply(t.client.typed.POST('/api/public/v1/sequences/', { body: { instructions: 'Introduce our warehouse automation platform and ask for a 15-minute call.', contacts: contacts.map(contact), steps: 3, review: 'none', ...extra } as RequestBody<'post_sequences'> }));
  expect([r.status, r.status === 202 ? null : r.body]).toEqual([202, null]);
  await settle();
  for (let i = 0; i < 20; i++) {
    const sent = (await mailbox()).filter((m) => contacts.some((c) => m.to.includes(c)));
    if (new Set(sent.flatMap((m) => m.to)).size >= contacts.length) break;
    await advance(12 * 3600);
    await settle();
  }
  return r.body.id as string;
}
const read = async (t: Tenant, id: string) => (await reply(t.client.typed.GET('/api/public/v1/sequences/{id}/', { params: { path: { id } } }))).body;
const statusOf = (s: any, email: string) => s.enrollments.find((e: any) => e.contact.email === email).status as string;
const messageTo = async (lead: string) => (await mailbox()).find((m) => m.to.includes(lead))!.message_id as string;

/** A real bounce from the corpus (test/fixtures/mail-corpus), re-addressed: its failed recipient is `lead`, its returned Message-ID `messageId`. */
function realBounce(lead: string, mailboxAddress: string, messageId: string): string {
  const dir = join(ROOT, 'test/fixtures/mail-corpus');
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { messages?: any[] } | any[];
  const entries = Array.isArray(manifest) ? manifest : manifest.messages!;
  const e = entries.find((m: any) => m.kind === 'bounce' && m.hard === true && /postfix/i.test(m.mail_system ?? '') && m.recipient)!;
  let raw = readFileSync(join(dir, e.file), 'utf8');
  raw = raw.split(e.recipient).join(lead);
  // The returned message's own Message-ID is the original's: it now names the email this service sent.
  raw = raw.replace(/(Content-Type:\s*(?:message\/rfc822|text\/rfc822-headers)[\s\S]*?^Message-I[Dd]:\s*)<[^>\r\n]*>/im, `$1${messageId}`);
  raw = raw.replace(/^To:.*$/m, `To: ${mailboxAddress}`);
  return raw;
}


test('a real-format bounce whose failed recipient is a sequence lead stops that lead and only that lead', async () => {
  const t = await tenant('google');
  const [bouncer, other] = [address(), address()];
  const id = await running(t, [bouncer, other]);
  const out = await inbound(t.ea.email, realBounce(bouncer, t.ea.email, await messageTo(bouncer)));
  expect(out).toMatchObject({ matched: true, classification: 'bounce', counted_as_lead_reply: false });
  const s = await read(t, id);
  expect(statusOf(s, bouncer)).toBe('bounced');
  expect(statusOf(s, other)).toBe('active');
});

test('Gmail mailbox: a group email, a From: x, an over-long In-Reply-To and a 160,000-character CJK body arrive before the reply; the reply still stops the lead, the bad ones are listed', async () => {
  const t = await tenant('google');
  const lead = address();
  const id = await running(t, [lead]);
  const original = await messageTo(lead);
  const since = new Date().toISOString();
  const group = Array.from({ length: 25 }, (_, i) => `person${i}@big-company.test`).join(', ');
  const bad = [
    plainMessage([`From: announcer@big-company.test`, `To: ${group}, ${t.ea.email}`, 'Subject: All hands', `In-Reply-To: ${original}`], 'Everyone, see you at noon.'),
    plainMessage(['From: x', `To: ${t.ea.email}`, 'Subject: hello', `In-Reply-To: ${original}`], 'who am i'),
    plainMessage([`From: ${lead}`, `To: ${t.ea.email}`, 'Subject: Re: long', `In-Reply-To: <${'a'.repeat(1500)}@prospect.test>`], 'An id longer than any line may be.'),
    plainMessage([`From: someone@prospect.test`, `To: ${t.ea.email}`, 'Subject: 長文', `In-Reply-To: ${original}`], '日本語の長い本文です。'.repeat(16_000).slice(0, 160_000)),
  ];
  const outcomes = [];
  for (const raw of bad) outcomes.push(await inbound(t.ea.email, raw));
  expect(outcomes[1]).toMatchObject({ matched: false, unprocessable: 'no_sender' });
  expect(statusOf(await read(t, id), lead)).toBe('active');
  const genuine = await inbound(t.ea.email, plainMessage([`From: Jane Doe <${lead}>`, `To: ${t.ea.email}`, 'Subject: Re: hello', `In-Reply-To: ${original}`, `References: ${original}`], 'Interested, call me Tuesday.'));
  expect(genuine).toMatchObject({ matched: true, classification: 'reply', counted_as_lead_reply: true });
  expect(statusOf(await read(t, id), lead)).toBe('replied');
  const issues = (await admin.console('GET', 'inbound-issues/?days=1')).body.results as any[];
  const recent = issues.filter((i) => i.received_at >= since && i.mailbox === t.ea.email);
  expect(recent.map((i) => [i.status, i.reasons.join(',')]).sort()).toEqual([
    ['repaired', 'body_truncated'],
    ['repaired', 'header_trimmed:in-reply-to'],
    ['repaired', 'recipients_trimmed'],
    ['unprocessable', 'no_sender'],
  ]);
});

test('a forged "Undeliverable:" from a stranger and a "reply" from a CC address stop nothing and change no other account\'s email', async () => {
  const t = await tenant('google');
  const lead = address();
  const id = await running(t, [lead], { cc: ['colleague@prospect.test'] });
  const original = await messageTo(lead);
  // Another account emailed the same person: its email must stay as it is whatever arrives here.
  const other = await tenant('google');
  const otherId = await running(other, [lead]);
  const forged = await inbound(
    t.ea.email,
    plainMessage([`From: stranger@elsewhere.test`, `To: ${t.ea.email}`, 'Subject: Undeliverable: hello', `In-Reply-To: ${original}`, `X-Failed-Recipients: ${lead}`], `Delivery has failed to these recipients or groups:\r\n\r\n${lead}\r\nThe email address wasn't found.`),
  );
  expect(forged).toMatchObject({ matched: true, classification: 'reply', counted_as_lead_reply: false });
  const cc = await inbound(t.ea.email, plainMessage([`From: colleague@prospect.test`, `To: ${t.ea.email}`, `Cc: ${lead}`, 'Subject: Re: hello', `In-Reply-To: ${original}`], 'Adding my thoughts.'));
  expect(cc).toMatchObject({ matched: true, classification: 'reply', counted_as_lead_reply: false });
  expect(statusOf(await read(t, id), lead)).toBe('active');
  expect(statusOf(await read(other, otherId), lead)).toBe('active');
  // The other account can still email the address: nothing marked it invalid or bounced.
  const emails = (await reply(other.client.typed.GET('/api/public/v1/emails/', { params: { query: {} } }))).body;
  expect(JSON.stringify(emails)).not.toContain('bounced');
});

test('SES receiving: a real-format bounce of an SES sender\'s email, stored and read by the inbound-mail function, marks that email bounced', async () => {
  const t = await tenant('ses');
  const lead = address();
  const created = await reply(t.client.typed.POST('/api/public/v1/emails/', { body: { to: contact(lead), instructions: 'Introduce our warehouse automation platform and ask for a 15-minute call.', review: 'none' } as RequestBody<'post_emails'> }));
  expect(created.status).toBe(202);
  await settle();
  for (let i = 0; i < 10 && !(await mailbox()).some((m) => m.to.includes(lead)); i++) {
    await advance(12 * 3600);
    await settle();
  }
  const out = await inbound(t.ea.email, realBounce(lead, t.ea.email, await messageTo(lead)));
  expect(out).toMatchObject({ matched: true, classification: 'bounce', email_id: created.body.id });
  const email = (await reply(t.client.typed.GET('/api/public/v1/emails/{id}/', { params: { path: { id: created.body.id } } }))).body;
  expect(email.error?.code).toBe('bounced');
});
