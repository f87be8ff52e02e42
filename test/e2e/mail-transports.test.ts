import type { LocalStack } from '../../shared/local/stack.js';
import { Client, newTenant, startTestStack, reply } from '../support/local.js';
import { sesEventFor } from '../support/ses-events.js';

/**
 * `smtp` accounts with their own server and login, `smtp` accounts sending through SES, SES's Message-ID in
 * reply matching, and SES bounce and complaint events through the mail-events queue, on the local stack.
 */
let stack: LocalStack;
let admin: Client;
const output: string[] = [];
const writes = { out: process.stdout.write.bind(process.stdout), err: process.stderr.write.bind(process.stderr) };

beforeAll(async () => {
  // Every log line of the stack (handlers and workers run in this process) is kept to be searched.
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => (output.push(String(chunk)), writes.out(chunk, ...(rest as [])))) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => (output.push(String(chunk)), writes.err(chunk, ...(rest as [])))) as typeof process.stderr.write;
  stack = await startTestStack({ throttleMultiplier: 1000 });
  admin = new Client(stack);
}, 120_000);
afterAll(async () => {
  process.stdout.write = writes.out;
  process.stderr.write = writes.err;
  await stack?.stop();
});

const settle = async () => expect((await admin.console('POST', 'dev/settle/')).body).toEqual({ idle: true });
const sinkPort = () => Number(new URL(stack.endpoints.smtp).port);

let seq = 0;
const recipient = () => `lead${++seq}.${Date.now()}@prospect.test`;

async function tenantWith(sendingAccount: Record<string, unknown>) {
  const t = await newTenant(stack);
  const ea = await admin.console('POST', `accounts/${t.accountId}/sending-accounts/`, { email: `rep${++seq}@seller.test`, ...sendingAccount });
  expect(ea.status).toBe(201);
  return { ...t, ea: ea.body };
}

async function sent(t: Awaited<ReturnType<typeof tenantWith>>, to = recipient()) {
  const r = await reply(t.client.typed.POST('/api/public/v1/emails/', { body: {
    to: { email: to, first_name: 'Jane', last_name: 'Doe', company_name: 'Acme Robotics' },
    instructions: 'Write a short, friendly email introducing our warehouse automation platform.',
  } }));
  expect(r.status).toBe(202);
  await settle();
  expect((await reply(t.client.typed.POST('/api/public/v1/emails/{id}/approve/', { params: { path: { id: r.body.id } }, body: { schedule: 'now' } }))).status).toBe(200);
  await settle();
  return { ...(await reply(t.client.typed.GET('/api/public/v1/emails/{id}/', { params: { path: { id: r.body.id } } }))).body, to_address: to };
}

const sendOf = (emailId: string) => stack.sentMail.find((s) => s.raw?.toString('utf8').includes(`<${emailId}.`));

