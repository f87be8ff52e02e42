import { QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient, queryAll } from '../adapters/aws.js';
import { tableName } from '../catalog/resource-names.js';
import { expiresAt } from '../catalog/tables.js';
import { cancellationReasons } from '../adapters/dynamodb-errors.js';
import { countOnCommit } from '../core/metrics.js';
import type { TransactItem } from '../accounts/ledger.repository.js';
import { outreachKeys as K } from './outreach.keys.js';
import { addDays, DELIVERABILITY_COUNTERS, emptyCounts, utcDay, type DayCounts, type DeliverabilityCounter, type DeliverabilityDay } from './warmup.js';

/**
 * The per-day deliverability record of a sending account: one item per UTC day (DELIV#<ea_id> / <YYYY-MM-DD>)
 * holding the eight counters. Every increment is written in one transaction with a marker item keyed by the
 * email and the counter (DELIVEVT#<em_id> / <counter>, created only if absent), so an event that reaches
 * the service twice (a redelivered queue message, a second bounce notice, a pixel fetched again, a reply
 * after a reply) counts once per email. A send's own count (the increment alone) rides in the transaction that
 * records the send.
 */
export function countWrites(eaId: string, emailId: string, counter: DeliverabilityCounter, at: Date): TransactItem[] {
  return [markerWrite(eaId, emailId, counter, at), counterWrite(eaId, counter, at)];
}

function markerWrite(eaId: string, emailId: string, counter: DeliverabilityCounter, at: Date): TransactItem {
  return {
    Put: {
      TableName: tableName('outreach'),
      Item: { ...K.deliverabilityEvent(emailId, counter), ea_id: eaId, day: utcDay(at), counted_at: at.toISOString(), expires_at: expiresAt('deliverability_event', at) },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

/**
 * The increment alone, for a write whose own condition already makes it happen once (the transition that
 * records an email `sent` succeeds once per email).
 */
export function counterWrite(eaId: string, counter: DeliverabilityCounter, at: Date): TransactItem {
  const day = utcDay(at);
  const write: TransactItem = {
    Update: {
      TableName: tableName('outreach'),
      Key: K.deliverability(eaId, day),
      UpdateExpression: 'ADD #c :one SET expires_at = if_not_exists(expires_at, :exp)',
      ExpressionAttributeNames: { '#c': counter },
      ExpressionAttributeValues: { ':one': 1, ':exp': expiresAt('deliverability_day', new Date(`${day}T00:00:00Z`)) },
    },
  };
  // The service's own metric of the same event, taken when the transaction that counts it once commits.
  const metric = SERVICE_METRIC[counter];
  return metric ? countOnCommit(write, metric) : write;
}

/** The service metric (shared/core/metrics.ts) each deliverability counter also counts; opens and deliveries are the record's alone. */
const SERVICE_METRIC: Partial<Record<DeliverabilityCounter, 'sends' | 'bounces_hard' | 'bounces_soft' | 'complaints' | 'replies' | 'unsubscribes'>> = {
  sent: 'sends',
  bounced_hard: 'bounces_hard',
  bounced_soft: 'bounces_soft',
  complained: 'complaints',
  replied: 'replies',
  unsubscribed: 'unsubscribes',
};

/** Count one event of an email against its sending account's day; true when counted now, false when it already was. */
export async function countOnce(eaId: string, emailId: string, counter: DeliverabilityCounter, at: Date): Promise<boolean> {
  try {
    await documentClient().send(new TransactWriteCommand({ TransactItems: countWrites(eaId, emailId, counter, at) }));
    return true;
  } catch (e) {
    if (cancellationReasons(e)[0]?.Code === 'ConditionalCheckFailed') return false;
    throw e;
  }
}

const toDay = (item: Record<string, unknown>): DeliverabilityDay => {
  const counts = emptyCounts();
  for (const c of DELIVERABILITY_COUNTERS) counts[c] = Number(item[c] ?? 0);
  return { date: item.sk as string, ...counts };
};

/** The account's days from `fromDay` to `toDay` (inclusive), by day. */
export async function readDays(eaId: string, fromDay: string, toDay_: string): Promise<Map<string, DayCounts>> {
  const items = await queryAll<Record<string, unknown>>({
    TableName: tableName('outreach'),
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
    ExpressionAttributeValues: { ':pk': K.deliverabilityPk(eaId), ':from': fromDay, ':to': toDay_ },
    ConsistentRead: true,
  });
  return new Map(items.map((i) => {
    const { date, ...counts } = toDay(i);
    return [date, counts] as const;
  }));
}

/** Newest day first, `limit` a page; `after` is the last day of the previous page (exclusive). */
export async function pageDays(eaId: string, opts: { from: string; to: string; limit: number; after?: string }): Promise<{ days: DeliverabilityDay[]; last: string | null }> {
  const to = opts.after && addDays(opts.after, -1) < opts.to ? addDays(opts.after, -1) : opts.to;
  if (to < opts.from) return { days: [], last: null };
  const out = await documentClient().send(
    new QueryCommand({
      TableName: tableName('outreach'),
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': K.deliverabilityPk(eaId), ':from': opts.from, ':to': to },
      ScanIndexForward: false,
      Limit: opts.limit,
      ConsistentRead: true,
    }),
  );
  const days = (out.Items ?? []).map(toDay);
  return { days, last: out.LastEvaluatedKey ? (out.LastEvaluatedKey.sk as string) : null };
}
