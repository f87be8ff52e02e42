import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';

/**
 * A small S3 on loopback: the object calls the service's adapter makes (shared/adapters/object-store.ts:
 * PutObject, GetObject with or without a Range, HeadObject, DeleteObject), path-style
 * (`http://127.0.0.1:<port>/<bucket>/<key>`, which the SDK picks by itself for an IP endpoint), answered as S3
 * answers them, so the official `@aws-sdk/client-s3` raises its own exception classes (`NoSuchKey`, `NotFound`,
 * `NoSuchBucket`…). Unversioned buckets only (version id `null`). Anything else S3 does (listing, multipart,
 * copies, ACLs, tagging, notifications) is answered `501 NotImplemented`, so a caller that needs it fails here
 * rather than in AWS. The SigV4 signature is not checked (the twin's IAM runs in the SDK client, before a call
 * leaves: shared/local/iam.ts); a request without one is refused as anonymous.
 */

/**
 * SES receiving stores a message of at most 40 MB, headers included (the S3 action's limit since 2022; larger
 * ones bounce), read here as 40 MiB. The only bucket the twin's S3 holds is SES's, so the emulator refuses a
 * larger object with S3's own `EntityTooLarge`; it also bounds what one request can make the process hold.
 */
export const SES_MAX_MESSAGE_BYTES = 40 * 1024 * 1024;

export interface S3EmulatorOptions {
  /** 0: any free port. */
  port: number;
  /** The buckets that exist; any other answers `NoSuchBucket`. */
  buckets: readonly string[];
  /** Keep objects under this directory (one file per object, written whole then renamed); null keeps them in memory. */
  dir: string | null;
  /** Objects larger than this are refused (`EntityTooLarge`); default SES_MAX_MESSAGE_BYTES. */
  maxObjectBytes?: number;
}

export interface S3Emulator {
  port: number;
  /** `http://127.0.0.1:<port>`, for `AWS_ENDPOINT_URL_S3`. */
  endpoint: string;
  stop(): Promise<void>;
}

interface ObjectMeta {
  key: string;
  size: number;
  /** Quoted, as S3 sends it: `"<md5 hex>"`. */
  etag: string;
  lastModified: number;
  contentType: string;
  metadata: Record<string, string>;
  /** The additional checksums the object was stored with (`crc32` → base64), returned on a full GET that asks. */
  checksums: Record<string, string>;
}

interface StoredObject {
  meta: ObjectMeta;
  body: Buffer;
}

interface ObjectStore {
  get(bucket: string, key: string): Promise<StoredObject | null>;
  put(bucket: string, object: StoredObject): Promise<void>;
  delete(bucket: string, key: string): Promise<void>;
}

function memoryStore(): ObjectStore {
  const buckets = new Map<string, Map<string, StoredObject>>();
  const of = (bucket: string) => buckets.get(bucket) ?? buckets.set(bucket, new Map()).get(bucket)!;
  return {
    get: async (bucket, key) => of(bucket).get(key) ?? null,
    put: async (bucket, object) => void of(bucket).set(object.meta.key, object),
    delete: async (bucket, key) => void of(bucket).delete(key),
  };
}

/**
 * One file per object, named by its key's sha256 (keys hold `/` and any character): a 4-byte length, the
 * metadata as JSON, then the body. Written to a temporary file and renamed, so a read sees one whole version.
 */
function directoryStore(dir: string, bucketNames: readonly string[]): ObjectStore {
  for (const b of bucketNames) mkdirSync(join(dir, b), { recursive: true, mode: 0o700 });
  const path = (bucket: string, key: string) => join(dir, bucket, createHash('sha256').update(key).digest('hex'));
  return {
    async get(bucket, key) {
      let file: Buffer;
      try {
        file = await readFile(path(bucket, key));
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw e;
      }
      const length = file.readUInt32BE(0);
      const meta = JSON.parse(file.subarray(4, 4 + length).toString('utf8')) as ObjectMeta;
      return meta.key === key ? { meta, body: file.subarray(4 + length) } : null;
    },
    async put(bucket, object) {
      const meta = Buffer.from(JSON.stringify(object.meta), 'utf8');
      const length = Buffer.alloc(4);
      length.writeUInt32BE(meta.length);
      const target = path(bucket, object.meta.key);
      const temporary = `${target}.${randomBytes(6).toString('hex')}.tmp`;
      await writeFile(temporary, Buffer.concat([length, meta, object.body]), { mode: 0o600 });
      await rename(temporary, target);
    },
    async delete(bucket, key) {
      await rm(path(bucket, key), { force: true });
    },
  };
}

