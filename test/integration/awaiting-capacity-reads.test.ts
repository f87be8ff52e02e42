import { BatchWriteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { LocalStack } from '../../shared/local/stack.js';
import { Client, newTenant, reply, startTestStack } from '../support/local.js';
import { documentClient } from '../../shared/adapters/aws.js';
import { tableName } from '../../shared/catalog/resource-names.js';
import { TABLES } from '../../shared/catalog/tables.js';
import { backfillAwaitEntries, getEmail, newEmailWrites, undraftedEmailFields } from '../../shared/outreach/emails.repository.js';
import { scheduleSend } from '../../shared/outreach/schedule-send.js';
import { newId } from '../../shared/core/ids.js';
import type { EmailRecord } from '../../shared/outreach/model.js';

/**
 * Raising a sending account's daily limit wakes the emails that wait for capacity (issue 42): it finds them on
 * the outreach table's sparse `await` index and reads those alone, by key and projected, never an email's body
 * and never the account's other emails (the account may hold thousands of emails of 50,000 characters).
 */
let stack: LocalStack;
let admin: Client;
type Sent = { command: string; input: Record<string, any>; items: Record<string, unknown>[]; scanned: number; units: number };
let sent: Sent[] = [];

/** Read units of one answer (ReturnConsumedCapacity TOTAL is asked of every read below). */
const unitsOf = (output: { ConsumedCapacity?: { CapacityUnits?: number } | { CapacityUnits?: number }[] }) =>
  [output.ConsumedCapacity ?? []].flat().reduce((n, c) => n + (c.CapacityUnits ?? 0), 0);

beforeAll(async () => {
  stack = await startTestStack({ throttleMultiplier: 1000, workers: false });
  admin = new Client(stack);
  documentClient().middlewareStack.add(
    (next, context) => async (args) => {
      // The low-level name (BatchGetItemCommand for the document client's BatchGetCommand).
      const command = (context.commandName ?? '').replace(/^(BatchGet|Get)Command$/, '$1ItemCommand');
      if (/^(Query|Scan|BatchGetItem|GetItem)Command$/.test(command)) (args.input as Record<string, unknown>).ReturnConsumedCapacity = 'TOTAL';
      const out = await next(args);
      const output = out.output as { Items?: Record<string, unknown>[]; Responses?: Record<string, Record<string, unknown>[]>; Item?: Record<string, unknown>; ScannedCount?: number };
      const items = output.Items ?? Object.values(output.Responses ?? {}).flat();
      const all = output.Item ? [...items, output.Item] : items;
      sent.push({ command, input: args.input as Record<string, any>, items: all, scanned: output.ScannedCount ?? all.length, units: unitsOf(output as never) });
      return out;
    },
    { step: 'initialize', name: 'capacity-reads' },
  );
}, 120_000);
afterAll(async () => {
  documentClient().middlewareStack.remove('capacity-reads');
  await stack?.stop();
});

async function putEmails(emails: EmailRecord[]): Promise<void> {
  const items = emails.flatMap((e) => newEmailWrites(e, new Date(e.created_at))).map((w) => (w as { Put: { TableName: string; Item: Record<string, unknown> } }).Put);
  const batches: Promise<void>[] = [];
  for (let i = 0; i < items.length; i += 25) {
    batches.push(
      (async () => {
        let request: Record<string, { PutRequest: { Item: Record<string, unknown> } }[]> | undefined = {};
        for (const p of items.slice(i, i + 25)) (request[p.TableName] ??= []).push({ PutRequest: { Item: p.Item } });
        while (request && Object.keys(request).length) request = (await documentClient().send(new BatchWriteCommand({ RequestItems: request }))).UnprocessedItems as typeof request;
      })(),
    );
    if (batches.length === 8) await Promise.all(batches.splice(0));
  }
  await Promise.all(batches);
}

async function senderOf(t: { accountId: string }, address: string) {
  return (await admin.console('POST', `accounts/${t.accountId}/sending-accounts/`, { email: address, type: 'google', daily_limit: 0 })).body as { id: string; email: string };
}

function emailMaker(accountId: string, ea: { id: string; email: string }, start: number, bodyChars: number) {
  return (i: number, extra: Partial<EmailRecord>): EmailRecord => {
    const id = newId('em', start + i * 60_000);
    return {
      ...undraftedEmailFields(new Date(start + i * 60_000).toISOString()),
      id, account_id: accountId, status: 'sent', contact: { email: `p${i}@prospect.test`, first_name: 'P' }, to: { email: `p${i}@prospect.test`, name: 'P' },
      from_account: ea.id, from_email: ea.email, reply_to: null, cc: [], bcc: [], review: 'required', subject: 'Hello',
      body_plain: 'x'.repeat(bodyChars), body_html: `<p>${'x'.repeat(bodyChars)}</p>`, instructions: 'Introduce us.', charge_id: newId('chg'), timezone: 'UTC', ...extra,
    };
  };
}

/** What the outreach table was asked while `work` ran. */
async function readsDuring(work: () => Promise<unknown>): Promise<Sent[]> {
  sent = [];
  await work();
  const outreach = tableName('outreach');
  return sent.filter((s) => s.input.TableName === outreach || Object.keys(s.input.RequestItems ?? {}).includes(outreach));
}

const AWAIT = TABLES.outreach.gsis.find((g) => g.name === 'await')!;
/** The ids of the emails whose items a read returned (index entries name theirs by key). */
const emailsRead = (reads: Sent[]) => [...new Set(reads.flatMap((s) => s.items).flatMap((i) => (typeof i.sk === 'string' && i.sk.startsWith('EMAIL#') ? [i.sk.slice(6)] : typeof i.id === 'string' && i.id.startsWith('em_') ? [i.id] : [])))];
const awaitAttributes = (e: EmailRecord | null) => Object.keys(e ?? {}).filter((k) => ['awaiting_capacity', 'await_pk', 'await_sk'].includes(k)).sort();

test('an email parked before the await index gets its entry from the backfill, once, and a PATCH then wakes it', async () => {
  const t = await newTenant(stack);
  const ea = await senderOf(t, 'rep.backfill@seller.test');
  const email = emailMaker(t.accountId, ea, Date.parse('2026-02-01T00:00:00Z'), 100);
  const parked = email(0, { status: 'queued', awaiting_capacity: { mode: 'now', send_at: null } });
  const sentOne = email(1, {});
  // Written as before the index: awaiting_capacity without its entry.
  const writes = newEmailWrites(parked, new Date(parked.created_at)).map((w) => (w as { Put: { TableName: string; Item: Record<string, unknown> } }).Put);
  for (const p of writes) {
    const { await_pk: _p, await_sk: _s, ...item } = p.Item;
    await documentClient().send(new BatchWriteCommand({ RequestItems: { [p.TableName]: [{ PutRequest: { Item: item } }] } }));
  }
  await putEmails([sentOne]);
  expect(awaitAttributes(await getEmail(t.accountId, parked.id))).toEqual(['awaiting_capacity']);

  expect(await backfillAwaitEntries()).toBe(1);
  expect(awaitAttributes(await getEmail(t.accountId, parked.id))).toEqual(['await_pk', 'await_sk', 'awaiting_capacity']);
  expect(awaitAttributes(await getEmail(t.accountId, sentOne.id))).toEqual([]);
  expect(await backfillAwaitEntries()).toBe(0);

  expect((await admin.console('PATCH', `sending-accounts/${ea.id}/`, { daily_limit: 10 })).status).toBe(200);
  const woken = await getEmail(t.accountId, parked.id);
  expect([woken?.status, typeof woken?.scheduled_for, awaitAttributes(woken)]).toEqual(['queued', 'string', []]);
});

test('a daily-limit PATCH schedules the waiting emails, oldest first, and reads no body of any email', async () => {
  const t = await newTenant(stack);
  const ea = await senderOf(t, 'rep.capacity@seller.test');
  const email = emailMaker(t.accountId, ea, Date.parse('2026-04-01T00:00:00Z'), 50_000);
  // 150 sent emails with the longest bodies, and 3 approved while the limit was 0.
  const others = Array.from({ length: 150 }, (_, i) => email(i, {}));
  const waiting = [0, 1, 2].map((i) => email(200 + i, { status: 'queued', awaiting_capacity: { mode: 'now', send_at: null } }));
  await putEmails([...others, ...waiting]);

  const reads = await readsDuring(async () => {
    const r = await admin.console('PATCH', `sending-accounts/${ea.id}/`, { daily_limit: 50 });
    expect(r.status).toBe(200);
  });
  for (const w of waiting) {
    const woken = await getEmail(t.accountId, w.id);
    expect([woken?.status, woken?.awaiting_capacity, typeof woken?.scheduled_for]).toEqual(['queued', undefined, 'string']);
  }

  // The await index names the waiting emails; they alone are read, by key and projected.
  expect(reads.filter((s) => s.input.IndexName === AWAIT.name).map((q) => q.command)).toEqual(['QueryCommand']);
  const gets = reads.filter((s) => s.command === 'BatchGetItemCommand');
  for (const g of gets) expect(Object.values(g.input.RequestItems as Record<string, { ProjectionExpression?: string }>).every((r) => r.ProjectionExpression)).toBe(true);
  expect(emailsRead(reads)).toEqual(waiting.map((w) => w.id));
  const bodyBytes = reads.flatMap((s) => s.items).reduce((n, i) => n + (typeof i.body_plain === 'string' ? i.body_plain.length : 0), 0);
  expect(bodyBytes).toBe(0);
}, 60_000);

test('2,000 sent emails and 5 waiting: waking them reads the 5 alone, and each leaves the await index in the write that ends its wait', async () => {
  const t = await newTenant(stack);
  const ea = await senderOf(t, 'rep.many@seller.test');
  const email = emailMaker(t.accountId, ea, Date.parse('2026-03-01T00:00:00Z'), 1_500);
  await putEmails(Array.from({ length: 2_000 }, (_, i) => email(i, {})));
  // Five approved while the account had no daily limit: the scheduling write itself parks them.
  const queued = Array.from({ length: 5 }, (_, i) => email(3_000 + i, { status: 'queued', api_created: true }));
  await putEmails(queued);
  for (const q of queued) await scheduleSend(q, 'now', undefined);
  for (const q of queued) expect(awaitAttributes(await getEmail(t.accountId, q.id))).toEqual(['await_pk', 'await_sk', 'awaiting_capacity']);

  // Cancelled while it waits: its entry goes in that write.
  const cancelled = queued[2]!;
  expect((await reply(t.client.typed.POST('/api/public/v1/emails/{id}/cancel/', { params: { path: { id: cancelled.id } } }))).status).toBe(200);
  expect(awaitAttributes(await getEmail(t.accountId, cancelled.id))).toEqual([]);
  const stillWaiting = queued.filter((q) => q !== cancelled);

  const reads = await readsDuring(async () => {
    expect((await admin.console('PATCH', `sending-accounts/${ea.id}/`, { daily_limit: 50 })).status).toBe(200);
  });
  // The await index is queried once and names the 4 waiting emails; they alone are read (no Query of the
  // account's emails passes over any of the 2,000). Each ~4 KB email costs 1 read unit to read consistently,
  // where a Query of the account's emails would read all 2,000 (about 2,000 units).
  const finding = reads.filter((s) => s.input.IndexName === AWAIT.name || s.command === 'BatchGetItemCommand');
  expect(finding.map((s) => [s.command, s.scanned])).toEqual([['QueryCommand', 4], ['BatchGetItemCommand', 4]]);
  expect(emailsRead(reads)).toEqual(stillWaiting.map((q) => q.id));
  expect(reads.filter((s) => s.command === 'QueryCommand' && s.input.ExpressionAttributeValues?.[':pk'] === `ACCOUNT#${t.accountId}`)).toEqual([]);
  const units = finding.reduce((n, s) => n + s.units, 0);
  expect(units).toBeGreaterThan(0);
  expect(units).toBeLessThanOrEqual(stillWaiting.length + 1);
  expect(reads.reduce((n, s) => n + s.scanned, 0)).toBeLessThan(20);

  // Woken: scheduled, and off the await index in the same write.
  for (const q of stillWaiting) {
    const woken = await getEmail(t.accountId, q.id);
    expect([woken?.status, typeof woken?.scheduled_for, awaitAttributes(woken)]).toEqual(['queued', 'string', []]);
  }
  const left = await documentClient().send(
    new QueryCommand({ TableName: tableName('outreach'), IndexName: AWAIT.name, KeyConditionExpression: '#p = :p', ExpressionAttributeNames: { '#p': AWAIT.pk }, ExpressionAttributeValues: { ':p': `AWAIT#${t.accountId}#${ea.id}` } }),
  );
  expect(left.Items).toEqual([]);
}, 120_000);
