import { randomBytes } from 'node:crypto';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { S3Event } from 'aws-lambda';
import type { InboundOutcome } from '../outreach/inbound-mail.js';
import { serviceClock } from '../core/clock.js';
import { runAsFunction } from './function-context.js';
import { INBOUND_MAIL_BUCKET, INBOUND_MAIL_PREFIX } from './iam.js';
import { SES_MAX_MESSAGE_BYTES } from './s3-emulator.js';

/**
 * The twin's SES receiving, as the stack's receipt rule sets it up (lib/constructs/inbound-mail.ts): a message
 * accepted for the service's domains is stored whole, once (one object per message, however many of its
 * recipients the rule matched: SES runs a rule's actions once per message), in the inbound bucket under
 * `inbound/<SES message id>`, with the headers SES puts on top of what it stores:
 *
 *   Return-Path: <envelope sender>
 *   Received: from <client> (<client> [<ip>]) by inbound-smtp.<region>.amazonaws.com with SMTP id <id> for <recipient>; <date> (UTC)
 *   X-SES-Spam-Verdict: PASS
 *   X-SES-Virus-Verdict: PASS
 *
 * (the rule scans, `scanEnabled`; SES also adds Received-SPF, Authentication-Results, X-SES-RECEIPT and
 * X-SES-DKIM-SIGNATURE, which the twin leaves out: it checks no SPF or DKIM on loopback). The Received line
 * names one envelope recipient, the first. The S3 ObjectCreated event then invokes the real inbound-mail
 * function (functions/inbound/ses-s3.ts) with only that function's grants, as S3's notification does in AWS;
 * the twin waits for it so that the caller gets the outcomes, and invokes it once (Lambda retries an
 * asynchronous invocation twice, then sends it to the async-failures queue).
 *
 * SES itself writes with the bucket policy's `s3:PutObject` on `inbound/*`: its client here is not one of the
 * service's (`lazyClient`), so no function's grants apply to the store.
 */
export interface SesEnvelope {
  /** MAIL FROM ('' for a bounce's null sender). */
  from: string;
  /** Every RCPT TO SES accepted for the message. */
  to: string[];
}

/** The MTA that handed the message over (the Received line's `from`). */
export interface SesClientHost {
  helo: string;
  address: string;
}

export interface StoredMessage {
  messageId: string;
  bucket: string;
  key: string;
  size: number;
  /** As S3 returned it, quoted. */
  etag: string;
  requestId: string;
  hostId: string;
  /** Service-clock milliseconds of the receipt. */
  at: number;
}

/** A message SES will not store: larger than its 40 MB limit once its headers are on. */
export class MessageTooLarge extends Error {
  override readonly name = 'MessageTooLarge';
  constructor(readonly size: number) {
    super(`message of ${size} bytes exceeds SES receiving's maximum of ${SES_MAX_MESSAGE_BYTES} bytes (headers included)`);
  }
}

/** SES's message ids are 40 lower-case letters and digits (`pp7o1b869j1mbmmegnjm215bi5o331noilsell01`). */
function sesMessageId(): string {
  const alphabet = '0123456789abcdefghijklmnopqrstuv';
  return [...randomBytes(40)].map((b) => alphabet[b & 31]).join('');
}

/** `Fri, 11 Sep 2015 20:32:33 +0000 (UTC)`, as SES dates its Received line. */
const receivedDate = (at: Date) => at.toUTCString().replace(/GMT$/, '+0000 (UTC)');

/** What SES puts on top of a stored message, in its order, with the message's own line ending. */
export function sesHeaders(raw: Buffer, envelope: SesEnvelope, id: string, at: Date, client: SesClientHost = { helo: 'localhost', address: '127.0.0.1' }): Buffer {
  const eol = raw.subarray(0, 64 * 1024).includes('\r\n') ? '\r\n' : '\n';
  const region = process.env.AWS_REGION ?? 'us-east-1';
  const recipient = envelope.to[0];
  const lines = [
    `Return-Path: <${envelope.from}>`,
    `Received: from ${client.helo} (${client.helo} [${client.address}]) by inbound-smtp.${region}.amazonaws.com with SMTP id ${id}${recipient ? ` for ${recipient}` : ''}; ${receivedDate(at)}`,
    'X-SES-Spam-Verdict: PASS',
    'X-SES-Virus-Verdict: PASS',
  ];
  return Buffer.from(lines.map((l) => l + eol).join(''), 'latin1');
}

