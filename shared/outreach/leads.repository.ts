import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../adapters/aws.js';
import { tableName } from '../catalog/resource-names.js';
import type { Contact } from './model.js';
import { setClauses } from '../adapters/update-expression.js';
import { outreachKeys as K } from './outreach.keys.js';
import { expiresAt } from '../catalog/tables.js';
import type { TransactItem } from '../accounts/ledger.repository.js';

/**
 * Leads in the caller's workspace, keyed by email (the identity), and the workspace's suppression list.
 * Every outreach recipient becomes or updates a lead; a reply or bounce is recorded on it so later
 * sends to that person stop.
 */

export interface Lead {
  email: string;
  first_name?: string;
  last_name?: string;
  company_name?: string;
  professional_url?: string;
  context?: string;
  replied_at?: string;
  bounced_at?: string;
  /** The last send to the address from any of the account's mailboxes (sequence eligibility: recently_contacted). */
  last_sent_at?: string;
  /** The lead's time zone, learnt from the directory when they were last written to. */
  timezone?: string;
  created_at: string;
  updated_at: string;
}

/**
 * The write that makes the recipient a lead or updates it (with their time zone when known), to ride in
 * the transaction that accepts the email: a create that is refused (e.g. 402) leaves no lead behind.
 */
export function leadUpsertWrite(accountId: string, contact: Contact, now: string, timeZone: string | null): TransactItem {
  const fields: Record<string, unknown> = { email: contact.email.toLowerCase(), updated_at: now };
  for (const k of ['first_name', 'last_name', 'company_name', 'professional_url', 'context'] as const) if (contact[k] !== undefined) fields[k] = contact[k];
  if (timeZone) fields.timezone = timeZone;
  fields.expires_at = expiresAt('lead', new Date(now));
  const { clauses: sets, names, values } = setClauses(fields);
  values[':now'] = now;
  return {
    Update: {
      TableName: tableName('outreach'),
      Key: K.lead(accountId, contact.email),
      UpdateExpression: `SET ${sets.join(', ')}, created_at = if_not_exists(created_at, :now)`,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  };
}

/** The write that records a send to the lead, to ride in the transaction that records the email `sent`. */
export function leadSentWrite(accountId: string, email: string, at: Date): TransactItem {
  return {
    Update: {
      TableName: tableName('outreach'),
      Key: K.lead(accountId, email),
      UpdateExpression: 'SET last_sent_at = :at, email = if_not_exists(email, :e), created_at = if_not_exists(created_at, :at), updated_at = :at, expires_at = :exp',
      ExpressionAttributeValues: { ':at': at.toISOString(), ':e': email.toLowerCase(), ':exp': expiresAt('lead', at) },
    },
  };
}

export async function getLead(accountId: string, email: string): Promise<Lead | null> {
  const out = await documentClient().send(new GetCommand({ TableName: tableName('outreach'), Key: K.lead(accountId, email), ConsistentRead: true }));
  return (out.Item as Lead | undefined) ?? null;
}

export async function markLead(accountId: string, email: string, field: 'replied_at' | 'bounced_at', at: string): Promise<void> {
  await documentClient().send(
    new UpdateCommand({
      TableName: tableName('outreach'),
      Key: K.lead(accountId, email),
      UpdateExpression: 'SET #f = if_not_exists(#f, :at), email = if_not_exists(email, :e), created_at = if_not_exists(created_at, :at), updated_at = :at',
      ExpressionAttributeNames: { '#f': field },
      ExpressionAttributeValues: { ':at': at, ':e': email.toLowerCase() },
    }),
  );
}

export async function suppress(accountId: string, email: string, reason: string, at: string): Promise<void> {
  await documentClient().send(new PutCommand({ TableName: tableName('outreach'), Item: { ...K.suppression(accountId, email), email: email.toLowerCase(), reason, created_at: at } }));
}

export async function isSuppressed(accountId: string, email: string): Promise<boolean> {
  const out = await documentClient().send(new GetCommand({ TableName: tableName('outreach'), Key: K.suppression(accountId, email), ConsistentRead: true }));
  return Boolean(out.Item);
}
