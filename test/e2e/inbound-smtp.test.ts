import { connect } from 'node:net';
import { createTransport } from 'nodemailer';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { LocalStack } from '../../shared/local/stack.js';
import { SES_MAX_MESSAGE_BYTES } from '../../shared/local/s3-emulator.js';
import type { Client } from '../support/local.js';
import { dsnReport } from '../support/mail-reports.js';

/**
 * Real mail to the twin: an SMTP client (nodemailer) hands a reply to the loopback listener standing in for
 * SES receiving's MX; it is stored in the emulated inbound bucket and the inbound-mail function, run by the S3
 * event, matches it to the email it answers.
 */
let stack: LocalStack;
let admin: Client;
let support: typeof import('../support/local.js');
const logLevel = process.env.POWERTOOLS_LOG_LEVEL;
beforeAll(async () => {
  // The function logs each message it handles: quiet while passing. The service's logger takes its level when
  // its module loads (and a worker's middy puts that level back), so the stack is loaded after this is set.
  process.env.POWERTOOLS_LOG_LEVEL = 'ERROR';
  support = await import('../support/local.js');
  stack = await support.startTestStack({ throttleMultiplier: 1000 });
  admin = new support.Client(stack);
}, 120_000);
afterAll(async () => {
  await stack?.stop();
  if (logLevel === undefined) delete process.env.POWERTOOLS_LOG_LEVEL;
  else process.env.POWERTOOLS_LOG_LEVEL = logLevel;
});

const settle = async () => expect((await admin.console('POST', 'dev/settle/')).body).toEqual({ idle: true });
const mx = () => createTransport({ host: '127.0.0.1', port: stack.inboundSmtp.port, secure: false, ignoreTLS: true });

let seq = 0;
async function sentThroughSes() {
  const t = await support.newTenant(stack);
  const ea = (await admin.console('POST', `accounts/${t.accountId}/sending-accounts/`, { email: `rep${++seq}.${Date.now()}@seller.test`, type: 'smtp', transport: 'ses' })).body;
  const lead = `lead${seq}.${Date.now()}@prospect.test`;
  const created = await support.reply(t.client.typed.POST('/api/public/v1/emails/', { body: { to: { email: lead, first_name: 'Jane', last_name: 'Doe', company_name: 'Acme Robotics' }, instructions: 'Write a short, friendly email introducing our warehouse automation platform.' } }));
  expect(created.status).toBe(202);
  await settle();
  expect((await support.reply(t.client.typed.POST('/api/public/v1/emails/{id}/approve/', { params: { path: { id: created.body.id } }, body: { schedule: 'now' } }))).status).toBe(200);
  await settle();
  const send = stack.sentMail.find((s) => s.raw?.toString('utf8').includes(`<${created.body.id}.`))!;
  return { t, ea, lead, id: created.body.id as string, sesMessageId: send.provider_message_id! };
}

test('a reply sent over SMTP to the twin reaches the inbound-mail function through S3 and marks the email replied', async () => {
  const { t, ea, lead, id, sesMessageId } = await sentThroughSes();
  const transport = mx();
  // What the lead's mail server sends: the reply to the Message-ID SES gave the email.
  const info = await transport.sendMail({
    envelope: { from: lead, to: [ea.email] },
    from: `Jane Doe <${lead}>`,
    to: ea.email,
    subject: 'Re: warehouse automation',
    text: 'Sounds good, Tuesday works.',
    inReplyTo: `<${sesMessageId}@email.amazonses.com>`,
    references: [`<${sesMessageId}@email.amazonses.com>`],
  });
  transport.close();
  expect(info.accepted).toEqual([ea.email]);
  expect(info.response).toMatch(/^250 Ok [0-9a-v]{40}$/);
  const sesId = info.response.split(' ')[2];
  expect(stack.inboundSmtp.received.find((d) => d.message_id === sesId)).toEqual({
    message_id: sesId,
    from: lead,
    to: [ea.email],
    size: expect.any(Number),
    outcomes: [{ matched: true, classification: 'reply', email_id: id, counted_as_lead_reply: true }],
    error: null,
  });
  const email = (await support.reply(t.client.typed.GET('/api/public/v1/emails/{id}/', { params: { path: { id } } }))).body;
  expect(email.status).toBe('replied');
  expect(email.replied_at).not.toBeNull();
});

