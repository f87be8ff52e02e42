import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, NoSuchBucket, NoSuchKey, NotFound, PutObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { SES_MAX_MESSAGE_BYTES, startS3Emulator, type S3Emulator } from '../../shared/local/s3-emulator.js';
import { deleteObject, objectSize, putObject, readObjectBytes, readObjectRange, readObjectStream } from '../../shared/adapters/object-store.js';
import { resetClients } from '../../shared/adapters/aws-client.js';

// The S3 stand-in driven by the official client, as the service's adapter drives it.
const BUCKET = 'local-inbound-mail';
let s3: S3Emulator;
let client: S3Client;
const saved: Record<string, string | undefined> = {};
const env = (e: Record<string, string>) => {
  for (const [k, v] of Object.entries(e)) {
    if (!(k in saved)) saved[k] = process.env[k];
    process.env[k] = v;
  }
};

beforeAll(async () => {
  s3 = await startS3Emulator({ port: 0, buckets: [BUCKET], dir: null });
  // The endpoint as the stack sets it: an IP, so the client goes path-style without being told.
  env({ AWS_ENDPOINT_URL_S3: s3.endpoint, AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'local', AWS_SECRET_ACCESS_KEY: 'local', SERVICE_MODE: 'local' });
  resetClients();
  client = new S3Client({});
});
afterAll(async () => {
  client?.destroy();
  await s3?.stop();
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  resetClients();
});

const text = async (out: { Body?: { transformToString(): Promise<string> } }) => out.Body!.transformToString();

test('put, get, head and delete through the official client: ETag, type, metadata, then NoSuchKey and NotFound', async () => {
  const body = Buffer.from('Return-Path: <a@b.test>\r\nSubject: hi\r\n\r\nhello\r\n');
  const put = await client.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'inbound/a b+c', Body: body, ContentType: 'message/rfc822', Metadata: { origin: 'test' } }));
  expect(put.ETag).toBe(`"${createHash('md5').update(body).digest('hex')}"`);
  const got = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'inbound/a b+c' }));
  expect(await text(got)).toBe(body.toString());
  expect(got).toMatchObject({ ContentType: 'message/rfc822', ContentLength: body.length, ETag: put.ETag, Metadata: { origin: 'test' }, AcceptRanges: 'bytes' });
  expect(got.LastModified).toBeInstanceOf(Date);
  const head = await client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'inbound/a b+c' }));
  expect(head).toMatchObject({ ContentLength: body.length, ETag: put.ETag });
  // The version every object of an unversioned bucket has.
  expect(await text(await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'inbound/a b+c', VersionId: 'null' })))).toBe(body.toString());

  expect((await client.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: 'inbound/a b+c' }))).$metadata.httpStatusCode).toBe(204);
  const missing = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'inbound/a b+c' })).catch((e: unknown) => e);
  expect(missing).toBeInstanceOf(NoSuchKey);
  expect(missing).toMatchObject({ name: 'NoSuchKey', $metadata: { httpStatusCode: 404 }, message: 'The specified key does not exist.' });
  expect(await client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'inbound/a b+c' })).catch((e: unknown) => e)).toBeInstanceOf(NotFound);
  // Deleting what is not there succeeds, as in S3.
  expect((await client.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: 'inbound/a b+c' }))).$metadata.httpStatusCode).toBe(204);
  expect(await client.send(new GetObjectCommand({ Bucket: 'other-bucket', Key: 'x' })).catch((e: unknown) => e)).toBeInstanceOf(NoSuchBucket);
});

test('ranges: a span, an open end, a suffix, and an unsatisfiable one (InvalidRange, 416)', async () => {
  await client.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'inbound/digits', Body: Buffer.from('0123456789') }));
  const range = async (Range: string) => {
    const out = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'inbound/digits', Range }));
    return [await text(out), out.ContentRange, out.$metadata.httpStatusCode];
  };
  expect(await range('bytes=2-5')).toEqual(['2345', 'bytes 2-5/10', 206]);
  expect(await range('bytes=7-')).toEqual(['789', 'bytes 7-9/10', 206]);
  expect(await range('bytes=-3')).toEqual(['789', 'bytes 7-9/10', 206]);
  expect(await range('bytes=8-100')).toEqual(['89', 'bytes 8-9/10', 206]);
  const beyond = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'inbound/digits', Range: 'bytes=10-12' })).catch((e: unknown) => e);
  expect(beyond).toBeInstanceOf(S3ServiceException);
  expect(beyond).toMatchObject({ name: 'InvalidRange', $metadata: { httpStatusCode: 416 } });
});

