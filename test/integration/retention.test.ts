import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { LocalStack } from '../../shared/local/stack.js';
import { Client, newTenant, startTestStack } from '../support/local.js';
import { documentClient } from '../../shared/adapters/aws.js';
import { RETENTION } from '../../shared/catalog/tables.js';
import { jobsKeys } from '../../shared/jobs/jobs.keys.js';
import { outreachKeys } from '../../shared/outreach/outreach.keys.js';

// Workers stay off: the test plays the steps that write each item kind and reads what was stored.
let stack: LocalStack;
beforeAll(async () => {
  stack = await startTestStack({ workers: false, throttleMultiplier: 100 });
});
afterAll(async () => {
  await stack?.stop();
});

const epoch = (iso: string) => Math.floor(new Date(iso).getTime() / 1000);
const get = async (table: string, key: Record<string, string>) => (await documentClient().send(new GetCommand({ TableName: table, Key: key, ConsistentRead: true }))).Item;

test('jobs: the idempotency record expires after 24 h and its key can then be used afresh; a finished job expires 30 days after it finished', async () => {
  const t = await newTenant(stack, {}, { webhookSecret: true });
  const body = { query: 'engineers in Berlin', max_results: 25, webhook_url: 'http://127.0.0.1:9/hook' };
  const first = await t.client.api('POST', 'search/', body, { 'Idempotency-Key': 'ttl-key-1' });
  expect(first.status).toBe(202);
  const idem = await get(process.env.JOBS_TABLE_NAME!, jobsKeys.idempotency(t.accountId, 'people_search', 'ttl-key-1'));
  expect(idem!.expires_at).toBe(epoch(first.body.created_at) + RETENTION.idempotency_record.seconds);
  const pending = await get(process.env.JOBS_TABLE_NAME!, jobsKeys.job(first.body.id));
  expect(pending!.expires_at).toBeUndefined(); // unfinished work never expires

  expect((await t.client.api('POST', 'search/', body, { 'Idempotency-Key': 'ttl-key-1' })).body.id).toBe(first.body.id);
  expect((await new Client(stack).console('POST', 'dev/clock/', { advance_seconds: 25 * 3600 })).status).toBe(200);
  const later = await t.client.api('POST', 'search/', body, { 'Idempotency-Key': 'ttl-key-1' });
  expect(later.status).toBe(202);
  expect(later.body.id).not.toBe(first.body.id);

  // No worker runs here: past its deadline, the sweeper (run by the clock move) ended the first job, and
  // finishing it started its retention.
  const finished = await get(process.env.JOBS_TABLE_NAME!, jobsKeys.job(first.body.id));
  expect([finished!.status, finished!.error.code]).toEqual(['failed', 'error']);
  expect(finished!.expires_at).toBe(epoch(finished!.completed_at) + RETENTION.finished_job.seconds);
});

test('outreach: a lead, a tracking pointer and a cancelled email carry their retention; money records never do', async () => {
  const t = await newTenant(stack, {}, { sender: { email: 'rep@seller.test', type: 'google' } });
  const created = await t.client.api('POST', 'emails/', { to: { email: 'ttl@prospect.test', first_name: 'Tia' }, instructions: 'Introduce our product and ask for a call.' });
  expect(created.status).toBe(202);
  const table = process.env.OUTREACH_TABLE_NAME!;
  const lead = await get(table, outreachKeys.lead(t.accountId, 'ttl@prospect.test'));
  expect(lead!.expires_at).toBe(epoch(created.body.created_at) + RETENTION.lead.seconds);
  const drafting = await get(table, outreachKeys.email(t.accountId, created.body.id));
  expect(drafting!.expires_at).toBeUndefined();
  const pointer = await get(table, outreachKeys.trackPointer(drafting!.track_token as string));
  expect(pointer!.expires_at).toBe(epoch(created.body.created_at) + RETENTION.tracking_pointer.seconds);

  const cancelled = await t.client.api('POST', `emails/${created.body.id}/cancel/`);
  expect(cancelled.status).toBe(200);
  const stored = await get(table, outreachKeys.email(t.accountId, created.body.id));
  expect(stored!.expires_at).toBe(epoch(stored!.updated_at as string) + RETENTION.outreach_email.seconds);

  const charges = await documentClient().send(
    new QueryCommand({ TableName: process.env.ACCOUNTS_TABLE_NAME, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': `ACCOUNT#${t.accountId}` }, ConsistentRead: true }),
  );
  expect(charges.Items!.length).toBeGreaterThan(0);
  for (const item of charges.Items!) expect(item.expires_at).toBeUndefined();
});
