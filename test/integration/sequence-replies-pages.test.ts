import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { LocalStack } from '../../shared/local/stack.js';
import { newTenant, startTestStack, type Client } from '../support/local.js';
import { documentClient } from '../../shared/adapters/aws.js';
import { recordReply, type ReplyRecord } from '../../shared/outreach/emails.repository.js';
import { backfillSequenceReplyEntries, newSequenceWrite, writeTogether } from '../../shared/sequences/sequences.repository.js';
import { newId } from '../../shared/core/ids.js';
import type { SequenceRecord } from '../../shared/sequences/model.js';

/**
 * GET /sequences/{id}/replies/ (issue 42 item 5) pages: only the sequence's own replies are read (its key range
 * of the list index, then the page's replies by key), `page_size` at most 200, and a page's answer stays under
 * 5 MiB as Lambda returns it. Every DynamoDB answer the handler gets is recorded here.
 */
let stack: LocalStack;
type Read = { command: string; index?: string; items: number; about: string };
const reads: Read[] = [];
const PAGE_BYTES = 5 * 1024 * 1024;

beforeAll(async () => {
  stack = await startTestStack({ throttleMultiplier: 1000, workers: false });
  documentClient().middlewareStack.add(
    (next, context) => async (args) => {
      const out = await next(args);
      const input = args.input as { IndexName?: string };
      const output = out.output as { Items?: unknown[]; Responses?: Record<string, unknown[]> };
      const items = output.Items?.length ?? Object.values(output.Responses ?? {}).reduce((n, r) => n + r.length, 0);
      reads.push({ command: context.commandName ?? '', index: input.IndexName, items, about: JSON.stringify(args.input) });
      return out;
    },
    { step: 'initialize', name: 'count-reply-reads' },
  );
}, 120_000);
afterAll(async () => {
  documentClient().middlewareStack.remove('count-reply-reads');
  await stack?.stop();
});

async function sequence(accountId: string): Promise<SequenceRecord> {
  const at = new Date().toISOString();
  const s = { id: newId('sq'), account_id: accountId, name: 'replies', status: 'active', created_at: at, updated_at: at, instructions: 'Introduce us.', steps: 2, reply_to: null, cc: [], bcc: [], contacts: [], total_emails: 0, drafted: 0 } as unknown as SequenceRecord;
  await writeTogether([newSequenceWrite(s, new Date(Date.parse(at) + 3_600_000))]);
  return s;
}

function reply(sequenceId: string, i: number, body = `Happy to talk, reply ${i}.`): ReplyRecord {
  return {
    email_id: newId('em'),
    from_email: `lead${i}@prospect.test`,
    from_name: `Lead ${i}`,
    subject: 'Re: Hello',
    body_plain: body,
    classification: 'reply',
    received_at: new Date(Date.parse('2026-03-01T00:00:00Z') + i * 60_000).toISOString(),
    sequence_id: sequenceId,
    kind: 'reply',
  };
}

async function seed(accountId: string, sequenceId: string, n: number, body?: (i: number) => string): Promise<ReplyRecord[]> {
  const all = Array.from({ length: n }, (_, i) => reply(sequenceId, i, body?.(i)));
  for (let i = 0; i < all.length; i += 10) await Promise.all(all.slice(i, i + 10).map((r) => recordReply(accountId, newId('em').slice(3), r)));
  return all;
}

async function walk(client: Client, id: string, query: string, accountId: string) {
  const pages: { status: number; body: any; bytes: number; reads: Read[] }[] = [];
  let cursor: string | null = null;
  do {
    const before = reads.length;
    const r: { status: number; body: any } = await client.api('GET', `sequences/${id}/replies/?${query}${cursor ? `&cursor=${cursor}` : ''}`);
    expect(r.status).toBe(200);
    pages.push({ ...r, bytes: Buffer.byteLength(JSON.stringify(JSON.stringify(r.body))), reads: reads.slice(before).filter((x) => x.about.includes(accountId)) });
    cursor = r.body.next_cursor;
  } while (cursor && pages.length < 50);
  return pages;
}

