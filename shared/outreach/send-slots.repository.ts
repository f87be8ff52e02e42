import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../adapters/aws.js';
import { tableName } from '../catalog/resource-names.js';
import { allocateSlot, localDay } from './send-time.js';
import { outreachKeys as K } from './outreach.keys.js';
import { expiresAt } from '../catalog/tables.js';
import { isConditionFailed } from '../adapters/dynamodb-errors.js';

/**
 * Daily send capacity per sending account: one counter per local day (SLOTS#<ea_id> / <YYYY-MM-DD>), under that
 * day's effective limit (the configured one, the warm-up ramp, the engagement throttle: `limitForDay`).
 * Approving more than a day allows books the rest onto following days; the booking is a conditional
 * increment, so two approvals racing for the last slot of a day cannot both win it.
 */
async function bookedCounts(eaId: string, fromDay: string): Promise<Map<string, number>> {
  const out = await documentClient().send(
    new QueryCommand({
      TableName: tableName('outreach'),
      KeyConditionExpression: 'pk = :pk AND sk >= :d',
      ExpressionAttributeValues: { ':pk': K.slotsPk(eaId), ':d': fromDay },
      ConsistentRead: true,
    }),
  );
  return new Map((out.Items ?? []).map((i) => [i.sk as string, i.booked as number]));
}

export async function bookSlot(opts: { eaId: string; timeZone: string; dailyLimit: number; limitForDay?: (day: string) => number; desired: Date; seed: string; weekdaysOnly: boolean; windowZone: string }): Promise<{ at: Date; day: string }> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const counts = await bookedCounts(opts.eaId, localDay(opts.desired, opts.timeZone));
    const at = allocateSlot({ desired: opts.desired, timeZone: opts.timeZone, dailyLimit: opts.dailyLimit, limitForDay: opts.limitForDay, countForDay: (d) => counts.get(d) ?? 0, seed: opts.seed, weekdaysOnly: opts.weekdaysOnly, windowZone: opts.windowZone });
    const day = localDay(at, opts.timeZone);
    const limit = Math.min(opts.dailyLimit, opts.limitForDay?.(day) ?? opts.dailyLimit);
    try {
      await documentClient().send(
        new UpdateCommand({
          TableName: tableName('outreach'),
          Key: K.slots(opts.eaId, day),
          // The counter matters only around its day: it expires its retention after the slot (in any zone).
          UpdateExpression: 'ADD booked :one SET expires_at = if_not_exists(expires_at, :exp)',
          ConditionExpression: 'attribute_not_exists(booked) OR booked < :limit',
          ExpressionAttributeValues: { ':one': 1, ':limit': limit, ':exp': expiresAt('send_slot_counter', at) },
        }),
      );
      return { at, day };
    } catch (e) {
      if (!isConditionFailed(e)) throw e;
    }
  }
  throw new Error('could not book a send slot under contention');
}

export async function releaseSlot(eaId: string, day: string): Promise<void> {
  await documentClient().send(
    new UpdateCommand({
      TableName: tableName('outreach'),
      Key: K.slots(eaId, day),
      UpdateExpression: 'ADD booked :minus',
      ConditionExpression: 'booked > :zero',
      ExpressionAttributeValues: { ':minus': -1, ':zero': 0 },
    }),
  ).catch((e: unknown) => {
    if (!isConditionFailed(e)) throw e;
  });
}
