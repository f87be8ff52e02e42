import { jest } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { LocalStack } from '../../shared/local/stack.js';
import { startServices } from '../../shared/local/services.js';
import { documentClient } from '../../shared/adapters/aws.js';
import { tableName } from '../../shared/catalog/resource-names.js';
import { getConnection } from '../../shared/mailboxes/mailboxes.repository.js';
import { pollMailbox } from '../../shared/outreach/poll-mailboxes.js';
import { Client, ROOT, newTenant, startTestStack, reply } from '../support/local.js';
import { arrive, consent, startFromConsole } from '../support/oauth-consent.js';

let stack: LocalStack;
let admin: Client;
const dir = mkdtempSync(join(tmpdir(), 'mailboxes-'));

beforeAll(async () => {
  // No background polling: each test decides when a poll runs (settle, dev/inbound, or by hand).
  stack = await startTestStack({ throttleMultiplier: 1000, mailboxPollSeconds: 0 });
  await startServices({ root: ROOT, stack, dataDir: null, directory: { file: join(dir, 'd.jsonl'), people: 200, seed: 5 } });
  admin = new Client(stack);
}, 120_000);
afterAll(async () => {
  await stack?.stop();
  rmSync(dir, { recursive: true, force: true });
});

jest.setTimeout(120_000);

const settle = async () => expect((await admin.console('POST', 'dev/settle/')).body).toEqual({ idle: true });
const mailbox = async () => (await admin.console('GET', 'dev/mailbox/')).body.messages as any[];

let seq = 0;
const unique = (what: string) => `${what}${++seq}.${Date.now()}`;

/**
 * The whole consent, as a browser goes through it: start (its answer sets the binding cookie), follow the
 * authorization URL to the emulator, which redirects to the public callback; the callback gets the cookie back
 * and no other header, and redirects to the app's page with the new sending account's id.
 */
async function connect(accountId: string, type: 'google' | 'microsoft', email: string) {
  const started = await startFromConsole(stack, accountId, { type, email });
  expect(started.status).toBe(201);
  const callback = await consent(started.body.authorization_url);
  expect(callback.pathname).toBe('/oauth/callback/');
  expect(callback.searchParams.get('state')).toBe(started.body.state);
  const done = await arrive(callback, started.cookie);
  return { started, callback, done };
}

async function tenantWith(type: 'google' | 'microsoft') {
  const t = await newTenant(stack);
  const email = `${unique('rep')}@${type === 'google' ? 'gmail.test' : 'outlook.test'}`;
  const { done } = await connect(t.accountId, type, email);
  expect(done.status).toBe(302);
  const id = done.location!.searchParams.get('sending_account');
  const ea = (await reply(t.client.typed.GET('/api/public/v1/email/accounts/'))).body.accounts.find((a: { id: string }) => a.id === id)!;
  expect(ea).toBeDefined();
  return { ...t, ea, email };
}

async function sentEmail(t: Awaited<ReturnType<typeof tenantWith>>, to: string) {
  const r = await reply(t.client.typed.POST('/api/public/v1/emails/', { body: {
    to: { email: to, first_name: 'Jane', company_name: 'Acme' },
    instructions: 'Short and friendly: introduce our warehouse automation platform, ask for a 15-minute call.',
  } }));
  expect(r.status).toBe(202);
  await settle();
  expect((await reply(t.client.typed.POST('/api/public/v1/emails/{id}/approve/', { params: { path: { id: r.body.id } }, body: { schedule: 'now' } }))).status).toBe(200);
  await settle();
  return (await reply(t.client.typed.GET('/api/public/v1/emails/{id}/', { params: { path: { id: r.body.id } } }))).body;
}

async function repliesTo(accountId: string, emailId: string) {
  const out = await documentClient().send(
    new QueryCommand({ TableName: tableName('outreach'), KeyConditionExpression: 'pk = :pk AND begins_with(sk, :r)', ExpressionAttributeValues: { ':pk': `ACCOUNT#${accountId}`, ':r': 'REPLY#' }, ConsistentRead: true }),
  );
  return (out.Items ?? []).filter((i) => i.email_id === emailId);
}

