import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { LocalStack } from '../../shared/local/stack.js';
import { Client, newTenant, startTestStack } from '../support/local.js';
import { documentClient } from '../../shared/adapters/aws.js';
import { newEmailWrites, undraftedEmailFields } from '../../shared/outreach/emails.repository.js';
import { newSequenceWrite } from '../../shared/sequences/sequences.repository.js';
import { newId } from '../../shared/core/ids.js';
import type { EmailRecord, EmailStatus } from '../../shared/outreach/model.js';
import type { SequenceRecord } from '../../shared/sequences/model.js';
import type { TransactItem } from '../../shared/accounts/ledger.repository.js';

/**
 * GET /emails/ and GET /sequences/ read one page per call through the list index (issue 30 item 8): every
 * DynamoDB answer the handlers get is recorded here (they run in this process) and counted.
 */
let stack: LocalStack;
let admin: Client;
type Read = { command: string; index?: string; select?: string; items: number; count?: number; about: string };
const reads: Read[] = [];

beforeAll(async () => {
  stack = await startTestStack({ throttleMultiplier: 1000 });
  admin = new Client(stack);
  documentClient().middlewareStack.add(
    (next, context) => async (args) => {
      const out = await next(args);
      const input = args.input as { IndexName?: string; Select?: string };
      const output = out.output as { Items?: unknown[]; Count?: number; Responses?: Record<string, unknown[]> };
      const items = output.Items?.length ?? Object.values(output.Responses ?? {}).reduce((n, r) => n + r.length, 0);
      reads.push({ command: context.commandName ?? '', index: input.IndexName, select: input.Select, items, count: output.Count, about: JSON.stringify(args.input) });
      return out;
    },
    { step: 'initialize', name: 'count-reads' },
  );
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

async function putAll(writes: TransactItem[]): Promise<void> {
  const items = writes.map((w) => (w as { Put: { TableName: string; Item: Record<string, unknown> } }).Put);
  for (let i = 0; i < items.length; i += 25) {
    let request: Record<string, { PutRequest: { Item: Record<string, unknown> } }[]> | undefined = {};
    for (const p of items.slice(i, i + 25)) (request[p.TableName] ??= []).push({ PutRequest: { Item: p.Item } });
    while (request && Object.keys(request).length) request = (await documentClient().send(new BatchWriteCommand({ RequestItems: request }))).UnprocessedItems as typeof request;
  }
}

function email(accountId: string, createdAt: Date, status: EmailStatus, extra: Partial<EmailRecord> = {}): EmailRecord {
  const id = newId('em', createdAt.getTime());
  return {
    ...undraftedEmailFields(createdAt.toISOString()),
    id,
    account_id: accountId,
    status,
    contact: { email: `${id}@prospect.test`, first_name: 'Jane' },
    to: { email: `${id}@prospect.test`, name: 'Jane' },
    from_account: 'ea_00000000000000000000000000',
    from_email: 'rep@seller.test',
    reply_to: null,
    cc: [],
    bcc: [],
    review: 'required',
    subject: 'Hello',
    // A body the size an edit may make it: what the old list read for every email of the account.
    body_plain: 'x'.repeat(20_000),
    body_html: `<p>${'x'.repeat(20_000)}</p>`,
    instructions: 'Introduce us.',
    charge_id: newId('chg'),
    timezone: 'UTC',
    ...extra,
  };
}

/** 130 API-created emails a minute apart (every third `sent`), plus 60 sequence steps the list never shows. */
async function seedEmails(accountId: string, n = 130): Promise<EmailRecord[]> {
  const start = Date.parse('2026-01-01T00:00:00Z');
  const api = Array.from({ length: n }, (_, i) => email(accountId, new Date(start + i * 60_000), i % 3 === 0 ? 'sent' : 'pending_review', { api_created: true }));
  const steps = Array.from({ length: Math.ceil(n / 2) }, (_, i) => email(accountId, new Date(start + i * 60_000 + 1), 'queued', { sequence_id: 'sq_00000000000000000000000000', step: 0 }));
  await putAll([...api, ...steps].flatMap((e) => newEmailWrites(e, new Date(start))));
  return api.reverse(); // newest first
}

/** Pages through a list; each page's reads are those that name the account (the stack's sweeps and workers run in this process too). */
async function walk(client: Client, path: string, query: string, accountId = ''): Promise<{ pages: any[]; readsPerPage: Read[][] }> {
  const pages: any[] = [];
  const readsPerPage: Read[][] = [];
  let cursor: string | null = null;
  do {
    const before = reads.length;
    const r: { status: number; body: any } = await client.api('GET', `${path}?${query}${cursor ? `&cursor=${cursor}` : ''}`);
    expect(r.status).toBe(200);
    readsPerPage.push(reads.slice(before).filter((x) => x.about.includes(accountId)));
    pages.push(r.body);
    cursor = r.body.next_cursor;
  } while (cursor && pages.length < 50);
  return { pages, readsPerPage };
}

describe('GET /emails/', () => {
  let t: Awaited<ReturnType<typeof newTenant>>;
  let newestFirst: EmailRecord[];
  beforeAll(async () => {
    t = await newTenant(stack);
    newestFirst = await seedEmails(t.accountId);
  });

  test('a cursor walk returns every API-created email exactly once, newest first; each call reads one page of emails and no partition', async () => {
    const { pages, readsPerPage } = await walk(t.client, 'emails/', 'page_size=50', t.accountId);
    expect(pages.map((p) => [p.page, p.count, p.total_pages, p.results.length])).toEqual([
      [1, 130, 3, 50],
      [2, 130, 3, 50],
      [3, 130, 3, 30],
    ]);
    expect(pages.flatMap((p) => p.results.map((e: any) => e.id))).toEqual(newestFirst.map((e) => e.id));
    expect(pages[2].next_cursor).toBeNull();
    for (const page of readsPerPage) {
      // No Query of the table itself (the account's partition); the emails come by key, one page of them.
      expect(page.filter((r) => r.command === 'QueryCommand' && !r.index)).toEqual([]);
      expect(page.filter((r) => r.command === 'BatchGetCommand').reduce((n, r) => n + r.items, 0)).toBeLessThanOrEqual(50);
      // The index walk reads the page's keys and one more (is there a next page?); counting returns no item.
      const walkItems = page.filter((r) => r.command === 'QueryCommand' && r.index === 'list' && r.select !== 'COUNT').reduce((n, r) => n + r.items, 0);
      expect(walkItems).toBeLessThanOrEqual(51);
      expect(page.filter((r) => r.select === 'COUNT').every((r) => r.items === 0)).toBe(true);
    }
  });

  test('page N by number is the same page the cursor reaches; past the end is empty', async () => {
    const second = await t.client.api('GET', 'emails/?page=2&page_size=50');
    expect(second.body.results.map((e: any) => e.id)).toEqual(newestFirst.slice(50, 100).map((e) => e.id));
    expect(second.body).toMatchObject({ count: 130, page: 2, page_size: 50, total_pages: 3 });
    const next = await t.client.api('GET', `emails/?page_size=50&cursor=${second.body.next_cursor}`);
    expect(next.body.page).toBe(3);
    expect(next.body.results.map((e: any) => e.id)).toEqual(newestFirst.slice(100).map((e) => e.id));
    const beyond = await t.client.api('GET', 'emails/?page=9&page_size=50');
    expect(beyond.body).toEqual({ count: 130, count_exact: true, page: 9, page_size: 50, total_pages: 3, results: [], next_cursor: null });
    // A page far past the end (schemathesis asked for this one) would need a DynamoDB Limit above 2^31-1: still an empty page, not a 500.
    const far = await t.client.api('GET', 'emails/?page=52265116');
    expect(far.status).toBe(200);
    expect(far.body).toEqual({ count: 130, count_exact: true, page: 52265116, page_size: 50, total_pages: 3, results: [], next_cursor: null });
    const farSequences = await t.client.api('GET', 'sequences/?page=52265116');
    expect(farSequences.status).toBe(200);
    expect(farSequences.body).toMatchObject({ page: 52265116, results: [], next_cursor: null });
  });

  test('status and since filters walk exactly their emails, and count them', async () => {
    const sent = newestFirst.filter((e) => e.status === 'sent');
    const { pages } = await walk(t.client, 'emails/', 'status=sent&page_size=20');
    expect(sent).toHaveLength(44);
    expect(pages.map((p) => [p.count, p.total_pages, p.results.length])).toEqual([
      [44, 3, 20],
      [44, 3, 20],
      [44, 3, 4],
    ]);
    expect(pages.flatMap((p) => p.results.map((e: any) => e.id))).toEqual(sent.map((e) => e.id));
    const since = newestFirst[39]!.created_at;
    const recent = await walk(t.client, 'emails/', `since=${encodeURIComponent(since)}&page_size=25`);
    expect(recent.pages.flatMap((p) => p.results.map((e: any) => e.id))).toEqual(newestFirst.slice(0, 40).map((e) => e.id));
    expect(recent.pages[0].count).toBe(40);
  });

  test("a cursor that was altered, is another account's, or was made for other filters is 400", async () => {
    const first = await t.client.api('GET', 'emails/?page_size=10');
    const cursor = first.body.next_cursor as string;
    const [after, page, digest] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    const forged = Buffer.from(JSON.stringify([newestFirst[100]!.created_at + '#' + newestFirst[100]!.id, page, digest]), 'utf8').toString('base64url');
    const other = await newTenant(stack);
    await seedEmails(other.accountId, 12);
    const theirs = (await other.client.api('GET', 'emails/?page_size=10')).body.next_cursor as string;
    for (const [query, path] of [
      [`page_size=10&cursor=${forged}`, 'cursor'],
      [`page_size=10&cursor=${Buffer.from(JSON.stringify([after, page + 5, digest])).toString('base64url')}`, 'cursor'],
      [`page_size=10&cursor=${theirs}`, 'cursor'],
      [`page_size=10&status=sent&cursor=${cursor}`, 'cursor'],
      [`page_size=20&cursor=${cursor}`, 'cursor'],
      ['page_size=10&cursor=not-a-cursor', 'cursor'],
      [`page_size=10&page=5&cursor=${cursor}`, 'page'],
    ]) {
      const r = await t.client.api('GET', `emails/?${query}`);
      expect([query, r.status, r.body.error.code, r.body.error.details[0].path]).toEqual([query, 400, 'invalid_request', path]);
    }
    expect((await t.client.api('GET', `emails/?page_size=10&page=2&cursor=${cursor}`)).status).toBe(200);
  });

  test('a cursor forged without the service\'s key is 400: the unkeyed digest cursors carried before no longer passes', async () => {
    const { createHash } = await import('node:crypto');
    // What anyone could compute before the cursors were keyed: the digest over the scope and position.
    const scope = ['emails', t.accountId, '', '', 10];
    const at = { after: `${newestFirst[100]!.created_at}#${newestFirst[100]!.id}`, page: 7 };
    const digest = createHash('sha256').update(JSON.stringify([scope, at.after, at.page])).digest('base64url').slice(0, 22);
    const forged = Buffer.from(JSON.stringify([at.after, at.page, digest]), 'utf8').toString('base64url');
    const r = await t.client.api('GET', `emails/?page_size=10&cursor=${forged}`);
    expect([r.status, r.body.error?.code, r.body.error?.details?.[0]?.path]).toEqual([400, 'invalid_request', 'cursor']);
    // The cursors the service issues still continue.
    const first = await t.client.api('GET', 'emails/?page_size=10');
    expect((await t.client.api('GET', `emails/?page_size=10&cursor=${first.body.next_cursor}`)).body.page).toBe(2);
  });
});

test('emails and sequences written before the list index get their entries from the backfill, once', async () => {
  const { PutCommand } = await import('@aws-sdk/lib-dynamodb');
  const { backfillListEntries } = await import('../../shared/outreach/list-entries.repository.js');
  const t = await newTenant(stack);
  const old = email(t.accountId, new Date('2025-06-01T00:00:00Z'), 'sent', { api_created: true });
  const step = email(t.accountId, new Date('2025-06-01T00:00:01Z'), 'sent', { sequence_id: 'sq_00000000000000000000000000', step: 0 });
  // Written as a create did before the index: the item without list_pk / list_sk.
  for (const e of [old, step]) await documentClient().send(new PutCommand({ TableName: process.env.OUTREACH_TABLE_NAME, Item: { pk: `ACCOUNT#${t.accountId}`, sk: `EMAIL#${e.id}`, ...e } }));
  expect((await t.client.api('GET', 'emails/')).body).toMatchObject({ count: 0, results: [] });
  expect((await backfillListEntries()).emails).toBeGreaterThanOrEqual(1);
  const listed = await t.client.api('GET', 'emails/');
  expect(listed.body).toMatchObject({ count: 1, total_pages: 1, next_cursor: null });
  expect(listed.body.results.map((e: any) => e.id)).toEqual([old.id]);
  expect(await backfillListEntries()).toEqual({ emails: 0, sequences: 0 });
});

describe('GET /sequences/', () => {
  test('a cursor walk returns every sequence once, newest first, one page per call; another account’s cursor is 400', async () => {
    const t = await newTenant(stack);
    const start = Date.parse('2026-02-01T00:00:00Z');
    const sequences: SequenceRecord[] = Array.from({ length: 23 }, (_, i) => {
      const at = new Date(start + i * 3_600_000).toISOString();
      return { id: newId('sq', start + i * 3_600_000), account_id: t.accountId, name: `s${i}`, status: 'active', created_at: at, updated_at: at, instructions: 'Introduce us.', steps: 3, reply_to: null, cc: [], bcc: [], contacts: Array.from({ length: 400 }, (_, n) => `contact.${n}.with.a.long.address@prospect.test`), total_emails: 0, drafted: 0 } as SequenceRecord;
    });
    await putAll(sequences.map((s) => newSequenceWrite(s, new Date(start))));
    const { pages, readsPerPage } = await walk(t.client, 'sequences/', 'page_size=10', t.accountId);
    expect(pages.map((p) => [p.page, p.count, p.total_pages, p.results.length])).toEqual([
      [1, 23, 3, 10],
      [2, 23, 3, 10],
      [3, 23, 3, 3],
    ]);
    expect(pages.flatMap((p) => p.results.map((s: any) => s.id))).toEqual(sequences.map((s) => s.id).reverse());
    for (const page of readsPerPage) {
      expect(page.filter((r) => r.command === 'QueryCommand' && !r.index)).toEqual([]);
      expect(page.filter((r) => r.command === 'BatchGetCommand').reduce((n, r) => n + r.items, 0)).toBeLessThanOrEqual(10);
    }
    const other = await newTenant(stack);
    const r = await other.client.api('GET', `sequences/?page_size=10&cursor=${pages[0].next_cursor}`);
    expect([r.status, r.body.error.code, r.body.error.details[0].path]).toEqual([400, 'invalid_request', 'cursor']);
  });
});
