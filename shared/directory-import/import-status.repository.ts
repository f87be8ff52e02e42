import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../adapters/aws.js';
import { isConditionFailed } from '../adapters/dynamodb-errors.js';
import { tableName } from '../catalog/resource-names.js';
import type { ImportSource } from './import-source.js';

/**
 * One status item per directory import (per version), in the directory table beside the version's items:
 * its plan (line-aligned chunk boundaries), which chunks are done (a number set, so a redelivered chunk is
 * counted once), totals, failures and state. Operators read it with one GetItem (docs/directory.md "The directory
 * import").
 *
 * States: `running` (chunks being written: companies first, then people), `finalizing` (every chunk written;
 * verifying, building the search artifact, switching the pointer), `complete` (lookups read it),
 * `superseded` (a newer import switched first; its items are deleted), `failed` (a chunk or the finalize
 * step gave up; a redriven chunk still counts and a complete count still finalizes).
 */
export type ImportState = 'running' | 'finalizing' | 'complete' | 'superseded' | 'failed';

export interface ImportStatus {
  version: string;
  state: ImportState;
  source: ImportSource;
  size: number;
  /** Chunk `i` is bytes `[cuts[i], cuts[i + 1])` of the source. */
  cuts: number[];
  /** Chunks `0 … company_chunks - 1` hold the companies, the rest the people. */
  company_chunks: number;
  chunks_total: number;
  chunks_done: number;
  done_chunks?: Set<number>;
  people_queued: boolean;
  finalize_queued: boolean;
  companies_written: number;
  people_written: number;
  /** People of the file the chunks left out: their work email is on the erasure list (docs/privacy.md). */
  people_suppressed?: number;
  failures: number;
  last_error: string | null;
  planned_at: string;
  updated_at: string;
  finished_at: string | null;
  previous: string | null;
  index_artifact: string | null;
}

const key = (version: string) => ({ pk: `IMPORT#${version}`, sk: 'STATUS' });

function fromItem(item: Record<string, unknown> | undefined): ImportStatus | null {
  if (!item) return null;
  const { pk: _pk, sk: _sk, ...status } = item;
  return status as unknown as ImportStatus;
}

export async function getImport(version: string): Promise<ImportStatus | null> {
  const out = await documentClient().send(new GetCommand({ TableName: tableName('directory'), Key: key(version), ConsistentRead: true }));
  return fromItem(out.Item);
}

/** Record a new import's plan; false when one exists for this version already (a redelivered upload event). */
export async function createImport(status: ImportStatus): Promise<boolean> {
  try {
    await documentClient().send(new PutCommand({ TableName: tableName('directory'), Item: { ...key(status.version), ...status }, ConditionExpression: 'attribute_not_exists(pk)' }));
    return true;
  } catch (e) {
    if (isConditionFailed(e)) return false;
    throw e;
  }
}

/**
 * The checkpoint of one chunk: counted once whatever the redeliveries (the condition on the done set), in
 * one write with the totals. Returns the status after it, or null when the chunk was already counted.
 */
export async function markChunkDone(version: string, chunk: number, written: { people: number; companies: number; suppressed?: number }, now: Date): Promise<ImportStatus | null> {
  try {
    const out = await documentClient().send(
      new UpdateCommand({
        TableName: tableName('directory'),
        Key: key(version),
        UpdateExpression: 'ADD done_chunks :chunk, chunks_done :one, people_written :people, companies_written :companies, people_suppressed :suppressed SET updated_at = :now',
        ConditionExpression: 'attribute_exists(pk) AND NOT contains(done_chunks, :n)',
        ExpressionAttributeValues: { ':chunk': new Set([chunk]), ':n': chunk, ':one': 1, ':people': written.people, ':companies': written.companies, ':suppressed': written.suppressed ?? 0, ':now': now.toISOString() },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return fromItem(out.Attributes);
  } catch (e) {
    if (isConditionFailed(e)) return null;
    throw e;
  }
}

/** Set fields of an import, optionally only from some states; false when its state was not one of them. */
export async function updateImport(version: string, fields: Partial<ImportStatus>, now: Date, fromStates?: ImportState[]): Promise<boolean> {
  const entries = Object.entries({ ...fields, updated_at: now.toISOString() });
  const names = Object.fromEntries(entries.map(([k], i) => [`#f${i}`, k]));
  const values = Object.fromEntries(entries.map(([, v], i) => [`:v${i}`, v]));
  const states = Object.fromEntries((fromStates ?? []).map((s, i) => [`:s${i}`, s]));
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: tableName('directory'),
        Key: key(version),
        UpdateExpression: `SET ${entries.map((_, i) => `#f${i} = :v${i}`).join(', ')}`,
        ConditionExpression: fromStates ? `attribute_exists(pk) AND #state IN (${Object.keys(states).join(', ')})` : 'attribute_exists(pk)',
        ExpressionAttributeNames: { ...names, ...(fromStates ? { '#state': 'state' } : {}) },
        ExpressionAttributeValues: { ...values, ...states },
      }),
    );
    return true;
  } catch (e) {
    if (isConditionFailed(e)) return false;
    throw e;
  }
}

/** A step that gave up: the import shows `failed` with the reason, unless it already completed. */
export async function recordImportFailure(version: string, error: string, now: Date): Promise<void> {
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: tableName('directory'),
        Key: key(version),
        UpdateExpression: 'SET #state = :failed, last_error = :error, updated_at = :now ADD failures :one',
        ConditionExpression: 'attribute_exists(pk) AND NOT #state IN (:complete, :superseded)',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':failed': 'failed', ':error': error.slice(0, 1000), ':now': now.toISOString(), ':one': 1, ':complete': 'complete', ':superseded': 'superseded' },
      }),
    );
  } catch (e) {
    if (!isConditionFailed(e)) throw e;
  }
}
