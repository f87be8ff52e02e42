import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../adapters/aws.js';
import { tableName } from '../core/env.js';
import { serviceClock, type Clock } from '../core/clock.js';
import { emailKey } from './model.js';
import { getPointer } from './emails.repository.js';
import { suppress } from './leads.repository.js';

/**
 * The public, credential-free endpoints a recipient's mail client calls, addressed by an unguessable
 * per-email token (192 random bits): the open pixel and the one-click unsubscribe (RFC 8058).
 */
export async function recordOpen(token: string, clock: Clock = serviceClock): Promise<boolean> {
  const p = await getPointer(`TRACK#${token}`);
  if (!p) return false;
  const now = clock.now().toISOString();
  await documentClient().send(
    new UpdateCommand({
      TableName: tableName('outreach'),
      Key: emailKey(p.account_id as string, p.email_id as string),
      // opened_at starts as null (present), so the first open is kept in first_opened_at.
      UpdateExpression: 'SET first_opened_at = if_not_exists(first_opened_at, :now), opened_at = if_not_exists(first_opened_at, :now) ADD open_count :one',
      ConditionExpression: '#s IN (:sent, :replied)',
      ExpressionAttributeNames: { '#s': 'status' },
      ExpressionAttributeValues: { ':now': now, ':one': 1, ':sent': 'sent', ':replied': 'replied' },
    }),
  ).catch((e: Error) => {
    // A pixel fetched before the send was recorded (or for a cancelled email) counts nothing.
    if (e.name !== 'ConditionalCheckFailedException') throw e;
  });
  return true;
}

export async function unsubscribe(token: string, clock: Clock = serviceClock): Promise<boolean> {
  const p = await getPointer(`TRACK#${token}`);
  if (!p) return false;
  await suppress(p.account_id as string, p.recipient as string, 'unsubscribed', clock.now().toISOString());
  return true;
}

/** A 1×1 transparent GIF. */
export const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
