import { createHash, randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSRecord } from 'aws-lambda';
import type { LocalStack } from '../../shared/local/stack.js';
import { Client, newTenant, startTestStack } from '../support/local.js';
import { drainQueue } from '../support/probes.js';
import { advanceServiceClock } from '../../shared/core/clock.js';
import type { MessageOf } from '../../shared/catalog/messages.js';
import { DEADLINES } from '../../shared/catalog/deadlines.js';
import { documentClient } from '../../shared/adapters/aws.js';
import { tableName } from '../../shared/catalog/resource-names.js';
import { accountsKeys } from '../../shared/accounts/accounts.keys.js';
import { sesMailer, type Mailer } from '../../shared/adapters/mailer.js';
import { MailRefusedError } from '../../shared/adapters/mail-refused.js';
import { SenderDisconnectedError } from '../../shared/mailboxes/mailbox-session.js';
import { HostileSmtp } from '../support/hostile-smtp.js';
import { sendTestEmail } from '../../shared/test-emails/send-test-email.js';
import { getTestEmail } from '../../shared/test-emails/test-emails.repository.js';
import { IN_FLIGHT_MS } from '../../shared/test-emails/model.js';
import { timerHandlers } from '../../shared/workers/timers.handlers.js';
import { sweep } from '../../shared/workers/sweep.js';
import { deadLetterHandler } from '../../shared/workers/dead-letters.js';
import { lambdaContext } from '../../shared/local/event-source-runner.js';

/**
 * Test emails on the real local stack (docs/decisions.md#test-emails-pilot): the HTTP routes through the local gateway,
 * DynamoDB Local, the real sending and timers queues and the Scheduler emulator. Workers do not run by
 * themselves: each test takes the messages the code really sent off the queues and runs them, so it sees
 * exactly what was sent and how often.
 */
let stack: LocalStack;
beforeAll(async () => {
  // More pilot accounts than production's three, so each test has its own quotas.
  stack = await startTestStack({ workers: false, throttleMultiplier: 1000, env: { PILOT_ACCOUNT_LIMIT: '200' } });
});
afterAll(async () => {
  await stack?.stop();
});

/** Run every send message now on the sending queue (as the worker would) and return them. */
async function runSends(deps: { mailer?: Mailer } = {}): Promise<MessageOf<'sending'>[]> {
  const sends = await drainQueue(stack, 'sending');
  for (const m of sends) if (m.kind === 'send_test_email') await sendTestEmail(m.account_id, m.test_email_id, deps);
  return sends;
}

type TestSend = Extract<MessageOf<'sending'>, { kind: 'send_test_email' }>;
const testSends = (ms: MessageOf<'sending'>[], id: string) => ms.filter((m): m is TestSend => m.kind === 'send_test_email' && m.test_email_id === id);

interface Pilot {
  client: Client;
  admin: Client;
  accountId: string;
  keyId: string;
  senderId: string;
  senderEmail: string;
}

let n = 0;
async function pilot(opts: { attachments?: boolean; pilot?: boolean; signature?: string } = {}): Promise<Pilot> {
  const t = await newTenant(stack, { pilot: opts.pilot ?? true, credits: 100 });
  const senderEmail = `rep-${++n}-${Date.now()}@seller.test`;
  const sender = await t.admin.console('POST', `accounts/${t.accountId}/sending-accounts/`, { email: senderEmail, type: 'google' });
  expect(sender.status).toBe(201);
  if (opts.attachments) expect((await t.admin.console('PATCH', `accounts/${t.accountId}/`, { attachments_enabled: true })).status).toBe(200);
  if (opts.signature) expect((await t.admin.console('PATCH', `sending-accounts/${sender.body.id}/`, { signature_html: opts.signature })).status).toBe(200);
  return { client: t.client, admin: t.admin, accountId: t.accountId, keyId: t.keyId, senderId: sender.body.id, senderEmail };
}

