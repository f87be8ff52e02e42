import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { LocalStack } from '../../shared/local/stack.js';
import { Client, newTenant, startTestStack } from '../support/local.js';
import { documentClient } from '../../shared/adapters/aws.js';
import { tableName } from '../../shared/catalog/resource-names.js';
import { getEmail, newEmailWrites, undraftedEmailFields } from '../../shared/outreach/emails.repository.js';
import { newId } from '../../shared/core/ids.js';
import type { EmailRecord } from '../../shared/outreach/model.js';

/**
 * Raising a sending account's daily limit wakes the emails that wait for capacity (issue 42 item 5): it reads
 * those alone, projected, never an email's body (the account may hold thousands of emails of 50,000 characters).
 */
let stack: LocalStack;
let admin: Client;
type Sent = { command: string; input: Record<string, any>; items: Record<string, unknown>[] };
let sent: Sent[] = [];

beforeAll(async () => {
  stack = await startTestStack({ throttleMultiplier: 1000, workers: false });
  admin = new Client(stack);
  documentClient().middlewareStack.add(
    (next, context) => async (args) => {
      const out = await next(args);
      sent.push({ command: context.commandName ?? '', input: args.input as Record<string, any>, items: ((out.output as { Items?: Record<string, unknown>[] }).Items ?? []) });
      return out;
    },
    { step: 'initialize', name: 'capacity-reads' },
  );
}, 120_000);
afterAll(async () => {
  documentClient().middlewareStack.remove('capacity-reads');
  await stack?.stop();
});

test('a daily-limit PATCH schedules the waiting emails, oldest first, and reads no body of any email', async () => {
  const t = await newTenant(stack);
  const ea = (await admin.console('POST', `accounts/${t.accountId}/sending-accounts/`, { email: 'rep.capacity@seller.test', type: 'google', daily_limit: 0 })).body;
  const start = Date.parse('2026-04-01T00:00:00Z');
  const email = (i: number, extra: Partial<EmailRecord>): EmailRecord => {
    const id = newId('em', start + i * 60_000);
    return {
      ...undraftedEmailFields(new Date(start + i * 60_000).toISOString()),
      id, account_id: t.accountId, status: 'sent', contact: { email: `p${i}@prospect.test`, first_name: 'P' }, to: { email: `p${i}@prospect.test`, name: 'P' },
      from_account: ea.id, from_email: ea.email, reply_to: null, cc: [], bcc: [], review: 'required', subject: 'Hello',
      body_plain: 'x'.repeat(50_000), body_html: `<p>${'x'.repeat(50_000)}</p>`, instructions: 'Introduce us.', charge_id: newId('chg'), timezone: 'UTC', ...extra,
    };
  };
  // 150 sent emails with the longest bodies, and 3 approved while the limit was 0.
  const others = Array.from({ length: 150 }, (_, i) => email(i, {}));
  const waiting = [0, 1, 2].map((i) => email(200 + i, { status: 'queued', awaiting_capacity: { mode: 'now', send_at: null } }));
  const items = [...others, ...waiting].flatMap((e) => newEmailWrites(e, new Date(start))).map((w) => (w as { Put: { TableName: string; Item: Record<string, unknown> } }).Put);
  for (let i = 0; i < items.length; i += 25) {
    let request: Record<string, { PutRequest: { Item: Record<string, unknown> } }[]> | undefined = {};
    for (const p of items.slice(i, i + 25)) (request[p.TableName] ??= []).push({ PutRequest: { Item: p.Item } });
    while (request && Object.keys(request).length) request = (await documentClient().send(new BatchWriteCommand({ RequestItems: request }))).UnprocessedItems as typeof request;
  }

  sent = [];
  const r = await admin.console('PATCH', `sending-accounts/${ea.id}/`, { daily_limit: 50 });
  expect(r.status).toBe(200);
  for (const w of waiting) {
    const woken = await getEmail(t.accountId, w.id);
    expect([woken?.status, woken?.awaiting_capacity, typeof woken?.scheduled_for]).toEqual(['queued', undefined, 'string']);
  }

  const outreach = sent.filter((s) => s.input.TableName === tableName('outreach') && s.command === 'QueryCommand');
  // Every Query of the account's emails is projected (no body), and answers only the waiting ones.
  const ofEmails = outreach.filter((s) => s.input.ExpressionAttributeValues?.[':p'] === 'EMAIL#');
  expect(ofEmails.length).toBeGreaterThan(0);
  for (const q of ofEmails) {
    expect(q.input.ProjectionExpression).toBeDefined();
    for (const item of q.items) expect(Object.keys(item)).not.toEqual(expect.arrayContaining(['body_plain']));
  }
  expect(ofEmails.flatMap((q) => q.items.map((i) => i.id))).toEqual(waiting.map((w) => w.id));
  const bodyBytes = sent.flatMap((s) => s.items).reduce((n, i) => n + (typeof i.body_plain === 'string' ? i.body_plain.length : 0), 0);
  expect(bodyBytes).toBe(0);
});
