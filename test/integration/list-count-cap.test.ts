import { BatchWriteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { LocalStack } from '../../shared/local/stack.js';
import { newTenant, startTestStack } from '../support/local.js';
import { documentClient } from '../../shared/adapters/aws.js';
import { countListIndexUpTo, LIST_COUNT_CAP, type ListIndexRange } from '../../shared/adapters/list-index.js';
import { LIST_INDEX } from '../../shared/catalog/tables.js';
import { newEmailWrites, undraftedEmailFields } from '../../shared/outreach/emails.repository.js';
import { outreachKeys as K } from '../../shared/outreach/outreach.keys.js';
import { newId } from '../../shared/core/ids.js';
import type { EmailRecord } from '../../shared/outreach/model.js';
import type { TransactItem } from '../../shared/accounts/ledger.repository.js';

/**
 * Counts of the paged lists are bounded (issue 42): a page with more after it counts at most LIST_COUNT_CAP
 * list-index entries, exact up to the cap and a lower bound with `count_exact: false` past it. Every COUNT Query
 * of the list index is recorded here (the handlers run in this process) with the entries it evaluated and the
 * read units DynamoDB Local says it consumed.
 */
let stack: LocalStack;
type CountRead = { pk: string; limit?: number; scanned: number; units: number };
const countReads: CountRead[] = [];

beforeAll(async () => {
  stack = await startTestStack({ workers: false, throttleMultiplier: 1000 });
  documentClient().middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as { IndexName?: string; Select?: string; Limit?: number; ReturnConsumedCapacity?: string; ExpressionAttributeValues?: Record<string, unknown> };
      const counting = context.commandName === 'QueryCommand' && input.IndexName === LIST_INDEX.name && input.Select === 'COUNT';
      if (counting) input.ReturnConsumedCapacity = 'TOTAL';
      const out = await next(args);
      if (counting) {
        const output = out.output as { ScannedCount?: number; ConsumedCapacity?: { CapacityUnits?: number } };
        countReads.push({ pk: String(input.ExpressionAttributeValues?.[':pk']), limit: input.Limit, scanned: output.ScannedCount ?? 0, units: output.ConsumedCapacity?.CapacityUnits ?? 0 });
      }
      return out;
    },
    { step: 'initialize', name: 'record-list-counts' },
  );
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

async function batchPut(items: Record<string, unknown>[]): Promise<void> {
  const table = process.env.OUTREACH_TABLE_NAME!;
  for (let i = 0; i < items.length; i += 25) {
    let request: Record<string, { PutRequest: { Item: Record<string, unknown> } }[]> | undefined = { [table]: items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) };
    while (request && Object.keys(request).length) request = (await documentClient().send(new BatchWriteCommand({ RequestItems: request }))).UnprocessedItems as typeof request;
  }
}

const START = Date.parse('2025-01-01T00:00:00Z');

/**
 * `n` of an account's email list entries, a second apart from `START`, each the least an entry is: the item's key,
 * its list key and `status` (every fourth `sent`, the others `queued`), nothing else. Returns their statuses, newest first.
 */
async function seedEntries(accountId: string, n: number): Promise<string[]> {
  const items = Array.from({ length: n }, (_, i) => {
    const id = newId('em', START + i * 1000);
    const at = new Date(START + i * 1000).toISOString();
    return { ...K.email(accountId, id), ...K.emailListEntry(accountId, at, id), status: i % 4 === 0 ? 'sent' : 'queued' };
  });
  await batchPut(items);
  return items.map((e) => e.status).reverse();
}

/** A whole API-created email, newer than every seeded entry (pages show these). */
async function seedEmail(accountId: string, minutes: number): Promise<EmailRecord> {
  const createdAt = new Date(Date.parse('2026-01-01T00:00:00Z') + minutes * 60_000);
  const id = newId('em', createdAt.getTime());
  const e: EmailRecord = {
    ...undraftedEmailFields(createdAt.toISOString()),
    id,
    account_id: accountId,
    status: 'pending_review',
    api_created: true,
    contact: { email: `${id}@prospect.test`, first_name: 'Jane' },
    to: { email: `${id}@prospect.test`, name: 'Jane' },
    from_account: 'ea_00000000000000000000000000',
    from_email: 'rep@seller.test',
    reply_to: null,
    cc: [],
    bcc: [],
    review: 'required',
    subject: 'Hello',
    body_plain: 'Hello Jane',
    body_html: '<p>Hello Jane</p>',
    instructions: 'Introduce us.',
    charge_id: newId('chg'),
    timezone: 'UTC',
  };
  await batchPut(newEmailWrites(e, createdAt).map((w) => (w as { Put: { Item: Record<string, unknown> } }).Put.Item));
  return e;
}

/** What the code before issue 42 read for a count: every entry of the range, one COUNT Query per 1 MB page. */
async function unboundedCount(r: ListIndexRange): Promise<{ count: number; queries: number; scanned: number; units: number }> {
  const before = countReads.length;
  let count = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const out = await documentClient().send(new QueryCommand({ TableName: r.table, IndexName: LIST_INDEX.name, KeyConditionExpression: '#pk = :pk', ExpressionAttributeNames: { '#pk': LIST_INDEX.pk }, ExpressionAttributeValues: { ':pk': r.pk }, Select: 'COUNT', ...(start ? { ExclusiveStartKey: start } : {}) }));
    count += out.Count ?? 0;
    start = out.LastEvaluatedKey;
  } while (start);
  return { count, ...readsSince(before) };
}