const body = (p: Pilot, extra: Record<string, unknown> = {}) => ({ from_account: p.senderId, subject: 'Pilot copy', body_plain: 'Hello,\n\nthis is the finished copy.', ...extra });
const post = (c: Client, b: unknown, key: string | null = randomUUID()) => c.api('POST', 'test-emails/', b, key === null ? {} : { 'Idempotency-Key': key });

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
const PDF = Buffer.from('%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pages /Kids [] /Count 0 >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n');
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0xff, 0xd9]);
const TEXT = Buffer.from('Grüße aus dem Test — plain UTF-8 text.\n');
const CSV = Buffer.from('name,company\nAda,Analytical Engines\n');
const file = (filename: string, content_type: string, bytes: Buffer) => ({ filename, content_type, content_base64: bytes.toString('base64') });
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('who may call', () => {
  test('a missing, unknown or revoked key is 401 unauthorized on both routes', async () => {
    const p = await pilot();
    const id = randomUUID();
    for (const c of [new Client(stack), new Client(stack, 'not-a-real-key')]) {
      for (const r of [await post(c, body(p)), await c.api('GET', `test-emails/${id}/`)]) {
        expect([r.status, r.body.error.code]).toEqual([401, 'unauthorized']);
      }
    }
    expect((await p.admin.console('DELETE', `accounts/${p.accountId}/api-keys/${p.keyId}/`)).status).toBe(204);
    const revoked = await post(p.client, body(p));
    expect([revoked.status, revoked.body.error.code]).toEqual([401, 'unauthorized']);
    expect([(await p.client.api('GET', `test-emails/${id}/`)).status]).toEqual([401]);
  });

  test('an account outside the pilot is 403 permission_denied, before its request is judged', async () => {
    const p = await pilot({ pilot: false });
    for (const r of [await post(p.client, body(p)), await post(p.client, { to: 'x@y.test' }, null), await p.client.api('GET', `test-emails/${randomUUID()}/`)]) {
      expect([r.status, r.body.error.code]).toEqual([403, 'permission_denied']);
    }
    expect(await drainQueue(stack, 'sending')).toEqual([]);
  });
});

