import { createReadStream } from 'node:fs';
import { mkdir, open, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { deleteObject, objectSize, putObject, readObjectRange, readObjectStream } from '../adapters/object-store.js';

/**
 * Where an import reads its directory file: one version of the import bucket's object in AWS, a local file
 * on the twin and in tests. The file must be plain JSONL (not gzipped): chunks are byte ranges, and a gzip
 * stream cannot be entered in the middle.
 */
export type ImportSource = { kind: 's3'; bucket: string; key: string; version_id: string | null } | { kind: 'file'; path: string };

export interface SourceReader {
  size(): Promise<number>;
  /** Bytes `[start, end)`. */
  range(start: number, end: number): Promise<Buffer>;
  stream(): Promise<NodeJS.ReadableStream>;
  /** Store the search index artifact `name` (`index/…`) beside the source; returns where it went. */
  putArtifact(name: string, bytes: Buffer): Promise<string>;
  /** Delete an artifact `putArtifact` stored (where it returned); one already gone is fine. */
  deleteArtifact(where: string): Promise<void>;
}

export function sourceReader(source: ImportSource): SourceReader {
  if (source.kind === 's3') {
    const versionId = source.version_id ?? undefined;
    return {
      size: async () => {
        const bytes = await objectSize(source.bucket, source.key, versionId);
        if (bytes === null) throw new Error(`directory object s3://${source.bucket}/${source.key} (version ${versionId ?? 'latest'}) does not exist`);
        return bytes;
      },
      range: (start, end) => readObjectRange(source.bucket, source.key, versionId, start, end),
      stream: () => readObjectStream(source.bucket, source.key, versionId),
      putArtifact: async (name, bytes) => {
        await putObject(source.bucket, name, bytes);
        return name;
      },
      deleteArtifact: (where) => deleteObject(source.bucket, where),
    };
  }
  return {
    size: async () => (await stat(source.path)).size,
    range: async (start, end) => {
      const handle = await open(source.path, 'r');
      try {
        const buffer = Buffer.alloc(end - start);
        const { bytesRead } = await handle.read(buffer, 0, end - start, start);
        return buffer.subarray(0, bytesRead);
      } finally {
        await handle.close();
      }
    },
    stream: async () => createReadStream(source.path),
    putArtifact: async (name, bytes) => {
      const path = join(dirname(source.path), name);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(`${path}.${process.pid}.tmp`, bytes);
      await rename(`${path}.${process.pid}.tmp`, path);
      return path;
    },
    deleteArtifact: (where) => rm(where, { force: true }),
  };
}

export function describeSource(source: ImportSource): string {
  return source.kind === 's3' ? `s3://${source.bucket}/${source.key}${source.version_id ? `?versionId=${source.version_id}` : ''}` : source.path;
}
