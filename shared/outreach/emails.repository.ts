import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../adapters/aws.js';
import { tableName } from '../core/env.js';
import { emailKey, type EmailRecord, type EmailStatus } from './model.js';
import { setClauses } from '../adapters/update-expression.js';

/** Email records and their guarded transitions: each condition is the state machine's guard. */
export async function getEmail(accountId: string, id: string): Promise<EmailRecord | null> {
  const out = await documentClient().send(new GetCommand({ TableName: tableName('outreach'), Key: emailKey(accountId, id), ConsistentRead: true }));
  return (out.Item as EmailRecord | undefined) ?? null;
}

/**
 * Move an email from one of `from` to whatever `set` says (usually a new status). Returns the updated
 * record, or null when the email was not in one of those states (someone else moved it first).
 */
export async function transition(accountId: string, id: string, from: EmailStatus[], set: Partial<EmailRecord> & Record<string, unknown>, remove: string[] = []): Promise<EmailRecord | null> {
  const { clauses: sets, names, values } = setClauses(set);
  names['#s'] = 'status';
  from.forEach((s, i) => (values[`:from${i}`] = s));
  const removes = remove.map((k, i) => {
    names[`#r${i}`] = k;
    return `#r${i}`;
  });
  try {
    const out = await documentClient().send(
      new UpdateCommand({
        TableName: tableName('outreach'),
        Key: emailKey(accountId, id),
        UpdateExpression: `SET ${sets.join(', ')}${removes.length ? ` REMOVE ${removes.join(', ')}` : ''}`,
        ConditionExpression: `#s IN (${from.map((_, i) => `:from${i}`).join(', ')})`,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      }),
    );
    return out.Attributes as EmailRecord;
  } catch (e) {
    if ((e as Error).name === 'ConditionalCheckFailedException') return null;
    throw e;
  }
}

/** All of an account's emails, newest first (ids are time-ordered). */
export async function queryEmails(accountId: string): Promise<EmailRecord[]> {
  const items: EmailRecord[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await documentClient().send(
      new QueryCommand({
        TableName: tableName('outreach'),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
        ExpressionAttributeValues: { ':pk': `ACCOUNT#${accountId}`, ':p': 'EMAIL#' },
        ScanIndexForward: false,
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    items.push(...((out.Items ?? []) as EmailRecord[]));
    start = out.LastEvaluatedKey;
  } while (start);
  return items;
}

/** Pointer items (message id → email, tracking token → email). */
export async function putPointer(pk: string, value: Record<string, unknown>): Promise<void> {
  await documentClient().send(new PutCommand({ TableName: tableName('outreach'), Item: { pk, sk: 'PTR', ...value } }));
}

export async function getPointer(pk: string): Promise<Record<string, unknown> | null> {
  const out = await documentClient().send(new GetCommand({ TableName: tableName('outreach'), Key: { pk, sk: 'PTR' }, ConsistentRead: true }));
  return out.Item ?? null;
}