describe('strict body', () => {
  test.each([
    ['to', { to: 'someone@else.test' }],
    ['cc', { cc: ['a@b.test'] }],
    ['bcc', { bcc: ['a@b.test'] }],
    ['reply_to', { reply_to: 'a@b.test' }],
    ['review', { review: 'none' }],
    ['schedule', { schedule: { mode: 'at', send_at: '2030-01-01T00:00:00Z' } }],
    ['send_at', { send_at: '2030-01-01T00:00:00Z' }],
    ['anything else', { priority: 'high' }],
    ['an empty subject', { subject: '' }],
    ['a 301-character subject', { subject: 's'.repeat(301) }],
    ['a control character in the subject', { subject: 'Hello\u0007there' }],
    ['a line break in the subject', { subject: 'Hello\r\nBcc: x@y.test' }],
    ['both bodies', { body_html: '<p>Hi</p>' }],
    ['an empty body', { body_plain: '' }],
    ['a body over 50,000 characters', { body_plain: 'x'.repeat(50_001) }],
    ['an HTML body with nothing left after sanitising', { body_plain: undefined, body_html: '<script>alert(1)</script>' }],
    ['a from_account of the wrong shape', { from_account: 'ea_1' }],
  ])('%s is 400 invalid_request and counts against nothing', async (_what, extra) => {
    const p = await pilot();
    const r = await post(p.client, body(p, extra));
    expect([r.status, r.body.error.code]).toEqual([400, 'invalid_request']);
    expect(await drainQueue(stack, 'sending')).toEqual([]);
  });

  test('no body at all, and neither body field, are 400', async () => {
    const p = await pilot();
    for (const b of [undefined, { from_account: p.senderId, subject: 'x' }]) expect((await post(p.client, b)).status).toBe(400);
  });

  test('a sending account of another account is 400; an unusable one of its own is 409', async () => {
    const p = await pilot();
    const other = await pilot();
    const r = await post(p.client, body(p, { from_account: other.senderId }));
    expect([r.status, r.body.error.details[0].path]).toEqual([400, 'from_account']);
    await p.admin.console('PATCH', `sending-accounts/${p.senderId}/`, { sending_enabled: false });
    expect((await post(p.client, body(p))).body.error.code).toBe('conflict');
  });

  test('the Idempotency-Key header is required and must be 1 to 128 allowed characters', async () => {
    const p = await pilot();
    for (const key of [null, '', 'x'.repeat(129), 'has space', 'ümlaut', 'slash/no']) {
      const r = await post(p.client, body(p), key);
      expect([key, r.status, r.body.error.code]).toEqual([key, 400, 'invalid_request']);
    }
    expect((await post(p.client, body(p), 'A-z_0.9:' + 'k'.repeat(120))).status).toBe(202);
  });

  test('an HTML body is sanitised; a plain body becomes escaped HTML; the sender is snapshotted', async () => {
    const p = await pilot({ signature: '<p>Ada, <b>Engines</b></p>' });
    const html = await post(p.client, body(p, { body_plain: undefined, body_html: '<p onclick="x()">Hi <script>steal()</script><a href="javascript:x">there</a></p>' }));
    expect(html.status).toBe(202);
    expect(html.body.body_html).not.toMatch(/script|onclick|javascript/);
    expect(html.body.body_html).toContain('Hi');
    const plain = await post(p.client, body(p, { body_plain: 'a < b\n\nsecond' }));
    expect(plain.body.body_html).toContain('a &lt; b');
    expect(Object.keys(plain.body).sort()).toEqual(
      ['attachments', 'body_html', 'created_at', 'error', 'from_account', 'from_email', 'id', 'internet_message_id', 'message_id', 'sent_at', 'signature_html', 'status', 'subject', 'to'].sort(),
    );
    expect(plain.body).toMatchObject({ status: 'queued', to: 'test-inbox@pilot.localhost', from_account: p.senderId, from_email: p.senderEmail, signature_html: '<p>Ada, <b>Engines</b></p>', sent_at: null, message_id: null, internet_message_id: null, error: null, attachments: [] });
    expect(plain.body.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    await drainQueue(stack, 'sending');
  });
});

describe('attachments', () => {
  test('need the account flag: 403 without it', async () => {
    const p = await pilot();
    const r = await post(p.client, body(p, { attachments: [file('a.txt', 'text/plain', TEXT)] }));
    expect([r.status, r.body.error.code]).toEqual([403, 'permission_denied']);
  });

  const MiB = 1_048_576;
  test.each([
    ['six files', () => Array.from({ length: 6 }, (_, i) => file(`f${i}.txt`, 'text/plain', TEXT))],
    ['an empty file', () => [file('empty.txt', 'text/plain', Buffer.alloc(0))]],
    ['a file over 1 MiB', () => [file('big.txt', 'text/plain', Buffer.alloc(MiB + 1, 0x61))]],
    ['files over 1 MiB together', () => [file('a.txt', 'text/plain', Buffer.alloc(MiB / 2 + 1, 0x61)), file('b.txt', 'text/plain', Buffer.alloc(MiB / 2, 0x62))]],
    ['a type outside the list', () => [file('a.zip', 'application/zip', Buffer.from('PK\u0003\u0004'))]],
    ['an executable', () => [file('run.exe', 'application/x-msdownload', Buffer.from('MZ\u0090\u0000'))]],
    ['an executable declared as text', () => [file('run.txt', 'text/plain', Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00, ...Buffer.alloc(64, 0x41)]))]],
    ['PDF bytes declared as PNG', () => [file('image.png', 'image/png', PDF)]],
    ['PNG bytes declared as PDF', () => [file('doc.pdf', 'application/pdf', PNG)]],
    ['text declared as JPEG', () => [file('photo.jpg', 'image/jpeg', TEXT)]],
    ['text that is not UTF-8', () => [file('latin1.txt', 'text/plain', Buffer.from([0x47, 0x72, 0xfc, 0xdf, 0x65]))]],
    ['a CSV with a NUL byte', () => [file('nul.csv', 'text/csv', Buffer.from('a,b\u0000,c\n'))]],
    ['base64 with whitespace', () => [{ ...file('a.txt', 'text/plain', TEXT), content_base64: TEXT.toString('base64').replace(/(.{8})/, '$1\n') }]],
    ['a data-URL prefix', () => [{ ...file('a.txt', 'text/plain', TEXT), content_base64: `data:text/plain;base64,${TEXT.toString('base64')}` }]],
    ['URL-safe base64', () => [{ ...file('a.png', 'image/png', PNG), content_base64: PNG.toString('base64url') }]],
    ['base64 without its padding', () => [{ ...file('a.txt', 'text/plain', Buffer.from('ab')), content_base64: 'YWI' }]],
    ['a path in the filename', () => [file('../etc/a.txt', 'text/plain', TEXT)]],
    ['a Windows path in the filename', () => [file('C:\\temp\\a.txt', 'text/plain', TEXT)]],
    ['a control character in the filename', () => [file('a\u0000b.txt', 'text/plain', TEXT)]],
    ['a line break in the filename', () => [file('a\r\nX-Evil: 1.txt', 'text/plain', TEXT)]],
    ['leading whitespace in the filename', () => [file(' a.txt', 'text/plain', TEXT)]],
    ['trailing whitespace in the filename', () => [file('a.txt ', 'text/plain', TEXT)]],
    ['a 181-character filename', () => [file(`${'n'.repeat(177)}.txt`, 'text/plain', TEXT)]],
    ['an extension of another type', () => [file('report.pdf', 'text/plain', TEXT)]],
    ['no extension', () => [file('report', 'application/pdf', PDF)]],
    ['a URL instead of contents', () => [{ filename: 'a.pdf', content_type: 'application/pdf', url: 'https://example.com/a.pdf' }]],
    ['an inline image (content id)', () => [{ ...file('a.png', 'image/png', PNG), content_id: 'logo' }]],
  ])('%s is 400 invalid_request', async (_what, attachments) => {
    const p = await pilot({ attachments: true });
    const r = await post(p.client, body(p, { attachments: attachments() }));
    expect([r.status, r.body.error.code]).toEqual([400, 'invalid_request']);
    expect(JSON.stringify(r.body)).not.toContain(TEXT.toString('base64'));
    expect(await drainQueue(stack, 'sending')).toEqual([]);
  });

  test('every allowed type is accepted; the record keeps only name, type and size', async () => {
    const p = await pilot({ attachments: true });
    const files = [file('deck.pdf', 'application/pdf', PDF), file('logo.PNG', 'image/png', PNG), file('photo.jpeg', 'image/jpeg', JPEG), file('notes.txt', 'text/plain', TEXT), file('leads.csv', 'text/csv', CSV)];
    const r = await post(p.client, body(p, { attachments: files }));
    expect(r.status).toBe(202);
    expect(r.body.attachments).toEqual([
      { filename: 'deck.pdf', content_type: 'application/pdf', size_bytes: PDF.length },
      { filename: 'logo.PNG', content_type: 'image/png', size_bytes: PNG.length },
      { filename: 'photo.jpeg', content_type: 'image/jpeg', size_bytes: JPEG.length },
      { filename: 'notes.txt', content_type: 'text/plain', size_bytes: TEXT.length },
      { filename: 'leads.csv', content_type: 'text/csv', size_bytes: CSV.length },
    ]);
    const got = await p.client.api('GET', `test-emails/${r.body.id}/`);
    expect(got.body).toEqual(r.body);
    expect(JSON.stringify(got.body)).not.toContain('content_base64');
    // The queue message carries ids only, never bytes.
    const [message] = testSends(await drainQueue(stack, 'sending'), r.body.id);
    expect(Object.keys(message!).sort()).toEqual(['account_id', 'kind', 'test_email_id']);
  });

  test('1 MiB of attachments travels to the worker through the store and arrives intact in the dev mailbox', async () => {
    const p = await pilot({ attachments: true, signature: '<p>Ada Lovelace<br>Analytical Engines</p>' });
    const big = Buffer.alloc(1_048_576 - TEXT.length, 0x61);
    const r = await post(p.client, body(p, { subject: 'Mailbox check', attachments: [file('big.csv', 'text/csv', big), file('notes.txt', 'text/plain', TEXT)] }));
    expect(r.status).toBe(202);
    await runSends();
    const record = await p.client.api('GET', `test-emails/${r.body.id}/`);
    expect(record.body.status).toBe('sent');
    const mailbox = await p.admin.call('GET', `http://localhost:${stack.port}/api/console/v1/dev/mailbox/`, undefined, { 'x-admin-token': stack.adminToken });
    const m = mailbox.body.messages.find((x: { subject: string }) => x.subject === 'Mailbox check');
    expect(m).toMatchObject({ from: p.senderEmail, to: ['test-inbox@pilot.localhost'], cc: [], bcc: [], message_id: record.body.internet_message_id });
    expect(m.html).toContain('this is the finished copy.');
    expect(m.html).toContain('Ada Lovelace');
    expect(m.html).toContain('test email from the outreach pilot');
    expect(m.html.indexOf('finished copy')).toBeLessThan(m.html.indexOf('Ada Lovelace'));
    expect(m.html.indexOf('Ada Lovelace')).toBeLessThan(m.html.indexOf('outreach pilot'));
    expect(m.text).toContain('Analytical Engines');
    expect(m.text).toContain('test email from the outreach pilot');
    expect(m.attachments).toEqual([
      { filename: 'big.csv', content_type: 'text/csv', size_bytes: big.length, sha256: sha(big) },
      { filename: 'notes.txt', content_type: 'text/plain', size_bytes: TEXT.length, sha256: sha(TEXT) },
    ]);
  });
});

