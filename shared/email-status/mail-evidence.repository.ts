import { createHash } from 'node:crypto';
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetAll, documentClient } from '../adapters/aws.js';
import { isConditionFailed } from '../adapters/dynamodb-errors.js';
import { tableName } from '../catalog/resource-names.js';
import type { MailEvidence } from './classify.js';
import { expiresAt } from '../catalog/tables.js';

/**
 * What the service's own sending has learnt, shared by every account and naming none (the mail_evidence table):
 *   ADDR#<sha256 of the lower-case address> / A   `bounced_at`, `delivered_at` (latest of each)
 *   DOMAIN#<domain> / D                           `patterns` (string set: delivered patterns), `rejects_unknown`
 *   ADDR#<sha256 of the address> / REPORT#<sha256 of an account id>   an inbound bounce report of that account
 * The address is stored only as its hash: the record says "this address bounced", never who sent to it.
 * Every write is idempotent and keeps the latest instant, so a redelivered or late event changes nothing.
 */
const addressKey = (address: string) => ({ pk: `ADDR#${createHash('sha256').update(address.trim().toLowerCase()).digest('hex')}`, sk: 'A' });
const domainKey = (domain: string) => ({ pk: `DOMAIN#${domain.toLowerCase()}`, sk: 'D' });
const domainOf = (address: string) => address.slice(address.lastIndexOf('@') + 1).toLowerCase();

async function setLatest(address: string, field: 'bounced_at' | 'delivered_at', at: string): Promise<void> {
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: tableName('mail_evidence'),
        Key: addressKey(address),
        UpdateExpression: 'SET #f = :at',
        ConditionExpression: 'attribute_not_exists(#f) OR #f < :at',
        ExpressionAttributeNames: { '#f': field },
        ExpressionAttributeValues: { ':at': at },
      }),
    );
  } catch (e) {
    if (!isConditionFailed(e)) throw e;
  }
}

/** A permanent bounce of `address`: it is invalid for every later enrichment, and its domain refuses unknown recipients. */
export async function recordHardBounce(address: string, at: string): Promise<void> {
  await Promise.all([
    setLatest(address, 'bounced_at', at),
    documentClient().send(new UpdateCommand({ TableName: tableName('mail_evidence'), Key: domainKey(domainOf(address)), UpdateExpression: 'SET rejects_unknown = :t', ExpressionAttributeValues: { ':t': true } })),
  ]);
}

/**
 * How many independent accounts must report a hard bounce of an address, by a bounce message in their own
 * mailbox, before it counts for everyone. A report in a mailbox is mail anyone can write: one account's
 * reports stay within that account (its lead and suppression list), and only agreement between accounts
 * (or an SES bounce event, which no sender can forge) makes the address invalid for every account.
 */
export const INDEPENDENT_REPORTS = 2;

/**
 * An account's mailbox received a hard bounce naming `address`. The report is kept once per account (a
 * hash of its id, so the record still names no account); when `INDEPENDENT_REPORTS` accounts have
 * reported the address, it is recorded as a hard bounce for everyone. Idempotent: a report seen again
 * changes nothing. Answers whether the address is now shared evidence.
 */
export async function reportInboundHardBounce(address: string, accountId: string, at: string): Promise<boolean> {
  const table = tableName('mail_evidence');
  const { pk } = addressKey(address);
  const reporter = createHash('sha256').update(accountId).digest('hex');
  await documentClient().send(new PutCommand({ TableName: table, Item: { pk, sk: `REPORT#${reporter}`, reported_at: at, expires_at: expiresAt('bounce_report', new Date(at)) } }));
  const out = await documentClient().send(
    new QueryCommand({ TableName: table, KeyConditionExpression: 'pk = :pk AND begins_with(sk, :r)', ExpressionAttributeValues: { ':pk': pk, ':r': 'REPORT#' }, Select: 'COUNT', Limit: INDEPENDENT_REPORTS, ConsistentRead: true }),
  );
  if ((out.Count ?? 0) < INDEPENDENT_REPORTS) return false;
  await recordHardBounce(address, at);
  return true;
}

/** A delivery to `address`, whose local part follows `pattern` (null when the recipient's names do not explain it). */
export async function recordDelivery(address: string, pattern: string | null, at: string): Promise<void> {
  await Promise.all([
    setLatest(address, 'delivered_at', at),
    pattern
      ? documentClient().send(new UpdateCommand({ TableName: tableName('mail_evidence'), Key: domainKey(domainOf(address)), UpdateExpression: 'ADD patterns :p', ExpressionAttributeValues: { ':p': new Set([pattern]) } }))
      : undefined,
  ]);
}

/** Everything known about `address` and its domain: two eventually consistent GetItems, in parallel. */
export async function mailEvidenceFor(address: string): Promise<MailEvidence> {
  const table = tableName('mail_evidence');
  const [a, d] = await Promise.all([
    documentClient().send(new GetCommand({ TableName: table, Key: addressKey(address), ProjectionExpression: 'bounced_at, delivered_at' })),
    documentClient().send(new GetCommand({ TableName: table, Key: domainKey(domainOf(address)), ProjectionExpression: 'patterns, rejects_unknown' })),
  ]);
  return evidenceOf(a.Item, d.Item);
}

/**
 * mailEvidenceFor of each of `addresses`, in their order, read together: the address records and the records of
 * their distinct domains by key, eventually consistent as above, in BatchGetItem requests of 100 keys (keys left
 * unprocessed asked again after a jittered, growing pause: batchGetAll). A check of 500 addresses at 500 domains
 * is 10 requests where one GetItem per record was 1,000: what one account's imports cost the table every
 * account shares.
 */
export async function mailEvidenceOfEach(addresses: readonly string[]): Promise<MailEvidence[]> {
  const domains = [...new Set(addresses.map(domainOf))];
  const keys = [...new Map(addresses.map((a) => addressKey(a)).map((k) => [k.pk, k])).values(), ...domains.map(domainKey)];
  const items = await batchGetAll<Record<string, unknown>>(tableName('mail_evidence'), keys, { ProjectionExpression: 'pk, bounced_at, delivered_at, patterns, rejects_unknown', ConsistentRead: false });
  const byPk = new Map(items.map((i) => [i.pk as string, i]));
  return addresses.map((address) => evidenceOf(byPk.get(addressKey(address).pk), byPk.get(domainKey(domainOf(address)).pk)));
}

function evidenceOf(a: Record<string, unknown> | undefined, d: Record<string, unknown> | undefined): MailEvidence {
  const evidence: MailEvidence = {};
  if (typeof a?.bounced_at === 'string') evidence.bounced_at = a.bounced_at;
  if (typeof a?.delivered_at === 'string') evidence.delivered_at = a.delivered_at;
  if (d?.patterns instanceof Set) evidence.domain_patterns = [...(d.patterns as Set<string>)];
  if (d?.rejects_unknown === true) evidence.domain_rejects_unknown = true;
  return evidence;
}

/** The stored keys of an address's record, for tests that check what it holds. */
export const mailEvidenceKeys = { address: addressKey, domain: domainKey };