test('a walk returns every reply of the sequence once, oldest first, one page per call, reading none of the account’s other replies', async () => {
  const t = await newTenant(stack);
  const [a, b] = [await sequence(t.accountId), await sequence(t.accountId)];
  const mine = await seed(t.accountId, a.id, 120);
  await seed(t.accountId, b.id, 40);
  await recordReply(t.accountId, newId('em').slice(3), { ...reply(a.id, 999), sequence_id: undefined });

  const pages = await walk(t.client, a.id, 'page_size=50', t.accountId);
  expect(pages.map((p) => p.body.replies.length)).toEqual([50, 50, 20]);
  expect(pages.flatMap((p) => p.body.replies.map((r: any) => r.email_id))).toEqual(mine.map((r) => r.email_id));
  expect(pages[0]!.body.replies[0]).toEqual({ email_id: mine[0]!.email_id, from_email: 'lead0@prospect.test', from_name: 'Lead 0', subject: 'Re: Hello', body_plain: 'Happy to talk, reply 0.', classification: 'reply', received_at: mine[0]!.received_at });
  expect(pages[2]!.body.next_cursor).toBeNull();
  for (const page of pages) {
    // No Query of the account's partition; the index walk reads the page's keys and one more; the replies come by key.
    expect(page.reads.filter((r) => r.command === 'QueryCommand' && !r.index)).toEqual([]);
    expect(page.reads.filter((r) => r.command === 'QueryCommand' && r.index === 'list').reduce((n, r) => n + r.items, 0)).toBeLessThanOrEqual(51);
    expect(page.reads.filter((r) => r.command === 'BatchGetCommand').reduce((n, r) => n + r.items, 0)).toBeLessThanOrEqual(50);
  }
  // The default page is 50; 200 at most.
  const first = await t.client.api('GET', `sequences/${a.id}/replies/`);
  expect([first.body.replies.length, typeof first.body.next_cursor]).toEqual([50, 'string']);
  expect((await t.client.api('GET', `sequences/${a.id}/replies/?page_size=200`)).body.replies).toHaveLength(120);
  expect((await t.client.api('GET', `sequences/${b.id}/replies/?page_size=200`)).body.replies).toHaveLength(40);
});

test('a page of replies with the longest bodies stays under 5 MiB as Lambda returns it, and the walk still returns them all', async () => {
  const t = await newTenant(stack);
  const s = await sequence(t.accountId);
  // 200,000 characters, each escaped twice on the way out (`"` → `\"` → `\\\"`): 800 KB per reply in the answer.
  const all = await seed(t.accountId, s.id, 14, (i) => `${i}${'"'.repeat(199_999)}`);
  const pages = await walk(t.client, s.id, 'page_size=200', t.accountId);
  expect(pages.length).toBeGreaterThan(1);
  for (const p of pages) expect(p.bytes).toBeLessThan(PAGE_BYTES);
  expect(pages.flatMap((p) => p.body.replies.map((r: any) => r.email_id))).toEqual(all.map((r) => r.email_id));
});

test('a bad page_size or cursor, another sequence’s or another page size’s cursor, is 400 on cursor', async () => {
  const t = await newTenant(stack);
  const [a, b] = [await sequence(t.accountId), await sequence(t.accountId)];
  await seed(t.accountId, a.id, 3);
  const cursor = (await t.client.api('GET', `sequences/${a.id}/replies/?page_size=1`)).body.next_cursor;
  expect(typeof cursor).toBe('string');
  expect((await t.client.api('GET', `sequences/${a.id}/replies/?page_size=1&cursor=${cursor}`)).body.replies).toHaveLength(1);
  for (const [query, path] of [
    ['page_size=201', 'page_size'],
    ['page_size=0', 'page_size'],
    ['cursor=nonsense', 'cursor'],
    [`page_size=2&cursor=${cursor}`, 'cursor'],
  ] as const) {
    const r = await t.client.api('GET', `sequences/${a.id}/replies/?${query}`);
    expect([query, r.status, r.body.error?.code, r.body.error?.details?.[0]?.path]).toEqual([query, 400, 'invalid_request', path]);
  }
  const other = await t.client.api('GET', `sequences/${b.id}/replies/?page_size=1&cursor=${cursor}`);
  expect([other.status, other.body.error.details[0].path]).toEqual([400, 'cursor']);
});

test('replies recorded before they carried a list entry get one from the backfill, once', async () => {
  const t = await newTenant(stack);
  const s = await sequence(t.accountId);
  const old = reply(s.id, 1);
  await documentClient().send(new PutCommand({ TableName: process.env.OUTREACH_TABLE_NAME, Item: { pk: `ACCOUNT#${t.accountId}`, sk: `REPLY#${newId('em').slice(3)}`, ...old } }));
  expect((await t.client.api('GET', `sequences/${s.id}/replies/`)).body).toEqual({ replies: [], next_cursor: null });
  expect(await backfillSequenceReplyEntries()).toBeGreaterThanOrEqual(1);
  expect((await t.client.api('GET', `sequences/${s.id}/replies/`)).body.replies.map((r: any) => r.email_id)).toEqual([old.email_id]);
  expect(await backfillSequenceReplyEntries()).toBe(0);
});