describe('quotas', () => {
  test('20 parallel POSTs with new keys at 8 remaining in the hour create exactly 8; the rest are 429 rate_limited', async () => {
    const p = await pilot();
    for (let i = 0; i < 2; i++) expect((await post(p.client, body(p))).status).toBe(202);
    const answers = await Promise.all(Array.from({ length: 20 }, () => post(p.client, body(p))));
    expect(answers.filter((a) => a.status === 202)).toHaveLength(8);
    const refused = answers.filter((a) => a.status !== 202);
    expect(refused.map((a) => [a.status, a.body.error.code])).toEqual(Array(12).fill([429, 'rate_limited']));
    expect(new Set(answers.filter((a) => a.status === 202).map((a) => a.body.id)).size).toBe(8);
    await drainQueue(stack, 'sending');
  });

  test('the hour rolls; 50 a day is the ceiling; replays and rejected requests never count', async () => {
    const p = await pilot();
    const first = await post(p.client, body(p), 'first');
    for (let i = 0; i < 5; i++) expect((await post(p.client, body(p, { subject: '' }))).status).toBe(400);
    for (let i = 0; i < 9; i++) expect((await post(p.client, body(p))).status).toBe(202);
    expect((await post(p.client, body(p))).status).toBe(429);
    // A replay is answered even at the quota, and takes nothing.
    const again = await post(p.client, body(p), 'first');
    expect([again.status, again.body.id]).toEqual([202, first.body.id]);
    for (let hour = 1; hour < 5; hour++) {
      advanceServiceClock(3601);
      for (let i = 0; i < 10; i++) expect((await post(p.client, body(p))).status).toBe(202);
    }
    advanceServiceClock(3601);
    const day = await post(p.client, body(p));
    expect([day.status, day.body.error.code, day.body.error.message]).toEqual([429, 'rate_limited', expect.stringContaining('day')]);
    advanceServiceClock(20 * 3600);
    expect((await post(p.client, body(p))).status).toBe(202);
    await drainQueue(stack, 'sending');
  });
});

