import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, NotFound, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { Readable } from 'node:stream';
import { lazyClient } from './aws-client.js';

/** Reading objects from S3 (the directory import bucket, the inbound-mail bucket). One client per process. */
const client = /* @__PURE__ */ lazyClient(() => new S3Client({}));

export async function readObjectStream(bucket: string, key: string, versionId?: string): Promise<Readable> {
  const out = await client().send(new GetObjectCommand({ Bucket: bucket, Key: key, VersionId: versionId }));
  return out.Body as Readable;
}

export async function readObjectBytes(bucket: string, key: string): Promise<Buffer> {
  const out = await client().send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return Buffer.from(await out.Body!.transformToByteArray());
}

/** An object's size in bytes (one version of it when named), or null when the key holds none (needs s3:ListBucket, else S3 answers 403). */
export async function objectSize(bucket: string, key: string, versionId?: string): Promise<number | null> {
  try {
    const out = await client().send(new HeadObjectCommand({ Bucket: bucket, Key: key, VersionId: versionId }));
    return out.ContentLength ?? 0;
  } catch (e) {
    if (e instanceof NotFound) return null;
    throw e;
  }
}

/** Bytes `[start, end)` of one version of an object (an HTTP Range read). */
export async function readObjectRange(bucket: string, key: string, versionId: string | undefined, start: number, end: number): Promise<Buffer> {
  const out = await client().send(new GetObjectCommand({ Bucket: bucket, Key: key, VersionId: versionId, Range: `bytes=${start}-${end - 1}` }));
  return Buffer.from(await out.Body!.transformToByteArray());
}

export async function putObject(bucket: string, key: string, body: Buffer): Promise<void> {
  await client().send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
}

/** In a versioned bucket this leaves a delete marker; the bucket's lifecycle rule expires the version it hid. */
export async function deleteObject(bucket: string, key: string): Promise<void> {
  await client().send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
}