describe.each(['google', 'microsoft'] as const)('%s mailbox', (type) => {
  test('connects through the emulated OAuth flow: connected, healthy, the address the provider reports; the state is single-use', async () => {
    const t = await newTenant(stack);
    const email = `${unique('owner')}@${type}.test`;
    const { started, callback, done } = await connect(t.accountId, type, email);
    const url = new URL(started.body.authorization_url);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get('scope')).toContain(type === 'google' ? 'gmail.send' : 'Mail.Send');
    expect(url.searchParams.get('redirect_uri')).toBe(`http://localhost:${stack.port}/oauth/callback/`);
    // Back to the web app's sending-accounts page (no return_url was given), with the account's id.
    expect(done.status).toBe(302);
    expect(`${done.location!.origin}${done.location!.pathname}${done.location!.hash}`).toBe(`http://localhost:${stack.port}/app/#/sending-accounts`);
    const id = done.location!.searchParams.get('sending_account')!;
    expect(id).toMatch(/^ea_/);
    const listed = (await reply(t.client.typed.GET('/api/public/v1/email/accounts/'))).body.accounts;
    // Connected just now: it starts its warm-up (docs/outreach.md "Warm-up, engagement throttle and deliverability").
    expect(listed).toEqual([expect.objectContaining({ id, email, type, connected: true, health: 'warming_up', daily_limit: 20, warmup: expect.objectContaining({ day: 1 }) })]);
    const replay = await arrive(callback, started.cookie);
    expect([replay.status, replay.location?.searchParams.get('error')]).toEqual([302, 'invalid_state']);
    const connection = await getConnection(id);
    expect(connection?.tokens_sealed).toMatch(/^v2\./);
    expect(JSON.stringify(connection)).not.toContain('ya29.');
  });

  test('sends through the provider, then a reply found by the mailbox poll marks the email replied; an auto-reply is ignored; a DSN bounces', async () => {
    const t = await tenantWith(type);
    const to = `${unique('lead')}@prospect.test`;
    const email = await sentEmail(t, to);
    expect(email.status).toBe('sent');
    const sent = (await mailbox()).find((m) => m.to.includes(to));
    expect(sent.from).toBe(t.email);
    const mailboxCopy = stack.mailProviders.mailbox(t.email)!.messages.find((m) => m.raw.includes(to));
    expect(mailboxCopy?.internetMessageId).toBe(sent.message_id);

    const ooo = await admin.console('POST', 'dev/inbound/', { from: to, to: t.email, subject: `Automatic reply: ${sent.subject}`, text: 'I am currently out of the office.', in_reply_to: sent.message_id, headers: { 'Auto-Submitted': 'auto-replied' } });
    expect(ooo.body).toMatchObject({ matched: true, classification: 'auto_reply' });
    expect((await reply(t.client.typed.GET('/api/public/v1/emails/{id}/', { params: { path: { id: email.id } } }))).body.status).toBe('sent');

    const inbound = await admin.console('POST', 'dev/inbound/', { from: `Jane <${to}>`, to: t.email, subject: `Re: ${sent.subject}`, text: 'Sounds good.', in_reply_to: sent.message_id });
    expect(inbound.body).toMatchObject({ matched: true, classification: 'reply', counted_as_lead_reply: true });
    expect((await reply(t.client.typed.GET('/api/public/v1/emails/{id}/', { params: { path: { id: email.id } } }))).body.status).toBe('replied');

    const second = await sentEmail(t, `${unique('lead')}@prospect.test`);
    const secondSent = (await mailbox()).find((m) => m.to.includes(second.to.email));
    const dsn = await admin.console('POST', 'dev/inbound/', {
      from: type === 'google' ? 'Mail Delivery Subsystem <mailer-daemon@googlemail.com>' : 'postmaster@outlook.com',
      to: t.email,
      subject: type === 'google' ? 'Delivery Status Notification (Failure)' : 'Undeliverable: ' + secondSent.subject,
      text: `Final-Recipient: rfc822; ${second.to.email}\nAction: failed\nStatus: 5.1.1`,
      headers: { References: secondSent.message_id },
    });
    expect(dsn.body).toMatchObject({ matched: true, classification: 'bounce' });
    expect((await reply(t.client.typed.GET('/api/public/v1/emails/{id}/', { params: { path: { id: second.id } } }))).body.error.code).toBe('bounced');
  });

  test('a revoked grant found at sending fails that send (sender_disconnected) and disconnects the account; its other queued send fails too, never from another account', async () => {
    const t = await tenantWith(type);
    const fallback = await admin.console('POST', `accounts/${t.accountId}/sending-accounts/`, { email: `${unique('other')}@seller.test`, type: 'smtp' });
    expect(fallback.status).toBe(201);
    const drafted = async (to: string) => {
      const r = await reply(t.client.typed.POST('/api/public/v1/emails/', { body: { to: { email: to, first_name: 'Jane' }, from_account: t.ea.id, instructions: 'Short and friendly: ask for a 15-minute call.' } }));
      expect(r.status).toBe(202);
      return r.body.id as string;
    };
    const first = await drafted(`${unique('lead')}@prospect.test`);
    const second = await drafted(`${unique('lead')}@prospect.test`);
    await settle();
    stack.mailProviders.revoke(t.email);
    // No poll runs until the next settle: the send itself meets the revoked grant.
    expect((await reply(t.client.typed.POST('/api/public/v1/emails/{id}/approve/', { params: { path: { id: first } }, body: { schedule: 'now' } }))).status).toBe(200);
    let email: any;
    for (let i = 0; i < 120; i += 1) {
      email = (await reply(t.client.typed.GET('/api/public/v1/emails/{id}/', { params: { path: { id: first } } }))).body;
      if (email.status === 'failed' || email.status === 'sent') break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(email.status).toBe('failed');
    expect(email.error.code).toBe('sender_disconnected');
    const accounts = (await reply(t.client.typed.GET('/api/public/v1/email/accounts/'))).body.accounts;
    const account = accounts.find((a: any) => a.id === t.ea.id);
    expect(account).toMatchObject({ connected: false });
    expect(account.health).toMatch(/revoked/);
    expect((await getConnection(t.ea.id))?.status).toBe('revoked');

    expect((await reply(t.client.typed.POST('/api/public/v1/emails/{id}/approve/', { params: { path: { id: second } }, body: { schedule: 'now' } }))).status).toBe(200);
    await settle();
    const after = (await reply(t.client.typed.GET('/api/public/v1/emails/{id}/', { params: { path: { id: second } } }))).body;
    expect(after.status).toBe('failed');
    const recipients = [email.to.email, after.to.email];
    expect((await mailbox()).filter((m) => recipients.some((r) => m.to.includes(r)))).toEqual([]);
  });

  test('an expiring access token is refreshed before use and the new tokens are stored sealed', async () => {
    const t = await tenantWith(type);
    const before = await getConnection(t.ea.id);
    stack.mailProviders.expireAccessTokens(t.email);
    const polled = await pollMailbox(t.ea.id, { nowMs: () => before!.access_expires_ms - 60_000 });
    expect(polled?.messages).toBe(0);
    const after = await getConnection(t.ea.id);
    expect(after?.tokens_sealed).not.toBe(before?.tokens_sealed);
    expect(after!.access_expires_ms).toBeGreaterThan(Date.now() + 30 * 60_000);
  });

  test('a poll that dies before moving its cursor, then a restart: nothing lost, nothing doubled; a lost sync state resyncs', async () => {
    const t = await tenantWith(type);
    const to = `${unique('lead')}@prospect.test`;
    const email = await sentEmail(t, to);
    const sent = (await mailbox()).find((m) => m.to.includes(to));
    const compose = (subject: string, text: string, headers: Record<string, string> = {}) =>
      [`From: ${to}`, `To: ${t.email}`, `Subject: ${subject}`, `Message-ID: <${unique('in')}@prospect.test>`, `In-Reply-To: ${sent.message_id}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), '', text].join('\r\n');
    stack.mailProviders.deliver(t.email, compose('Automatic reply', 'Away', { 'Auto-Submitted': 'auto-replied' }));
    const cursorBefore = (await getConnection(t.ea.id))!.cursor;
    await expect(pollMailbox(t.ea.id, { beforeAdvance: async () => { throw new Error('crash before the cursor write'); } })).rejects.toThrow('crash');
    expect((await getConnection(t.ea.id))!.cursor).toBe(cursorBefore);
    expect(await repliesTo(t.accountId, email.id)).toHaveLength(1);
    // While the poller is down a reply arrives; the next poll (after the restart) sees both, records each once.
    stack.mailProviders.deliver(t.email, compose(`Re: ${sent.subject}`, 'Yes, Tuesday.'));
    const resumed = await pollMailbox(t.ea.id);
    expect(resumed).toMatchObject({ messages: 2, advanced: true });
    expect(await repliesTo(t.accountId, email.id)).toHaveLength(2);
    expect((await reply(t.client.typed.GET('/api/public/v1/emails/{id}/', { params: { path: { id: email.id } } }))).body.status).toBe('replied');
    expect(await pollMailbox(t.ea.id)).toMatchObject({ messages: 0 });

    // Gmail answers 404 for history that is gone, Graph 410 for a lost delta: the poll resyncs, doubling nothing.
    stack.mailProviders.forgetSyncState(t.email);
    const resynced = await pollMailbox(t.ea.id);
    expect(resynced?.resynced).toBe(true);
    expect(await repliesTo(t.accountId, email.id)).toHaveLength(2);
    expect(await pollMailbox(t.ea.id)).toMatchObject({ messages: 0, resynced: false });
  });
});

test('a Gmail follow-up is sent into the thread of the email it follows', async () => {
  const t = await tenantWith('google');
  const first = await sentEmail(t, `${unique('lead')}@prospect.test`);
  const { getEmail } = await import('../../shared/outreach/emails.repository.js');
  const record = await getEmail(t.accountId, first.id);
  expect(record?.thread_id).toEqual(expect.any(String));
  const box = stack.mailProviders.mailbox(t.email)!;
  expect(box.messages.find((m) => m.id === record!.provider_message_id)?.threadId).toBe(record!.thread_id);
});

test('connecting: an unknown account is 404, a foreign return_url is 400, a denied consent lands on the return_url with error=access_denied', async () => {
  expect((await admin.console('POST', 'accounts/acct_00000000000000000000000000/sending-accounts/connect/', { type: 'google' })).status).toBe(404);
  const t = await newTenant(stack);
  expect((await admin.console('POST', `accounts/${t.accountId}/sending-accounts/connect/`, { type: 'google', return_url: 'http://evil.example/' })).status).toBe(400);
  const back = 'http://127.0.0.1:9/operator/done?tab=mail';
  const started = await startFromConsole(stack, t.accountId, { type: 'microsoft', return_url: back });
  const denied = await arrive(`http://localhost:${stack.port}/oauth/callback/?state=${started.body.state}&error=access_denied&error_description=The+user+said+no`, started.cookie);
  expect(denied.status).toBe(302);
  expect(denied.location!.toString()).toBe(`${back}&error=access_denied`);
  expect((await reply(t.client.typed.GET('/api/public/v1/email/accounts/'))).body.accounts).toEqual([]);
});

describe.each(['google', 'microsoft'] as const)('a %s account created with POST sending-accounts/ (the console rule, on the twin)', (type) => {
  test('connects through the emulated consent: connected, tokens sealed, its mail goes through the provider and a reply is found by the poll', async () => {
    const t = await newTenant(stack);
    const email = `${unique('Operator')}@${type}-created.test`;
    const created = await admin.console('POST', `accounts/${t.accountId}/sending-accounts/`, { email, type, daily_limit: 7, timezone: 'Europe/Berlin' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ email, type, connected: true, health: 'healthy', daily_limit: 7, timezone: 'Europe/Berlin' });
    expect((await reply(t.client.typed.GET('/api/public/v1/email/accounts/'))).body.accounts).toHaveLength(1);
    const connection = await getConnection(created.body.id);
    expect(connection).toMatchObject({ provider: type, email: email.toLowerCase(), status: 'active' });
    expect(connection?.tokens_sealed).toMatch(/^v2\./);

    const to = `${unique('lead')}@prospect.test`;
    const sent = await sentEmail({ ...t, ea: created.body, email }, to);
    expect(sent.status).toBe('sent');
    const copy = stack.mailProviders.mailbox(email)!.messages.find((m) => m.raw.includes(to));
    const delivered = (await mailbox()).find((m) => m.to.includes(to));
    expect(copy?.internetMessageId).toBe(delivered.message_id);
    const inbound = await admin.console('POST', 'dev/inbound/', { from: to, to: email, subject: `Re: ${delivered.subject}`, text: 'Yes, Tuesday works.', in_reply_to: delivered.message_id });
    expect(inbound.body).toMatchObject({ matched: true, classification: 'reply', email_id: sent.id });
    expect((await reply(t.client.typed.GET('/api/public/v1/emails/{id}/', { params: { path: { id: sent.id } } }))).body.status).toBe('replied');
  });

  test('"connected": false skips the consent: no connection, not connected', async () => {
    const t = await newTenant(stack);
    const created = await admin.console('POST', `accounts/${t.accountId}/sending-accounts/`, { email: `${unique('idle')}@${type}-created.test`, type, connected: false });
    expect(created.body).toMatchObject({ connected: false });
    expect(await getConnection(created.body.id)).toBeNull();
  });
});
