import { PutCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { documentClient } from '../../shared/adapters/aws.js';
import { sqsClient } from '../../shared/adapters/sqs-client.js';
import { functionNamed } from '../../shared/catalog/functions.js';
import { runAsFunction } from '../../shared/local/function-context.js';
import type { LocalStack } from '../../shared/local/stack.js';
import { newTenant, startTestStack } from '../support/local.js';

// The search route with the jobs table read-only: the reservation's transaction writes the job there, so
// accepting a search fails as it would in AWS, as one transaction (nothing reserved).
const STRIPPED = 'POST /api/public/v1/search/';
const catalogue = functionNamed(STRIPPED).bindings;
const withoutJobWrites = { ...catalogue, tables: { ...catalogue.tables, jobs: 'read' as const } };

let stack: LocalStack;
beforeAll(async () => {
  stack = await startTestStack({ workers: false, grants: { [STRIPPED]: withoutJobWrites } });
});
afterAll(() => stack?.stop());

const query = { query: 'VP of Sales at fintech companies in London', max_results: 25, webhook_url: 'http://127.0.0.1:9/hook' };

test('a route stripped of one grant fails where AWS would refuse it, charging nothing; its twin with the grant accepts', async () => {
  const t = await newTenant(stack, {}, { webhookSecret: true });
  const stripped = await t.client.api('POST', 'search/', query);
  expect(stripped.status).toBe(500);
  expect(stripped.body.error.code).toBe('internal_error');
  expect((await t.admin.console('GET', `accounts/${t.accountId}/`)).body.balance).toBe(1250);
  // Deep search has the catalogue's grants (tables and the search queue): accepted.
  const granted = await t.client.api('POST', 'deep-search/', { query: query.query, webhook_url: query.webhook_url });
  expect(granted.status).toBe(202);
});

test('a call outside the function grants is refused with the AccessDeniedException IAM answers, naming the action and the resource', async () => {
  const outreach = process.env.OUTREACH_TABLE_NAME!;
  // GET /emails/ reads the outreach table; a write there is not granted.
  const write = runAsFunction('GET /api/public/v1/emails/', () => documentClient().send(new PutCommand({ TableName: outreach, Item: { pk: 'X#1', sk: 'X#1' } })));
  await expect(write).rejects.toMatchObject({
    name: 'AccessDeniedException',
    $fault: 'client',
    $metadata: { httpStatusCode: 400 },
    message: expect.stringMatching(/^User: arn:aws:sts::000000000000:assumed-role\/local-GET-api-public-v1-emails\/.* is not authorized to perform: dynamodb:PutItem on resource: arn:aws:dynamodb:us-east-1:000000000000:table\/local-outreach because no identity-based policy allows the dynamodb:PutItem action$/),
  });
  // Its read is granted (nothing there: no item, no error).
  await expect(runAsFunction('GET /api/public/v1/emails/', () => documentClient().send(new GetCommand({ TableName: outreach, Key: { pk: 'X#1', sk: 'X#1' } })))).resolves.toMatchObject({ $metadata: { httpStatusCode: 200 } });
  // The same write outside any function (the test itself) is the stack's own: not restricted.
  await expect(documentClient().send(new GetCommand({ TableName: outreach, Key: { pk: 'X#1', sk: 'X#1' } }))).resolves.toBeDefined();
  // A queue the function is not bound to.
  const send = runAsFunction('webhooks-worker', () => sqsClient().send(new SendMessageCommand({ QueueUrl: stack.queueUrls.sending!, MessageBody: '{}' })));
  await expect(send).rejects.toMatchObject({ name: 'AccessDeniedException', message: expect.stringContaining('sqs:SendMessage on resource: arn:aws:sqs:us-east-1:000000000000:local-sending') });
});

test('an invocation sees only the resource variables its bindings set, as its Lambda environment would', () => {
  expect(process.env.JOBS_TABLE_NAME).toBeDefined();
  const seen = runAsFunction('GET /api/public/v1/emails/', () => ({
    outreach: process.env.OUTREACH_TABLE_NAME,
    jobs: process.env.JOBS_TABLE_NAME,
    group: process.env.SCHEDULER_GROUP_NAME,
    secret: process.env.SECRET_BOX_KEY,
    listed: Object.keys(process.env).includes('JOBS_TABLE_NAME'),
    region: process.env.AWS_REGION,
  }));
  expect(seen).toEqual({ outreach: 'local-outreach', jobs: undefined, group: undefined, secret: undefined, listed: false, region: 'us-east-1' });
  const sender = runAsFunction('sending-worker', () => [process.env.SCHEDULER_GROUP_NAME, process.env.SECRET_BOX_KEY !== undefined, process.env.SENDING_QUEUE_URL !== undefined, process.env.SEARCH_QUEUE_URL]);
  expect(sender).toEqual(['local-timers', true, true, undefined]);
});