/** The S3 key as an S3 event carries it: URL-encoded, a space as `+`, `/` kept. */
export const eventKey = (key: string) => key.split('/').map((s) => encodeURIComponent(s).replace(/%20/g, '+')).join('/');

let sequence = 0;

/** The ObjectCreated:Put notification S3 sends the function for a stored message. */
export function objectCreatedEvent(stored: StoredMessage): S3Event {
  const region = process.env.AWS_REGION ?? 'us-east-1';
  return {
    Records: [
      {
        eventVersion: '2.1',
        eventSource: 'aws:s3',
        awsRegion: region,
        eventTime: new Date(stored.at).toISOString(),
        eventName: 'ObjectCreated:Put',
        userIdentity: { principalId: 'AWS:AROA000000000000SES:ses' },
        requestParameters: { sourceIPAddress: '127.0.0.1' },
        responseElements: { 'x-amz-request-id': stored.requestId, 'x-amz-id-2': stored.hostId },
        s3: {
          s3SchemaVersion: '1.0',
          configurationId: 'inbound-mail',
          bucket: { name: stored.bucket, ownerIdentity: { principalId: 'A000000000000' }, arn: `arn:aws:s3:::${stored.bucket}` },
          object: {
            key: eventKey(stored.key),
            size: stored.size,
            eTag: stored.etag.replace(/"/g, ''),
            sequencer: (Date.now() * 1000 + (sequence = (sequence + 1) % 1000)).toString(16).toUpperCase().padStart(18, '0'),
          },
        },
      },
    ],
  };
}

/** SES's part: the headers added and the message stored under `inbound/`. Throws MessageTooLarge past 40 MB. */
export async function storeBySes(raw: Buffer, envelope: SesEnvelope, client?: SesClientHost): Promise<StoredMessage> {
  const endpoint = process.env.AWS_ENDPOINT_URL_S3;
  if (!endpoint) throw new Error('the S3 stand-in is not running (AWS_ENDPOINT_URL_S3 is unset): start the local stack first');
  const at = serviceClock.now();
  const messageId = sesMessageId();
  const body = Buffer.concat([sesHeaders(raw, envelope, messageId, at, client), raw]);
  if (body.length > SES_MAX_MESSAGE_BYTES) throw new MessageTooLarge(body.length);
  const key = `${INBOUND_MAIL_PREFIX}${messageId}`;
  // SES is its own principal: a client of its own, on the same endpoint as the service's, destroyed after use.
  const s3 = new S3Client({ endpoint, forcePathStyle: true });
  try {
    const out = await s3.send(new PutObjectCommand({ Bucket: INBOUND_MAIL_BUCKET, Key: key, Body: body }));
    return {
      messageId,
      bucket: INBOUND_MAIL_BUCKET,
      key,
      size: body.length,
      etag: out.ETag ?? '',
      requestId: out.$metadata.requestId ?? '',
      hostId: out.$metadata.extendedRequestId ?? '',
      at: at.getTime(),
    };
  } finally {
    s3.destroy();
  }
}

/** S3's part: the ObjectCreated event, handled by the real inbound-mail function under its own grants. */
export async function invokeInboundMail(stored: StoredMessage): Promise<InboundOutcome[]> {
  const { handler } = await import('../../functions/inbound/ses-s3.js');
  const event = objectCreatedEvent(stored);
  const { outcomes } = await runAsFunction('inbound-mail', () => handler(event));
  return outcomes;
}

/**
 * A message received by SES on the twin: stored in the inbound bucket as SES stores it, then the inbound-mail
 * function run on its S3 event; its outcomes (one, for the one object). A refusal of the function's IAM
 * (AccessDeniedException) or any other failure of the function is thrown, as Lambda would record it.
 */
export async function receiveBySes(raw: Buffer, envelope: SesEnvelope): Promise<InboundOutcome[]> {
  return invokeInboundMail(await storeBySes(raw, envelope));
}