class S3Error extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fields: Record<string, string | number> = {},
  ) {
    super(message);
  }
}

const xmlEscape = (s: string) => s.replace(/[<>&'"]/g, (c) => `&${{ '<': 'lt', '>': 'gt', '&': 'amp', "'": 'apos', '"': 'quot' }[c]};`);

/** Query parameters of the supported calls; any other (`uploads`, `tagging`, `acl`, `partNumber`…) is another S3 operation. */
const KNOWN_QUERY = new Set(['x-id', 'versionId']);

/** The additional checksums S3 takes, and those the emulator can verify (the others are stored as sent). */
const CHECKSUM_ALGORITHMS = ['crc32', 'crc32c', 'crc64nvme', 'sha1', 'sha256'] as const;
function checksumOf(algorithm: string, body: Buffer): string | null {
  if (algorithm === 'crc32') {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(crc32(body));
    return b.toString('base64');
  }
  if (algorithm === 'sha1' || algorithm === 'sha256') return createHash(algorithm).update(body).digest('base64');
  return null;
}

/**
 * A body sent `Content-Encoding: aws-chunked` (how the SDK streams a body with its checksum as a trailer):
 * `<hex size>[;chunk-signature=…]\r\n<data>\r\n` … `0\r\n`, then `name:value\r\n` trailers and `\r\n`.
 */
function decodeAwsChunked(raw: Buffer): { body: Buffer; trailers: Record<string, string> } {
  const chunks: Buffer[] = [];
  const trailers: Record<string, string> = {};
  let at = 0;
  const line = () => {
    const end = raw.indexOf('\r\n', at);
    if (end < 0) throw new S3Error(400, 'IncompleteBody', 'The request body terminated unexpectedly');
    const text = raw.subarray(at, end).toString('latin1');
    at = end + 2;
    return text;
  };
  for (;;) {
    const size = Number.parseInt(line().split(';', 1)[0]!, 16);
    if (!Number.isFinite(size) || size < 0) throw new S3Error(400, 'InvalidChunkSizeError', 'Only the last chunk is allowed to have a size less than 8192 bytes');
    if (size === 0) break;
    if (at + size + 2 > raw.length) throw new S3Error(400, 'IncompleteBody', 'The request body terminated unexpectedly');
    chunks.push(raw.subarray(at, at + size));
    at += size + 2;
  }
  while (at < raw.length) {
    const text = line();
    if (!text) break;
    const colon = text.indexOf(':');
    if (colon > 0) trailers[text.slice(0, colon).trim().toLowerCase()] = text.slice(colon + 1).trim();
  }
  return { body: Buffer.concat(chunks), trailers };
}

/** `Range: bytes=a-b | a- | -n` against `size`: the inclusive span, null for the whole object, or 416. */
function rangeOf(header: string | undefined, size: number): [number, number] | null {
  const m = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null;
  // S3 serves the whole object for a Range it does not read (several ranges, other units).
  if (!m || (m[1] === '' && m[2] === '')) return null;
  let start: number;
  let end: number;
  if (m[1] === '') {
    start = Math.max(0, size - Number(m[2]));
    end = size - 1;
    if (Number(m[2]) === 0) start = size;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
    if (m[2] !== '' && Number(m[2]) < start) return null;
  }
  if (start >= size) throw new S3Error(416, 'InvalidRange', 'The requested range is not satisfiable', { RangeRequested: header!, ActualObjectSize: size });
  return [start, end];
}

export async function startS3Emulator(opts: S3EmulatorOptions): Promise<S3Emulator> {
  const max = opts.maxObjectBytes ?? SES_MAX_MESSAGE_BYTES;
  const buckets = new Set(opts.buckets);
  const store = opts.dir ? directoryStore(opts.dir, opts.buckets) : memoryStore();

  const declaredSize = (req: IncomingMessage): number => {
    const n = Number(req.headers['x-amz-decoded-content-length'] ?? req.headers['content-length']);
    return Number.isFinite(n) ? n : 0;
  };
  const tooLarge = (proposed: number) => new S3Error(400, 'EntityTooLarge', 'Your proposed upload exceeds the maximum allowed size', { ProposedSize: proposed, MaxSizeAllowed: max });

  /** The request body, read up to the limit (an aws-chunked body may be a little larger than what it carries). */
  async function readBody(req: IncomingMessage): Promise<Buffer> {
    const limit = max + Math.ceil(max / 64) + 64 * 1024;
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    for await (const c of req) {
      size += (c as Buffer).length;
      if (size > limit) over = true;
      if (!over) chunks.push(c as Buffer);
    }
    if (over) throw tooLarge(size);
    return Buffer.concat(chunks);
  }

  function headersOf(meta: ObjectMeta): Record<string, string | number> {
    return {
      'last-modified': new Date(meta.lastModified).toUTCString(),
      etag: meta.etag,
      'content-type': meta.contentType,
      'accept-ranges': 'bytes',
      ...Object.fromEntries(Object.entries(meta.metadata).map(([k, v]) => [`x-amz-meta-${k}`, v])),
    };
  }

  async function put(req: IncomingMessage, res: ServerResponse, bucket: string, key: string): Promise<void> {
    if (req.headers['x-amz-copy-source']) throw new S3Error(501, 'NotImplemented', 'A header you provided implies functionality that is not implemented', { Header: 'x-amz-copy-source' });
    if (declaredSize(req) > max) throw tooLarge(declaredSize(req));
    const raw = await readBody(req);
    const encoding = String(req.headers['content-encoding'] ?? '');
    const sha = String(req.headers['x-amz-content-sha256'] ?? '');
    const chunked = encoding.split(',').some((e) => e.trim() === 'aws-chunked') || sha.startsWith('STREAMING-');
    const { body, trailers } = chunked ? decodeAwsChunked(raw) : { body: raw, trailers: {} as Record<string, string> };
    if (body.length > max) throw tooLarge(body.length);
    if (/^[0-9a-f]{64}$/.test(sha) && createHash('sha256').update(body).digest('hex') !== sha) {
      throw new S3Error(400, 'XAmzContentSHA256Mismatch', "The provided 'x-amz-content-sha256' header does not match what was computed.", { ClientComputedContentSHA256: sha });
    }
    const md5 = createHash('md5').update(body);
    const md5Bytes = md5.digest();
    const contentMd5 = req.headers['content-md5'];
    if (typeof contentMd5 === 'string' && contentMd5 !== md5Bytes.toString('base64')) throw new S3Error(400, 'BadDigest', 'The Content-MD5 you specified did not match what we received.');
    const checksums: Record<string, string> = {};
    for (const algorithm of CHECKSUM_ALGORITHMS) {
      const name = `x-amz-checksum-${algorithm}`;
      const sent = (req.headers[name] as string | undefined) ?? trailers[name];
      if (!sent) continue;
      const computed = checksumOf(algorithm, body);
      if (computed !== null && computed !== sent) throw new S3Error(400, 'BadDigest', `The ${algorithm.toUpperCase()} you specified did not match the calculated checksum.`);
      checksums[algorithm] = sent;
    }
    const metadata = Object.fromEntries(
      Object.entries(req.headers)
        .filter(([k]) => k.startsWith('x-amz-meta-'))
        .map(([k, v]) => [k.slice('x-amz-meta-'.length), String(v)]),
    );
    const meta: ObjectMeta = {
      key,
      size: body.length,
      etag: `"${md5Bytes.toString('hex')}"`,
      lastModified: Math.floor(Date.now() / 1000) * 1000,
      contentType: String(req.headers['content-type'] ?? 'binary/octet-stream'),
      metadata,
      checksums,
    };
    await store.put(bucket, { meta, body });
    res.writeHead(200, { etag: meta.etag, 'content-length': 0, ...Object.fromEntries(Object.entries(checksums).map(([a, v]) => [`x-amz-checksum-${a}`, v])) });
    res.end();
  }

  async function get(req: IncomingMessage, res: ServerResponse, bucket: string, key: string): Promise<void> {
    const object = await store.get(bucket, key);
    if (!object) throw new S3Error(404, 'NoSuchKey', 'The specified key does not exist.', { Key: key });
    const { meta, body } = object;
    const range = req.method === 'GET' ? rangeOf(req.headers.range, meta.size) : null;
    const headers = headersOf(meta);
    if (range) {
      const [start, end] = range;
      res.writeHead(206, { ...headers, 'content-length': end - start + 1, 'content-range': `bytes ${start}-${end}/${meta.size}` });
      res.end(body.subarray(start, end + 1));
      return;
    }
    // A whole object's checksums, to a caller that asks for them (the SDK does, and checks the body against them).
    const asked = String(req.headers['x-amz-checksum-mode'] ?? '').toUpperCase() === 'ENABLED';
    const checksums = asked && Object.keys(meta.checksums).length ? { ...Object.fromEntries(Object.entries(meta.checksums).map(([a, v]) => [`x-amz-checksum-${a}`, v])), 'x-amz-checksum-type': 'FULL_OBJECT' } : {};
    res.writeHead(200, { ...headers, ...checksums, 'content-length': meta.size });
    res.end(req.method === 'HEAD' ? undefined : body);
  }

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://s3.local');
    const [, rawBucket = '', ...rest] = url.pathname.split('/');
    const bucket = decodeURIComponent(rawBucket);
    const key = rest.map((s) => decodeURIComponent(s)).join('/');
    if (!/^AWS4-HMAC-SHA256 /.test(String(req.headers.authorization ?? ''))) throw new S3Error(403, 'AccessDenied', 'Access Denied');
    if (!bucket) throw new S3Error(501, 'NotImplemented', 'A header you provided implies functionality that is not implemented');
    if (!buckets.has(bucket)) throw new S3Error(404, 'NoSuchBucket', 'The specified bucket does not exist', { BucketName: bucket });
    if (!key) {
      if (req.method === 'HEAD') return void res.writeHead(200, { 'content-length': 0, 'x-amz-bucket-region': process.env.AWS_REGION ?? 'us-east-1' }).end();
      throw new S3Error(501, 'NotImplemented', 'A header you provided implies functionality that is not implemented');
    }
    const other = [...url.searchParams.keys()].find((k) => !KNOWN_QUERY.has(k));
    if (other) throw new S3Error(501, 'NotImplemented', 'A header you provided implies functionality that is not implemented', { Parameter: other });
    const versionId = url.searchParams.get('versionId');
    // An unversioned bucket holds each object as version `null`.
    if (versionId !== null && versionId !== 'null') throw new S3Error(404, 'NoSuchVersion', 'The specified version does not exist.', { Key: key, VersionId: versionId });
    switch (req.method) {
      case 'PUT':
        return put(req, res, bucket, key);
      case 'GET':
      case 'HEAD':
        return get(req, res, bucket, key);
      case 'DELETE':
        await store.delete(bucket, key);
        res.writeHead(204);
        res.end();
        return;
      default:
        throw new S3Error(405, 'MethodNotAllowed', 'The specified method is not allowed against this resource.', { Method: req.method ?? '', ResourceType: 'OBJECT' });
    }
  }

  function answerError(req: IncomingMessage, res: ServerResponse, e: unknown): void {
    const err = e instanceof S3Error ? e : new S3Error(500, 'InternalError', 'We encountered an internal error. Please try again.');
    if (!(e instanceof S3Error)) console.error('s3 emulator:', e);
    if (res.headersSent) return void res.destroy();
    const fields = Object.entries(err.fields).map(([k, v]) => `<${k}>${xmlEscape(String(v))}</${k}>`).join('');
    const body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${err.code}</Code><Message>${xmlEscape(err.message)}</Message>${fields}<RequestId>${res.getHeader('x-amz-request-id')}</RequestId><HostId>${res.getHeader('x-amz-id-2')}</HostId></Error>`;
    // A HEAD answer carries no body: the SDK reads the status alone (404 → NotFound).
    res.writeHead(err.status, { 'content-type': 'application/xml', 'content-length': req.method === 'HEAD' ? 0 : Buffer.byteLength(body) });
    res.end(req.method === 'HEAD' ? undefined : body);
  }

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    res.setHeader('x-amz-request-id', randomBytes(8).toString('hex').toUpperCase());
    res.setHeader('x-amz-id-2', randomBytes(48).toString('base64'));
    res.setHeader('server', 'AmazonS3');
    route(req, res).catch((e: unknown) => {
      // What is left of a refused body is read and dropped, so the client sees the answer, not a reset.
      if (!req.readableEnded) req.resume().once('end', () => answerError(req, res, e));
      else answerError(req, res, e);
    });
  };
  const server: Server = createServer(handle);
  // A client that waits for `100 Continue` before a large body is refused before it sends one.
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    if (req.method === 'PUT' && declaredSize(req) > max) {
      res.setHeader('x-amz-request-id', randomBytes(8).toString('hex').toUpperCase());
      res.setHeader('x-amz-id-2', randomBytes(48).toString('base64'));
      res.setHeader('connection', 'close');
      return answerError(req, res, tooLarge(declaredSize(req)));
    }
    res.writeContinue();
    handle(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as { port: number }).port;
  return {
    port,
    endpoint: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