describe('idempotency', () => {
  test('the same key and content return the original record (202 while queued, 200 once sent) and republish only before the claim', async () => {
    const p = await pilot();
    const created = await post(p.client, body(p), 'same-key');
    expect(created.status).toBe(202);
    expect(testSends(await drainQueue(stack, 'sending'), created.body.id)).toHaveLength(1);
    // Its message was lost: repeating the POST puts it on the queue again.
    const replay = await post(p.client, { subject: 'Pilot copy', body_plain: 'Hello,\n\nthis is the finished copy.', from_account: p.senderId }, 'same-key');
    expect([replay.status, replay.body]).toEqual([202, created.body]);
    expect(testSends(await runSends(), created.body.id)).toHaveLength(1);
    const sent = await post(p.client, body(p), 'same-key');
    expect([sent.status, sent.body.id, sent.body.status]).toEqual([200, created.body.id, 'sent']);
    expect(await drainQueue(stack, 'sending')).toEqual([]);
    const other = await post(p.client, body(p, { subject: 'Changed' }), 'same-key');
    expect([other.status, other.body.error.code]).toEqual([409, 'conflict']);
  });

  test('keys belong to the account across its API keys; another account may use the same key', async () => {
    const p = await pilot();
    const secondKey = await p.admin.console('POST', `accounts/${p.accountId}/api-keys/`);
    const a = await post(p.client, body(p), 'shared');
    const b = await post(new Client(stack, secondKey.body.key), body(p), 'shared');
    expect(b.body.id).toBe(a.body.id);
    const q = await pilot();
    const c = await post(q.client, body(q), 'shared');
    expect([c.status, c.body.id === a.body.id]).toEqual([202, false]);
    const fresh = await post(p.client, body(p), 'another');
    expect([fresh.status, fresh.body.id === a.body.id]).toEqual([202, false]);
    await drainQueue(stack, 'sending');
  });

  test('parallel POSTs with one key create one record and send one email', async () => {
    const p = await pilot();
    const before = stack.sentMail.length;
    const answers = await Promise.all(Array.from({ length: 10 }, () => post(p.client, body(p), 'parallel')));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(202));
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    // Every message that was sent (the winner's and any replay's) is run, twice over as a redelivery would.
    const sends = await drainQueue(stack, 'sending');
    for (const m of [...sends, ...sends]) if (m.kind === 'send_test_email') await sendTestEmail(m.account_id, m.test_email_id);
    expect(stack.sentMail.length).toBe(before + 1);
    expect((await getTestEmail(p.accountId, answers[0]!.body.id))!.status).toBe('sent');
  });
});

