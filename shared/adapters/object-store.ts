import { GetObjectCommand, HeadObjectCommand, NotFound, S3Client } from '@aws-sdk/client-s3';
import type { Readable } from 'node:stream';
import { lazyClient } from './aws-client.js';

/** Reading objects from S3 (the directory import bucket, the inbound-mail bucket). One client per process. */
const client = lazyClient(() => new S3Client({}));

export async function readObjectStream(bucket: string, key: string): Promise<Readable> {
  const out = await client().send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return out.Body as Readable;
}

export async function readObjectBytes(bucket: string, key: string): Promise<Buffer> {
  const out = await client().send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return Buffer.from(await out.Body!.transformToByteArray());
}

/** An object's size in bytes, or null when the key holds none (needs s3:ListBucket, else S3 answers 403). */
export async function objectSize(bucket: string, key: string): Promise<number | null> {
  try {
    const out = await client().send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    return out.ContentLength ?? 0;
  } catch (e) {
    if (e instanceof NotFound) return null;
    throw e;
  }
}