test('a bounce from the null sender (MAIL FROM:<>) is stored with an empty Return-Path and marks the email bounced', async () => {
  const { t, ea, lead, id, sesMessageId } = await sentThroughSes();
  const dsn = dsnReport({ mailbox: ea.email, recipient: lead, originalId: `<${sesMessageId}@email.amazonses.com>` });
  const transport = mx();
  const info = await transport.sendMail({ envelope: { from: '', to: [ea.email] }, raw: dsn });
  transport.close();
  const delivery = stack.inboundSmtp.received.find((d) => d.message_id === info.response.split(' ')[2])!;
  expect(delivery).toMatchObject({ from: '', to: [ea.email], outcomes: [{ matched: true, classification: 'bounce', email_id: id }], error: null });
  // The object as SES stored it, read as the twin (no function's grants).
  const s3 = new S3Client({ endpoint: stack.endpoints.s3 });
  const stored = await (await s3.send(new GetObjectCommand({ Bucket: 'local-inbound-mail', Key: `inbound/${delivery.message_id}` }))).Body!.transformToString();
  s3.destroy();
  expect(stored.split('\r\n').slice(0, 2)).toEqual([
    'Return-Path: <>',
    expect.stringMatching(new RegExp(`^Received: from (\\S+) \\(\\1 \\[127\\.0\\.0\\.1\\]\\) by inbound-smtp\\.us-east-1\\.amazonaws\\.com with SMTP id ${delivery.message_id} for ${ea.email.replace(/\\./g, '\\\\.')}; `)),
  ]);
  expect(stored.endsWith(dsn)).toBe(true);
  const email = (await support.reply(t.client.typed.GET('/api/public/v1/emails/{id}/', { params: { path: { id } } }))).body;
  expect(email.error?.code).toBe('bounced');
});

test('the function failing (its S3 grant taken away) does not change the SMTP answer, as SES accepts before S3 runs it; the failure is kept', async () => {
  const [{ overrideBindings }, { INBOUND_MAIL }] = await Promise.all([import('../../shared/local/function-context.js'), import('../../shared/catalog/functions.js')]);
  overrideBindings('inbound-mail', { ...INBOUND_MAIL.bindings });
  const transport = mx();
  try {
    const info = await transport.sendMail({ envelope: { from: 'ada@prospect.test', to: ['rep@seller.test'] }, raw: 'From: ada@prospect.test\r\nTo: rep@seller.test\r\nSubject: hello\r\n\r\nhi\r\n' });
    expect(info.response).toMatch(/^250 Ok [0-9a-v]{40}$/);
    expect(stack.inboundSmtp.received.find((d) => d.message_id === info.response.split(' ')[2])).toMatchObject({
      outcomes: null,
      error: expect.stringMatching(/^AccessDeniedException: User: arn:aws:sts::000000000000:assumed-role\/local-inbound-mail\/local-inbound-mail is not authorized to perform: s3:GetObject on resource: arn:aws:s3:::local-inbound-mail\/inbound\//),
    });
  } finally {
    transport.close();
    overrideBindings('inbound-mail', null);
  }
});

/** One SMTP conversation over a plain socket: each line sent after the previous answer, the answers returned. */
async function converse(port: number, lines: string[]): Promise<string[]> {
  const socket = connect(port, '127.0.0.1');
  const answers: string[] = [];
  let buffered = '';
  const next = () =>
    new Promise<string>((resolve, reject) => {
      const read = () => {
        // A reply ends with a line whose code is followed by a space (`250 …`, not `250-…`).
        const m = /(^|\r\n)(\d{3}) [^\r\n]*\r\n/.exec(buffered);
        if (!m) return;
        const end = m.index + m[0].length;
        const reply = buffered.slice(0, end);
        buffered = buffered.slice(end);
        socket.off('data', onData);
        resolve(reply.trim());
      };
      const onData = (c: Buffer) => {
        buffered += c.toString('latin1');
        read();
      };
      socket.on('data', onData);
      socket.once('error', reject);
      read();
    });
  answers.push(await next());
  for (const line of lines) {
    socket.write(`${line}\r\n`);
    answers.push(await next());
  }
  socket.end();
  return answers;
}

test('a message over SES receiving’s 40 MB is refused: SIZE is advertised, a larger declared size is 552 at MAIL FROM, a larger body 552 at its end', async () => {
  const [greeting, ehlo, mail] = await converse(stack.inboundSmtp.port, ['EHLO mta.prospect.test', `MAIL FROM:<big@prospect.test> SIZE=${SES_MAX_MESSAGE_BYTES + 1}`, 'QUIT']);
  expect(greeting).toMatch(/^220 inbound-smtp\.us-east-1\.amazonaws\.com /);
  expect(ehlo).toMatch(new RegExp(`^250[- ]SIZE ${SES_MAX_MESSAGE_BYTES}$`, 'm'));
  expect(ehlo).not.toMatch(/AUTH|STARTTLS/);
  expect(mail).toMatch(/^552 .*maximum message size/);
  // A client that does not declare the size is refused once the body passes the limit; nothing is stored.
  const before = stack.inboundSmtp.received.length;
  const transport = mx();
  const sent = await transport
    .sendMail({ envelope: { from: 'big@prospect.test', to: ['rep@seller.test'] }, raw: Buffer.concat([Buffer.from('Subject: big\r\n\r\n'), Buffer.alloc(SES_MAX_MESSAGE_BYTES, 0x61)]) })
    .catch((e: unknown) => e);
  transport.close();
  expect(sent).toMatchObject({ responseCode: 552 });
  expect(stack.inboundSmtp.received.length).toBe(before);
});