describe('one attempt', () => {
  test('queued → sending → sent with sent_at and both message ids; a redelivery sends nothing', async () => {
    const p = await pilot();
    const created = await post(p.client, body(p));
    const [message] = testSends(await drainQueue(stack, 'sending'), created.body.id);
    const before = stack.sentMail.length;
    await sendTestEmail(message!.account_id, message!.test_email_id);
    await sendTestEmail(message!.account_id, message!.test_email_id);
    expect(stack.sentMail.length).toBe(before + 1);
    const got = await p.client.api('GET', `test-emails/${created.body.id}/`);
    expect(got.body).toMatchObject({ status: 'sent', error: null });
    expect(got.body.sent_at).toEqual(expect.any(String));
    expect(got.body.internet_message_id).toMatch(/^<.+@seller\.test>$/);
    expect(got.body.message_id).toEqual(expect.any(String));
  });

  test('a worker that dies after its claim leaves the record unknown through the timer; the attempt completing later makes it sent', async () => {
    const p = await pilot();
    const created = await post(p.client, body(p));
    const [message] = testSends(await drainQueue(stack, 'sending'), created.body.id);
    let release!: () => void;
    const hanging: Mailer = { send: async (mail) => (await new Promise<void>((r) => (release = r)), sesMailer.send(mail)) };
    const attempt = sendTestEmail(message!.account_id, message!.test_email_id, { mailer: hanging });
    while ((await getTestEmail(p.accountId, created.body.id))!.status !== 'sending' || !release) await new Promise((r) => setTimeout(r, 20));
    // A redelivery meanwhile starts no second send.
    await sendTestEmail(message!.account_id, message!.test_email_id);
    advanceServiceClock(IN_FLIGHT_MS / 1000 + 1);
    await stack.scheduler.fireDue();
    const timers = (await drainQueue(stack, 'timers')).filter((t) => t.kind === 'test_email_timeout' && t.test_email_id === created.body.id);
    expect(timers).toHaveLength(1);
    for (const t of timers) if (t.kind === 'test_email_timeout') await timerHandlers.test_email_timeout(t, {} as SQSRecord);
    const unknown = await p.client.api('GET', `test-emails/${created.body.id}/`);
    expect([unknown.body.status, unknown.body.sent_at, unknown.body.error]).toEqual(['unknown', null, null]);
    // Nothing resends it: a replay, the sweeper and the message again all leave it alone.
    expect((await post(p.client, body(p))).status).toBe(202);
    await drainQueue(stack, 'sending');
    await sweep();
    expect(testSends(await drainQueue(stack, 'sending'), created.body.id)).toEqual([]);
    const before = stack.sentMail.length;
    release();
    await attempt;
    expect(stack.sentMail.length).toBe(before + 1);
    const sent = await p.client.api('GET', `test-emails/${created.body.id}/`);
    expect([sent.body.status, typeof sent.body.sent_at]).toEqual(['sent', 'string']);
  });

  test('a claimed send whose timer was lost is ended unknown by the sweeper, and one that crashed stays unknown', async () => {
    const p = await pilot();
    const created = await post(p.client, body(p));
    const [message] = testSends(await drainQueue(stack, 'sending'), created.body.id);
    const crashing: Mailer = { send: () => new Promise(() => undefined) };
    void sendTestEmail(message!.account_id, message!.test_email_id, { mailer: crashing, scheduler: { scheduleAt: async () => undefined, cancel: async () => undefined } });
    while ((await getTestEmail(p.accountId, created.body.id))!.status !== 'sending') await new Promise((r) => setTimeout(r, 20));
    await sweep();
    expect((await getTestEmail(p.accountId, created.body.id))!.status).toBe('sending');
    advanceServiceClock((IN_FLIGHT_MS + DEADLINES.DISPATCH_GRACE_MS) / 1000 + 1);
    await sweep();
    const r = await getTestEmail(p.accountId, created.body.id);
    expect([r!.status, r!.sent_at]).toEqual(['unknown', null]);
    expect(testSends(await drainQueue(stack, 'sending'), created.body.id)).toEqual([]);
  });

  test('a sender disconnected or changed between create and send fails the record and sends nothing', async () => {
    const p = await pilot();
    const disconnected = await post(p.client, body(p));
    await p.admin.console('PATCH', `sending-accounts/${p.senderId}/`, { connected: false });
    const before = stack.sentMail.length;
    await runSends();
    const a = await p.client.api('GET', `test-emails/${disconnected.body.id}/`);
    expect([a.body.status, a.body.error.code, a.body.sent_at]).toEqual(['failed', 'sender_unavailable', null]);

    const q = await pilot();
    const changed = await post(q.client, body(q));
    await documentClient().send(
      new UpdateCommand({ TableName: tableName('accounts'), Key: accountsKeys.sendingAccount(q.accountId, q.senderId), UpdateExpression: 'SET email = :e', ExpressionAttributeValues: { ':e': 'someone-else@seller.test' } }),
    );
    await runSends();
    const b = await q.client.api('GET', `test-emails/${changed.body.id}/`);
    expect([b.body.status, b.body.error.code, b.body.from_email]).toEqual(['failed', 'sender_changed', q.senderEmail]);
    expect(stack.sentMail.length).toBe(before);
  });

  test.each([
    ['resets the connection after the data', 'unknown', 'reset', null],
    ['refuses the message with 554 after the data', 'failed', 'reject', 'send_failed'],
  ] as const)('an SMTP server that %s leaves the record %s (interrupted: it may have been sent; refused: nothing left)', async (_what, status, mode, code) => {
    const server = await new HostileSmtp(mode).start();
    try {
      const p = await pilot();
      const sender = await p.admin.console('POST', `accounts/${p.accountId}/sending-accounts/`, {
        email: `smtp-${++n}@seller.test`,
        type: 'smtp',
        smtp: { host: 'localhost', port: server.port, username: 'rep', password: 'rep-password' },
      });
      expect(sender.status).toBe(201);
      const key = randomUUID();
      const created = await post(p.client, body(p, { from_account: sender.body.id }), key);
      expect(created.status).toBe(202);
      await runSends();
      expect(server.received).toBe(1);
      const got = await p.client.api('GET', `test-emails/${created.body.id}/`);
      expect([got.body.status, got.body.error?.code ?? null, got.body.sent_at]).toEqual([status, code, null]);
      // Neither outcome is ever sent again: a replay and the sweeper start nothing.
      const replay = await post(p.client, body(p, { from_account: sender.body.id }), key);
      expect([replay.status, replay.body.status]).toEqual([200, status]);
      await sweep();
      expect(testSends(await drainQueue(stack, 'sending'), created.body.id)).toEqual([]);
    } finally {
      await server.stop();
    }
  });

  test('a timed-out send is unknown; a refusal or a disconnected mailbox is failed', async () => {
    const timeout = Object.assign(new Error('Timeout'), { code: 'ETIMEDOUT' });
    const cases: [Mailer, string, string | null][] = [
      [{ send: async () => Promise.reject(timeout) }, 'unknown', null],
      [{ send: async () => Promise.reject(new MailRefusedError('refused')) }, 'failed', 'send_failed'],
      [{ send: async () => Promise.reject(new SenderDisconnectedError('ea_x', 'revoked')) }, 'failed', 'sender_disconnected'],
    ];
    for (const [mailer, status, code] of cases) {
      const p = await pilot();
      const created = await post(p.client, body(p));
      await runSends({ mailer });
      const r = await getTestEmail(p.accountId, created.body.id);
      expect([r!.status, r!.error?.code ?? null, r!.sent_at]).toEqual([status, code, null]);
    }
  });

  test('a test email whose message was lost is sent again by the sweeper after the dispatch grace', async () => {
    const p = await pilot();
    const created = await post(p.client, body(p));
    await drainQueue(stack, 'sending');
    await sweep();
    expect(testSends(await drainQueue(stack, 'sending'), created.body.id)).toEqual([]);
    advanceServiceClock(DEADLINES.DISPATCH_GRACE_MS / 1000 + 1);
    await sweep();
    expect(testSends(await runSends(), created.body.id)).toHaveLength(1);
    expect((await getTestEmail(p.accountId, created.body.id))!.status).toBe('sent');
    advanceServiceClock(DEADLINES.DISPATCH_GRACE_MS / 100);
    await sweep();
    expect(testSends(await drainQueue(stack, 'sending'), created.body.id)).toEqual([]);
  });

  test('a dead-lettered send fails a queued record and makes a claimed one unknown', async () => {
    const p = await pilot();
    const queued = await post(p.client, body(p));
    const claimed = await post(p.client, body(p));
    const sends = await drainQueue(stack, 'sending');
    void sendTestEmail(p.accountId, claimed.body.id, { mailer: { send: () => new Promise(() => undefined) } });
    while ((await getTestEmail(p.accountId, claimed.body.id))!.status !== 'sending') await new Promise((r) => setTimeout(r, 20));
    const records = [queued.body.id, claimed.body.id].map((id, i) => ({
      messageId: `dead-${i}`,
      receiptHandle: 'r',
      body: JSON.stringify(testSends(sends, id)[0]),
      attributes: { ApproximateReceiveCount: '5', SentTimestamp: '0', SenderId: 'x', ApproximateFirstReceiveTimestamp: '0' },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:local-sending-dlq',
      awsRegion: 'us-east-1',
    })) satisfies SQSRecord[];
    expect((await deadLetterHandler({ Records: records }, lambdaContext('dead-letters'))).batchItemFailures).toEqual([]);
    const a = await getTestEmail(p.accountId, queued.body.id);
    const b = await getTestEmail(p.accountId, claimed.body.id);
    expect([a!.status, a!.error?.code, b!.status, b!.error]).toEqual(['failed', 'send_failed', 'unknown', null]);
  });
});