describe('smtp accounts with their own server', () => {
  const password = 'Pw-never-shown-7f3a9c';

  test('create: the settings are shown without the password; the public list shows none of them', async () => {
    stack.smtpLogins.set('rep-login', password);
    const t = await tenantWith({ type: 'smtp', smtp: { host: 'localhost', port: sinkPort(), username: 'rep-login', password } });
    expect(t.ea.smtp).toEqual({ host: 'localhost', port: sinkPort(), username: 'rep-login', tls: 'starttls', password_set: true });
    expect(t.ea.transport).toBe('smtp');
    const list = await reply(t.client.typed.GET('/api/public/v1/email/accounts/'));
    expect(list.status).toBe(200);
    expect(Object.keys(list.body.accounts[0]).sort()).toEqual(['configured_daily_limit', 'connected', 'daily_limit', 'email', 'health', 'id', 'sending_enabled', 'sent_today', 'type', 'warmup']);
    expect(JSON.stringify(t.ea) + JSON.stringify(list.body)).not.toContain(password);
  });

  test('a send goes through the SMTP server with the account’s login; a wrong password fails it; a corrected one is used from the next send', async () => {
    stack.smtpLogins.set('rep-two', password);
    const t = await tenantWith({ type: 'smtp', smtp: { host: 'localhost', port: sinkPort(), username: 'rep-two', password } });
    const first = await sent(t);
    expect(first.status).toBe('sent');
    expect(sendOf(first.id)).toMatchObject({ auth_user: 'rep-two', envelope_to: [first.to_address] });

    const wrong = await admin.console('PATCH', `sending-accounts/${t.ea.id}/`, { smtp: { password: 'not-the-password' } });
    expect(wrong.status).toBe(200);
    expect(wrong.body.smtp).toEqual({ host: 'localhost', port: sinkPort(), username: 'rep-two', tls: 'starttls', password_set: true });
    const refused = await sent(t);
    expect(refused.status).toBe('failed');
    expect(refused.error.code).toBe('send_failed');
    expect(sendOf(refused.id)).toBeUndefined();

    expect((await admin.console('PATCH', `sending-accounts/${t.ea.id}/`, { smtp: { password } })).status).toBe(200);
    const again = await sent(t);
    expect(again.status).toBe('sent');
    expect(sendOf(again.id)?.auth_user).toBe('rep-two');

    const logs = output.join('');
    // The failed send was logged (so the log is really searched), and no line carries either password.
    expect(logs).toContain('send failed');
    for (const secret of [password, 'not-the-password']) {
      // Plain, or as SASL PLAIN / LOGIN put it on the wire.
      for (const form of [secret, Buffer.from(`\0rep-two\0${secret}`).toString('base64'), Buffer.from(secret).toString('base64')]) expect(logs).not.toContain(form);
    }
  });

  test('any other host is the twin’s SMTP sink; an smtp account without settings uses the relay', async () => {
    const own = await tenantWith({ type: 'smtp', smtp: { host: 'smtp.seller.test', port: 587, username: 'someone', password: 'x-pass' } });
    const viaOwn = await sent(own);
    expect(viaOwn.status).toBe('sent');
    expect(sendOf(viaOwn.id)?.auth_user).toBe('someone');
    const relay = await tenantWith({ type: 'smtp' });
    expect(relay.ea.smtp).toBeNull();
    const viaRelay = await sent(relay);
    expect(viaRelay.status).toBe('sent');
    expect(sendOf(viaRelay.id)?.auth_user).toBeNull();
  });

  test('settings are validated and belong to smtp accounts only', async () => {
    const t = await newTenant(stack);
    const bad = await admin.console('POST', `accounts/${t.accountId}/sending-accounts/`, { email: 'x@seller.test', type: 'smtp', smtp: { host: '10.0.0.1', port: 70000, username: 'u', password: 'p' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.map((d: { path: string }) => d.path).sort()).toEqual(['smtp.host', 'smtp.port']);
    const google = await tenantWith({ type: 'google' });
    const patched = await admin.console('PATCH', `sending-accounts/${google.ea.id}/`, { smtp: { host: 'smtp.seller.test', port: 587, username: 'u', password: 'p' } });
    expect(patched.status).toBe(400);
    const relay = await tenantWith({ type: 'smtp' });
    const partial = await admin.console('PATCH', `sending-accounts/${relay.ea.id}/`, { smtp: { host: 'smtp.seller.test' } });
    expect(partial.status).toBe(400);
    expect(partial.body.error.details.map((d: { path: string }) => d.path).sort()).toEqual(['smtp.password', 'smtp.port', 'smtp.username']);
  });
});

describe('sending through SES', () => {
  test('an smtp account set to transport ses sends through SES naming the configuration set; a reply to SES’s Message-ID is matched', async () => {
    const t = await tenantWith({ type: 'smtp', transport: 'ses' });
    const e = await sent(t);
    expect(e.status).toBe('sent');
    const send = sendOf(e.id)!;
    expect(send.configuration_set).toBe('local-mail');
    expect(send.provider_message_id).toEqual(expect.any(String));
    const inbound = await admin.console('POST', 'dev/inbound/', {
      from: `Jane Doe <${e.to_address}>`,
      to: t.ea.email,
      subject: 'Re: hello',
      text: 'Sounds good.',
      headers: { 'In-Reply-To': `<${send.provider_message_id}@email.amazonses.com>` },
    });
    expect(inbound.body).toMatchObject({ matched: true, email_id: e.id, classification: 'reply' });
    expect((await reply(t.client.typed.GET('/api/public/v1/emails/{id}/', { params: { path: { id: e.id } } }))).body.status).toBe('replied');
  });
});

describe('SES bounce and complaint events', () => {
  const inject = (event: Record<string, unknown>) => admin.console('POST', 'dev/ses-events/', event);

  test('a permanent bounce marks the email bounced and stops later emails to the address; the same event twice has one effect', async () => {
    const t = await tenantWith({ type: 'google' });
    const e = await sent(t);
    const sesId = sendOf(e.id)!.provider_message_id!;
    const event = sesEventFor('bounce-permanent', { messageId: sesId, recipient: e.to_address });
    expect((await inject(event)).status).toBe(202);
    await settle();
    const bounced = (await reply(t.client.typed.GET('/api/public/v1/emails/{id}/', { params: { path: { id: e.id } } }))).body;
    expect(bounced.error.code).toBe('bounced');

    expect((await inject(event)).status).toBe(202);
    await settle();
    expect((await reply(t.client.typed.GET('/api/public/v1/emails/{id}/', { params: { path: { id: e.id } } }))).body.updated_at).toBe(bounced.updated_at);

    const later = await reply(t.client.typed.POST('/api/public/v1/emails/', { body: { to: { email: e.to_address, first_name: 'Jane' }, instructions: 'Follow up on my last email.' } }));
    expect(later.status).toBe(400);
  });

  test('a transient bounce changes nothing', async () => {
    const t = await tenantWith({ type: 'google' });
    const e = await sent(t);
    await inject(sesEventFor('bounce-transient', { messageId: sendOf(e.id)!.provider_message_id!, recipient: e.to_address }));
    await settle();
    expect((await reply(t.client.typed.GET('/api/public/v1/emails/{id}/', { params: { path: { id: e.id } } }))).body).toMatchObject({ status: 'sent', error: null });
  });

  test('a complaint suppresses the address: a later email to it is refused as for an unsubscribed one', async () => {
    const t = await tenantWith({ type: 'google' });
    const e = await sent(t);
    const queued = await reply(t.client.typed.POST('/api/public/v1/emails/', { body: { to: { email: e.to_address, first_name: 'Jane' }, instructions: 'A second note.' } }));
    expect(queued.status).toBe(202);
    await settle();
    await inject(sesEventFor('complaint', { messageId: sendOf(e.id)!.provider_message_id!, recipient: e.to_address }));
    await settle();
    const refused = await reply(t.client.typed.POST('/api/public/v1/emails/', { body: { to: { email: e.to_address, first_name: 'Jane' }, instructions: 'A third note.' } }));
    expect(refused.status).toBe(400);
    expect(refused.body.error.details).toEqual([{ path: 'to.email', message: 'on your suppression list' }]);
    await reply(t.client.typed.POST('/api/public/v1/emails/{id}/approve/', { params: { path: { id: queued.body.id } }, body: { schedule: 'now' } }));
    await settle();
    expect((await reply(t.client.typed.GET('/api/public/v1/emails/{id}/', { params: { path: { id: queued.body.id } } }))).body.error.code).toBe('unsubscribed');
  });

  test('an event that is not of the documented shape is refused at the door', async () => {
    const r = await inject({ id: 'x', 'detail-type': 'Email Bounced', source: 'aws.ses', detail: { mail: {} } });
    expect(r.status).toBe(400);
  });
});