function readsSince(before: number): { queries: number; scanned: number; units: number } {
  const reads = countReads.slice(before);
  return { queries: reads.length, scanned: reads.reduce((n, r) => n + r.scanned, 0), units: reads.reduce((n, r) => n + r.units, 0) };
}

test('the cap is 10,000 entries', () => {
  expect(LIST_COUNT_CAP).toBe(10_000);
});

describe('countListIndexUpTo (a small cap, injected)', () => {
  const ENTRIES = 2_000;
  let range: ListIndexRange;
  let statuses: string[];
  beforeAll(async () => {
    const t = await newTenant(stack);
    range = { table: process.env.OUTREACH_TABLE_NAME!, pk: K.emailListPk(t.accountId) };
    statuses = await seedEntries(t.accountId, ENTRIES);
  }, 120_000);

  test('exact up to the cap, the cap past it; a status filter counts its matches among the entries read', async () => {
    expect(await countListIndexUpTo(range, 5_000)).toEqual({ count: ENTRIES, exact: true });
    expect(await countListIndexUpTo(range, ENTRIES)).toEqual({ count: ENTRIES, exact: true });
    expect(await countListIndexUpTo(range, ENTRIES - 1)).toEqual({ count: ENTRIES - 1, exact: false });
    expect(await countListIndexUpTo(range, 100)).toEqual({ count: 100, exact: false });
    expect(await countListIndexUpTo(range, 0)).toEqual({ count: 0, exact: false });
    const sent = statuses.filter((s) => s === 'sent').length;
    expect(await countListIndexUpTo({ ...range, status: 'sent' }, 5_000)).toEqual({ count: sent, exact: true });
    // Past the cap the filter's count is a lower bound: the `sent` among the newest 101 entries.
    expect(await countListIndexUpTo({ ...range, status: 'sent' }, 100)).toEqual({ count: statuses.slice(0, 101).filter((s) => s === 'sent').length, exact: false });
    expect(await countListIndexUpTo({ ...range, pk: K.emailListPk('acct_nobody') }, 100)).toEqual({ count: 0, exact: true });
  });

  test('its reads stop at the cap, whatever the list holds; the unbounded count read every entry', async () => {
    const before = countReads.length;
    expect(await countListIndexUpTo(range, 100)).toEqual({ count: 100, exact: false });
    const capped = readsSince(before);
    expect(countReads.slice(before).map((r) => r.limit)).toEqual([101]);
    const full = await unboundedCount(range);
    expect(full).toMatchObject({ count: ENTRIES, scanned: ENTRIES });
    expect(capped).toMatchObject({ queries: 1, scanned: 101 });
    // DynamoDB Local reports the read units of the entries it read: the capped count a fraction of the full one.
    expect(capped.units).toBeGreaterThan(0);
    expect(capped.units * 5).toBeLessThan(full.units);
  });
});

describe('GET /emails/ over more than LIST_COUNT_CAP entries', () => {
  let t: Awaited<ReturnType<typeof newTenant>>;
  let newest: EmailRecord[];
  beforeAll(async () => {
    t = await newTenant(stack);
    await seedEntries(t.accountId, LIST_COUNT_CAP + 50);
    newest = [];
    for (let i = 0; i < 3; i++) newest.unshift(await seedEmail(t.accountId, i));
  }, 300_000);

  test('a page with more after it answers the cap as its count, with count_exact false, reading at most cap + 1 entries', async () => {
    const before = countReads.length;
    const r = await t.client.api('GET', 'emails/?page_size=2');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ count: LIST_COUNT_CAP, count_exact: false, page: 1, page_size: 2, total_pages: LIST_COUNT_CAP / 2, next_cursor: expect.any(String) });
    expect(r.body.results.map((e: any) => e.id)).toEqual(newest.slice(0, 2).map((e) => e.id));
    const capped = readsSince(before);
    expect(capped.scanned).toBe(LIST_COUNT_CAP + 1);
    expect(capped.queries).toBeLessThanOrEqual(3);
    // What each such page read before: all 10,053 entries.
    const full = await unboundedCount({ table: process.env.OUTREACH_TABLE_NAME!, pk: K.emailListPk(t.accountId) });
    expect(full).toMatchObject({ count: LIST_COUNT_CAP + 53, scanned: LIST_COUNT_CAP + 53 });
  }, 60_000);

  test('a small list counts exactly, count_exact true, on a page with more after it and on the last', async () => {
    const small = await newTenant(stack);
    const emails: EmailRecord[] = [];
    for (let i = 0; i < 3; i++) emails.unshift(await seedEmail(small.accountId, i));
    const before = countReads.length;
    const first = await small.client.api('GET', 'emails/?page_size=2');
    expect(first.body).toMatchObject({ count: 3, count_exact: true, page: 1, total_pages: 2, next_cursor: expect.any(String) });
    expect(readsSince(before)).toMatchObject({ queries: 1, scanned: 3 });
    const last = await small.client.api('GET', `emails/?page_size=2&cursor=${first.body.next_cursor}`);
    expect(last.body).toMatchObject({ count: 3, count_exact: true, page: 2, total_pages: 2, next_cursor: null });
    expect(last.body.results.map((e: any) => e.id)).toEqual([emails[2]!.id]);
    const sequences = await small.client.api('GET', 'sequences/');
    expect(sequences.body).toEqual({ count: 0, count_exact: true, page: 1, page_size: 50, total_pages: 0, results: [], next_cursor: null });
  });
});