describe('reading and separation', () => {
  test('GET answers only to the creating account; an unknown or malformed id is 404', async () => {
    const p = await pilot();
    const q = await pilot();
    const created = await post(p.client, body(p));
    expect((await p.client.api('GET', `test-emails/${created.body.id}/`)).body).toEqual(created.body);
    for (const [c, id] of [[q.client, created.body.id], [p.client, randomUUID()], [p.client, 'not-a-uuid'], [p.client, created.body.id.toUpperCase()]] as const) {
      const r = await c.api('GET', `test-emails/${id}/`);
      expect([id, r.status, r.body.error.code]).toEqual([id, 404, 'not_found']);
    }
    await drainQueue(stack, 'sending');
  });

  test('test emails touch no outreach history, credits or sending counters', async () => {
    const p = await pilot();
    const created = await post(p.client, body(p));
    await runSends();
    expect((await getTestEmail(p.accountId, created.body.id))!.status).toBe('sent');
    expect((await p.client.api('GET', 'emails/')).body.count).toBe(0);
    expect((await p.admin.console('GET', `accounts/${p.accountId}/`)).body.balance).toBe(100);
    expect((await p.admin.console('GET', `accounts/${p.accountId}/charges/`)).body.results).toEqual([]);
    expect((await p.client.api('GET', 'email/accounts/')).body.accounts.find((a: { id: string }) => a.id === p.senderId).sent_today).toBe(0);
  });
});
