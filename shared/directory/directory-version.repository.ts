import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../adapters/aws.js';
import { isConditionFailed } from '../adapters/dynamodb-errors.js';
import { optionalEnv } from '../core/env.js';
import { tableName } from '../catalog/resource-names.js';

/**
 * Which directory version lookups read: one pointer item in the directory table, switched by a conditional
 * write at the end of an import. Every person item of a version is keyed under `V#<version>#…`, so reading
 * the pointer once and then one key of that version always reads one complete version: the pointer only
 * ever names a version whose every chunk was written.
 *
 * The pointer is cached per container (`DIRECTORY_VERSION_CACHE_SECONDS`, 30 s) so a lookup stays one
 * round trip in steady state. A container may therefore read the previous version for up to that long after
 * a switch; the previous version stays readable for a grace period well beyond it (import/finalize-import.ts).
 */
export interface DirectoryVersion {
  version: string;
  people: number;
  /** When the pointer was switched to this version (ISO). */
  switched_at: string;
  /** The version it replaced, if any. */
  previous: string | null;
  /** When this version's import was planned (ISO): an older import never switches over a newer one. */
  planned_at: string;
  /** The import bucket's (or local data directory's) key of the prebuilt search index, when one was built. */
  index_artifact: string | null;
}

const POINTER = { pk: 'DIRECTORY#CURRENT', sk: 'POINTER' };

const cacheSeconds = () => Number(optionalEnv('DIRECTORY_VERSION_CACHE_SECONDS') ?? 30);
let cached: { value: DirectoryVersion; until: number } | undefined;

/** The pointer as the table holds it now (a consistent read, no cache). */
export async function readDirectoryVersion(): Promise<DirectoryVersion | null> {
  const out = await documentClient().send(new GetCommand({ TableName: tableName('directory'), Key: POINTER, ConsistentRead: true }));
  if (!out.Item) return null;
  const { pk: _pk, sk: _sk, ...version } = out.Item;
  return version as DirectoryVersion;
}

/**
 * The version lookups read, from the container's cache when fresh. No directory yet is not cached, so
 * the first import is seen at once.
 */
export async function currentDirectoryVersion(): Promise<DirectoryVersion | null> {
  if (cached && cached.until > Date.now()) return cached.value;
  const value = await readDirectoryVersion();
  cached = value ? { value, until: Date.now() + cacheSeconds() * 1000 } : undefined;
  return value;
}

/** Tests that switch directories and want the next lookup to read the pointer again. */
export function forgetDirectoryVersion(): void {
  cached = undefined;
}

/**
 * Point lookups at `next`, unless a version planned later already holds the pointer (an older upload
 * finishing last must not win). Returns the version switched from (null for the first), or `superseded`.
 */
export async function switchDirectoryVersion(next: Omit<DirectoryVersion, 'previous' | 'switched_at'>, now: Date): Promise<{ previous: string | null } | 'superseded'> {
  const current = await readDirectoryVersion();
  if (current?.version === next.version) return { previous: current.previous };
  const item: DirectoryVersion = { ...next, previous: current?.version ?? null, switched_at: now.toISOString() };
  try {
    await documentClient().send(
      new PutCommand({
        TableName: tableName('directory'),
        Item: { ...POINTER, ...item },
        // The pointer must still be the one read above (no concurrent switch in between) and older than `next`.
        ConditionExpression: current ? '#v = :seen AND planned_at <= :planned' : 'attribute_not_exists(pk)',
        ...(current ? { ExpressionAttributeNames: { '#v': 'version' }, ExpressionAttributeValues: { ':seen': current.version, ':planned': next.planned_at } } : {}),
      }),
    );
  } catch (e) {
    if (!isConditionFailed(e)) throw e;
    const now2 = await readDirectoryVersion();
    if (now2?.version === next.version) return { previous: now2.previous };
    if (now2 && now2.planned_at > next.planned_at) return 'superseded';
    return switchDirectoryVersion(next, now);
  }
  cached = { value: item, until: Date.now() + cacheSeconds() * 1000 };
  return { previous: item.previous };
}