test("the service's object-store adapter (lazyClient, endpoint from AWS_ENDPOINT_URL_S3) reads, sizes and deletes", async () => {
  await putObject(BUCKET, 'inbound/adapter', Buffer.from('abcdefgh'));
  expect((await readObjectBytes(BUCKET, 'inbound/adapter')).toString()).toBe('abcdefgh');
  expect((await readObjectRange(BUCKET, 'inbound/adapter', undefined, 2, 5)).toString()).toBe('cde');
  const chunks: Buffer[] = [];
  for await (const c of await readObjectStream(BUCKET, 'inbound/adapter')) chunks.push(c as Buffer);
  expect(Buffer.concat(chunks).toString()).toBe('abcdefgh');
  expect(await objectSize(BUCKET, 'inbound/adapter')).toBe(8);
  await deleteObject(BUCKET, 'inbound/adapter');
  expect(await objectSize(BUCKET, 'inbound/adapter')).toBeNull();
});

test('a streamed body (aws-chunked, its CRC32 as a trailer) is stored as sent; a wrong checksum is BadDigest', async () => {
  const parts = [Buffer.alloc(70_000, 'a'), Buffer.alloc(5, 'b')];
  await client.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'inbound/streamed', Body: Readable.from(parts), ContentLength: 70_005 }));
  // The SDK checks the body it reads against the CRC32 the object was stored with.
  expect(await text(await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'inbound/streamed' })))).toBe(Buffer.concat(parts).toString());
  const wrong = await client.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'inbound/wrong', Body: Buffer.from('x'), ChecksumCRC32: 'AAAAAA==' })).catch((e: unknown) => e);
  expect(wrong).toMatchObject({ name: 'BadDigest', $metadata: { httpStatusCode: 400 } });
});

test('SES receiving’s 40 MB: an object of exactly that size is stored, one byte more is refused with EntityTooLarge', async () => {
  const atLimit = Buffer.alloc(SES_MAX_MESSAGE_BYTES, 0x61);
  await client.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'inbound/at-limit', Body: atLimit }));
  expect((await client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'inbound/at-limit' }))).ContentLength).toBe(SES_MAX_MESSAGE_BYTES);
  await client.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: 'inbound/at-limit' }));
  const over = await client.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'inbound/over', Body: Buffer.alloc(SES_MAX_MESSAGE_BYTES + 1, 0x61) })).catch((e: unknown) => e);
  expect(over).toMatchObject({ name: 'EntityTooLarge', $metadata: { httpStatusCode: 400 }, message: 'Your proposed upload exceeds the maximum allowed size' });
  expect(await client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'inbound/over' })).catch((e: unknown) => e)).toBeInstanceOf(NotFound);
});

test('what the emulator does not do is refused as S3 refuses it: an unsigned request, another operation', async () => {
  const anonymous = await fetch(`${s3.endpoint}/${BUCKET}/inbound/x`);
  expect(anonymous.status).toBe(403);
  expect(await anonymous.text()).toContain('<Code>AccessDenied</Code>');
  const list = await client.send(new ListObjectsV2Command({ Bucket: BUCKET })).catch((e: unknown) => e);
  expect(list).toMatchObject({ name: 'NotImplemented', $metadata: { httpStatusCode: 501 } });
});

test('under a data directory, objects outlive the emulator', async () => {
  const dir = mkdtempSync(join(tmpdir(), 's3-emulator-'));
  try {
    const first = await startS3Emulator({ port: 0, buckets: [BUCKET], dir });
    const c1 = new S3Client({ endpoint: first.endpoint });
    await c1.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'inbound/kept', Body: Buffer.from('still here') }));
    c1.destroy();
    await first.stop();
    const second = await startS3Emulator({ port: 0, buckets: [BUCKET], dir });
    const c2 = new S3Client({ endpoint: second.endpoint });
    expect(await text(await c2.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'inbound/kept' })))).toBe('still here');
    expect(await c2.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'inbound/other' })).catch((e: unknown) => e)).toBeInstanceOf(NoSuchKey);
    c2.destroy();
    await second.stop();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
