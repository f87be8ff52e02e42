import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../adapters/aws.js';
import { tableName } from '../catalog/resource-names.js';
import { expiresAt } from '../catalog/tables.js';
import { outreachKeys as K } from './outreach.keys.js';

/** SES events already applied, by EventBridge event id, so a redelivered event changes nothing twice. */
export async function mailEventApplied(eventId: string): Promise<boolean> {
  const out = await documentClient().send(new GetCommand({ TableName: tableName('outreach'), Key: K.mailEvent(eventId), ConsistentRead: true }));
  return Boolean(out.Item);
}

export async function recordMailEvent(eventId: string, outcome: { kind: string; email_id: string | null }, at: Date): Promise<void> {
  await documentClient().send(
    new PutCommand({ TableName: tableName('outreach'), Item: { ...K.mailEvent(eventId), ...outcome, applied_at: at.toISOString(), expires_at: expiresAt('mail_event', at) } }),
  );
}
