import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { LocalStack } from '../../shared/local/stack.js';
import { startTestStack } from '../support/local.js';
import { invokeInboundMail, MessageTooLarge, objectCreatedEvent, receiveBySes, storeBySes } from '../../shared/local/ses-receiving.js';
import { INBOUND_MAIL_BUCKET } from '../../shared/local/iam.js';
import { SES_MAX_MESSAGE_BYTES } from '../../shared/local/s3-emulator.js';
import { overrideBindings, runAsFunction } from '../../shared/local/function-context.js';
import { INBOUND_MAIL } from '../../shared/catalog/functions.js';
import { deleteObject, objectSize, putObject, readObjectBytes } from '../../shared/adapters/object-store.js';
import { logger } from '../../shared/core/logger.js';
import { plainMessage } from '../support/mail-reports.js';

// SES receiving on the twin: the message stored in the emulated inbound bucket as SES stores it, then the real
// inbound-mail function run on the S3 event, held to its grants.
let stack: LocalStack;
let s3: S3Client;
const level = logger.getLevelName();
beforeAll(async () => {
  // The function logs each message it handles: quiet while passing.
  logger.setLogLevel('ERROR');
  stack = await startTestStack({ gateway: false, workers: false });
  // The twin's own client (outside any function), to look into the bucket.
  s3 = new S3Client({ endpoint: stack.endpoints.s3 });
});
afterAll(async () => {
  s3?.destroy();
  await stack?.stop();
  logger.setLogLevel(level);
});

let n = 0;
function message(o: { to: string; extra?: string[]; text?: string }): Buffer {
  n += 1;
  return Buffer.from(
    plainMessage(
      [
        'From: Ada Lead <ada@prospect.test>',
        `To: ${o.to}`,
        'Subject: Re: Quick question',
        `Message-ID: <m${n}.${Date.now()}@prospect.test>`,
        'Date: Fri, 27 Nov 2026 10:00:00 +0000',
        `In-Reply-To: <nothing-we-sent-${n}@seller.test>`,
        ...(o.extra ?? []),
      ],
      o.text ?? 'Sounds good, Thursday works.',
    ),
  );
}

const objectText = async (key: string) => (await s3.send(new GetObjectCommand({ Bucket: INBOUND_MAIL_BUCKET, Key: key }))).Body!.transformToString();

test('one object per message under inbound/, with the Return-Path and Received lines SES adds on top, then the function on its S3 event', async () => {
  const raw = message({ to: 'rep@seller.test', extra: ['Auto-Submitted: auto-replied'], text: 'I am out of the office until Monday.' });
  const stored = await storeBySes(raw, { from: 'ada@prospect.test', to: ['rep@seller.test', 'other@seller.test'] });
  expect(stored).toMatchObject({ bucket: INBOUND_MAIL_BUCKET, key: `inbound/${stored.messageId}`, size: expect.any(Number), etag: expect.stringMatching(/^"[0-9a-f]{32}"$/) });
  expect(stored.messageId).toMatch(/^[0-9a-v]{40}$/);
  const object = await objectText(stored.key);
  const lines = object.split('\r\n');
  expect(lines[0]).toBe('Return-Path: <ada@prospect.test>');
  expect(lines[1]).toMatch(new RegExp(`^Received: from localhost \\(localhost \\[127\\.0\\.0\\.1\\]\\) by inbound-smtp\\.us-east-1\\.amazonaws\\.com with SMTP id ${stored.messageId} for rep@seller\\.test; \\w{3}, \\d{2} \\w{3} \\d{4} \\d{2}:\\d{2}:\\d{2} \\+0000 \\(UTC\\)$`));
  expect(lines.slice(2, 4)).toEqual(['X-SES-Spam-Verdict: PASS', 'X-SES-Virus-Verdict: PASS']);
  // The message follows unchanged, and only once: the two recipients share the one object.
  expect(object.endsWith(raw.toString())).toBe(true);
  expect(stored.size).toBe(Buffer.byteLength(object));

  // The function read the object through the S3 stand-in (what it says is the stored message's).
  expect(await invokeInboundMail(stored)).toEqual([{ matched: false, classification: 'auto_reply', email_id: null, counted_as_lead_reply: false }]);
  // Both parts at once: the outcome of the one object.
  expect(await receiveBySes(message({ to: 'rep@seller.test' }), { from: 'ada@prospect.test', to: ['rep@seller.test'] })).toEqual([
    { matched: false, classification: 'reply', email_id: null, counted_as_lead_reply: false },
  ]);
});

