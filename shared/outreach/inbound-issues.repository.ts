import { PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../adapters/aws.js';
import { tableName } from '../catalog/resource-names.js';
import { expiresAt } from '../catalog/tables.js';
import { outreachKeys as K } from './outreach.keys.js';

/**
 * Inbound messages operators should know about (console `GET inbound-issues/`), one item per message and day
 * partition: `unprocessable` (nothing could be done with it: unreadable, no sender address, or it failed
 * three times) and `repaired` (handled after trimming something that would not fit). A message is named by
 * its key (the reply record's id: the provider's message id or the stored object, hashed), so a message seen
 * again overwrites its own entry. Only the sender's address and the first 200 characters of the subject are
 * kept: the message itself stays in the mailbox or the inbound bucket.
 */
export type InboundIssueStatus = 'unprocessable' | 'repaired';

export interface InboundIssue {
  key: string;
  status: InboundIssueStatus;
  /** Short words: `unparseable`, `no_sender`, `too_large`, `failed`, `header_trimmed:<name>`, `body_truncated`, `recipients_trimmed`. */
  reasons: string[];
  /** The error's name and first 300 characters for `failed` and `unparseable`. */
  error: string | null;
  /** Where it came from: `google`, `microsoft` (a polled mailbox) or `ses` (SES receiving). */
  source: string;
  /** The receiving mailbox when known. */
  mailbox: string | null;
  from: string | null;
  subject: string | null;
  message_id: string | null;
  received_at: string;
}

export async function recordInboundIssue(issue: InboundIssue): Promise<void> {
  await documentClient().send(
    new PutCommand({
      TableName: tableName('outreach'),
      Item: { ...K.inboundIssue(issue.received_at, issue.key), ...issue, subject: issue.subject?.slice(0, 200) ?? null, expires_at: expiresAt('inbound_issue', new Date(issue.received_at)) },
    }),
  );
}

/** The issues of the last `days` UTC days (newest first), at most `limit`. */
export async function listInboundIssues(now: Date, days: number, limit: number): Promise<InboundIssue[]> {
  const out: InboundIssue[] = [];
  for (let d = 0; d < days && out.length < limit; d += 1) {
    const day = new Date(now.getTime() - d * 86_400_000).toISOString().slice(0, 10);
    const page = await documentClient().send(
      new QueryCommand({
        TableName: tableName('outreach'),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': K.inboundIssuePk(day) },
        ScanIndexForward: false,
        Limit: limit - out.length,
      }),
    );
    for (const item of page.Items ?? []) {
      const { pk: _pk, sk: _sk, expires_at: _e, ...issue } = item;
      out.push(issue as InboundIssue);
    }
  }
  return out;
}

/** One more failed attempt at the message `key`; answers how many there have been. */
export async function countFailedAttempt(key: string, at: Date): Promise<number> {
  const out = await documentClient().send(
    new UpdateCommand({
      TableName: tableName('outreach'),
      Key: K.inboundAttempts(key),
      UpdateExpression: 'ADD attempts :one SET expires_at = if_not_exists(expires_at, :exp)',
      ExpressionAttributeValues: { ':one': 1, ':exp': expiresAt('inbound_attempts', at) },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return Number(out.Attributes?.attempts ?? 1);
}
