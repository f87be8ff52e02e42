import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { encodeTime } from 'ulid';
import { documentClient } from '../adapters/aws.js';
import { tableName } from '../catalog/resource-names.js';
import { ValidationError } from '../core/errors.js';
import { accountsKeys as K } from './accounts.keys.js';
import { toCharge, type ChargeRecord, type ChargeStatus } from './model.js';

/**
 * The charge ledger of one account, filtered and paged, newest first (the web app's credits page).
 *
 * Charge ids are ULIDs (`chg_<ulid>`), so a date range is a range of sort keys: `from`/`to` bound the key
 * condition and nothing outside them is read. Operation and status are filters, which DynamoDB applies after
 * its `Limit`: a page is filled from up to MAX_READS reads, and the cursor (the last key read, opaque to the
 * caller) resumes exactly where reading stopped, so no record is skipped or shown twice.
 */
export interface ChargeQuery {
  operation?: string;
  status?: ChargeStatus;
  /** Inclusive ISO instants. */
  from?: string;
  to?: string;
  cursor?: string;
  limit: number;
}

export interface ChargePage {
  results: ChargeRecord[];
  /** Pass back as `cursor` for the next page; null when nothing can follow (a full last page may still carry one, which then reads empty). */
  next_cursor: string | null;
}

const MAX_READS = 5;

const skAt = (iso: string, end: boolean) => `${K.chargePrefix}chg_${encodeTime(Date.parse(iso), 10).toLowerCase()}${end ? '~' : ''}`;

function decodeCursor(cursor: string, accountId: string): Record<string, string> {
  try {
    const sk = Buffer.from(cursor, 'base64url').toString('utf8');
    if (sk.startsWith(K.chargePrefix)) return { pk: K.accountPk(accountId), sk };
  } catch {
    // fall through to the validation error
  }
  throw new ValidationError('Invalid query parameters.', [{ path: 'cursor', message: 'not a cursor from this list' }]);
}

export async function queryCharges(accountId: string, q: ChargeQuery): Promise<ChargePage> {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':pk': K.accountPk(accountId) };
  const filters: string[] = [];
  if (q.operation) {
    names['#op'] = 'operation';
    values[':op'] = q.operation;
    filters.push('#op = :op');
  }
  if (q.status) {
    values[':st'] = q.status;
    filters.push('charge_status = :st');
  }
  values[':lo'] = q.from ? skAt(q.from, false) : K.chargePrefix;
  values[':hi'] = q.to ? skAt(q.to, true) : `${K.chargePrefix}~`;
  const input: QueryCommandInput = {
    TableName: tableName('accounts'),
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :lo AND :hi',
    ExpressionAttributeValues: values,
    ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
    ...(filters.length ? { FilterExpression: filters.join(' AND ') } : {}),
    ScanIndexForward: false,
    ConsistentRead: true,
  };
  const results: ChargeRecord[] = [];
  let start = q.cursor ? decodeCursor(q.cursor, accountId) : undefined;
  for (let reads = 0; reads < MAX_READS && results.length < q.limit; reads++) {
    const out = await documentClient().send(new QueryCommand({ ...input, Limit: q.limit - results.length, ...(start ? { ExclusiveStartKey: start } : {}) }));
    results.push(...(out.Items ?? []).map(toCharge));
    start = out.LastEvaluatedKey as Record<string, string> | undefined;
    if (!start) break;
  }
  return { results, next_cursor: start ? Buffer.from(start.sk!, 'utf8').toString('base64url') : null };
}

/** The most charge records one chart reads: a busier account's chart stops counting there. */
const MAX_RECORDS_PER_CHART = 5_000;

/**
 * Credits charged per UTC day over the last `days` days, oldest first, every day present (0 when nothing
 * was charged): the overview's chart.
 */
export async function creditsPerDay(accountId: string, days: number, now: Date): Promise<{ day: string; credits: number }[]> {
  const first = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - (days - 1)));
  const totals = new Map<string, number>();
  for (let i = 0; i < days; i++) totals.set(new Date(first.getTime() + i * 86_400_000).toISOString().slice(0, 10), 0);
  let start: Record<string, unknown> | undefined;
  let read = 0;
  do {
    const out = await documentClient().send(
      new QueryCommand({
        TableName: tableName('accounts'),
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :lo AND :hi',
        ExpressionAttributeValues: { ':pk': K.accountPk(accountId), ':lo': skAt(first.toISOString(), false), ':hi': `${K.chargePrefix}~` },
        ProjectionExpression: 'charged, created_at',
        ConsistentRead: true,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    for (const item of out.Items ?? []) {
      const day = String(item.created_at).slice(0, 10);
      if (totals.has(day)) totals.set(day, totals.get(day)! + Number(item.charged ?? 0));
    }
    read += out.Items?.length ?? 0;
    start = out.LastEvaluatedKey;
  } while (start && read < MAX_RECORDS_PER_CHART);
  return [...totals].map(([day, credits]) => ({ day, credits }));
}