test('the event carries the key URL-encoded as S3 sends it, and the function reads the object it names', async () => {
  const key = 'inbound/a b+c:d';
  const raw = message({ to: 'rep@seller.test', extra: ['Auto-Submitted: auto-replied'] });
  const put = await s3.send(new PutObjectCommand({ Bucket: INBOUND_MAIL_BUCKET, Key: key, Body: raw }));
  const stored = { messageId: 'x', bucket: INBOUND_MAIL_BUCKET, key, size: raw.length, etag: put.ETag!, requestId: 'r', hostId: 'h', at: Date.now() };
  const record = objectCreatedEvent(stored).Records[0]!;
  expect(record).toMatchObject({ eventSource: 'aws:s3', eventName: 'ObjectCreated:Put', awsRegion: 'us-east-1', s3: { bucket: { name: INBOUND_MAIL_BUCKET, arn: `arn:aws:s3:::${INBOUND_MAIL_BUCKET}` } } });
  expect(record.s3.object).toMatchObject({ key: 'inbound/a+b%2Bc%3Ad', size: raw.length, eTag: put.ETag!.replace(/"/g, '') });
  expect(await invokeInboundMail(stored)).toEqual([expect.objectContaining({ classification: 'auto_reply' })]);
});

test('inbound-mail may read objects under inbound/ of the inbound bucket, and nothing else there; no other function may', async () => {
  const stored = await storeBySes(message({ to: 'rep@seller.test' }), { from: 'ada@prospect.test', to: ['rep@seller.test'] });
  const asInbound = <T>(work: () => Promise<T>) => runAsFunction('inbound-mail', work);
  expect((await asInbound(() => readObjectBytes(INBOUND_MAIL_BUCKET, stored.key))).length).toBe(stored.size);
  // HeadObject is authorised as s3:GetObject.
  expect(await asInbound(() => objectSize(INBOUND_MAIL_BUCKET, stored.key))).toBe(stored.size);
  const denied = (action: string, key: string) => ({
    name: 'AccessDeniedException',
    message: `User: arn:aws:sts::000000000000:assumed-role/local-inbound-mail/local-inbound-mail is not authorized to perform: ${action} on resource: arn:aws:s3:::${INBOUND_MAIL_BUCKET}/${key} because no identity-based policy allows the ${action} action`,
  });
  await expect(asInbound(() => putObject(INBOUND_MAIL_BUCKET, 'inbound/forged', Buffer.from('x')))).rejects.toMatchObject(denied('s3:PutObject', 'inbound/forged'));
  await expect(asInbound(() => deleteObject(INBOUND_MAIL_BUCKET, stored.key))).rejects.toMatchObject(denied('s3:DeleteObject', stored.key));
  await expect(asInbound(() => readObjectBytes(INBOUND_MAIL_BUCKET, 'elsewhere/x'))).rejects.toMatchObject(denied('s3:GetObject', 'elsewhere/x'));
  await expect(asInbound(() => readObjectBytes('another-bucket', stored.key))).rejects.toMatchObject({ name: 'AccessDeniedException', message: expect.stringContaining('s3:GetObject on resource: arn:aws:s3:::another-bucket/inbound/') });
  await expect(runAsFunction('sweeper', () => readObjectBytes(INBOUND_MAIL_BUCKET, stored.key))).rejects.toMatchObject({ name: 'AccessDeniedException', message: expect.stringContaining('assumed-role/local-sweeper/') });
  // The object is still there: nothing refused reached the bucket.
  expect(Buffer.byteLength(await objectText(stored.key))).toBe(stored.size);
});

test('with its S3 grant taken away the function fails as AWS would fail it: AccessDeniedException, out of receiveBySes', async () => {
  // The same table and Scheduler bindings, but not the catalogue's: without the statement the construct adds
  // for the bucket (shared/local/iam.ts), as `startLocalStack({ grants })` replaces them.
  overrideBindings('inbound-mail', { ...INBOUND_MAIL.bindings });
  try {
    await expect(receiveBySes(message({ to: 'rep@seller.test' }), { from: 'ada@prospect.test', to: ['rep@seller.test'] })).rejects.toMatchObject({
      name: 'AccessDeniedException',
      $fault: 'client',
      message: expect.stringMatching(/^User: arn:aws:sts::000000000000:assumed-role\/local-inbound-mail\/local-inbound-mail is not authorized to perform: s3:GetObject on resource: arn:aws:s3:::local-inbound-mail\/inbound\/[0-9a-v]{40} because no identity-based policy allows the s3:GetObject action$/),
    });
  } finally {
    overrideBindings('inbound-mail', null);
  }
  await expect(receiveBySes(message({ to: 'rep@seller.test' }), { from: 'ada@prospect.test', to: ['rep@seller.test'] })).resolves.toHaveLength(1);
});

test('a message SES would bounce for its size (over 40 MB with its headers) is not stored', async () => {
  const raw = Buffer.alloc(SES_MAX_MESSAGE_BYTES - 100, 0x61);
  await expect(storeBySes(raw, { from: 'ada@prospect.test', to: ['rep@seller.test'] })).rejects.toBeInstanceOf(MessageTooLarge);
});
