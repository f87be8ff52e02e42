import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { LocalStack } from '../../shared/local/stack.js';
import { lambdaContext } from '../../shared/local/event-source-runner.js';
import { documentClient } from '../../shared/adapters/aws.js';
import { tableName } from '../../shared/catalog/resource-names.js';
import type { TransactItem } from '../../shared/accounts/ledger.repository.js';
import { USER_POOL } from '../../shared/catalog/user-pool.js';
import { newId } from '../../shared/core/ids.js';
import { newEmailWrites, undraftedEmailFields } from '../../shared/outreach/emails.repository.js';
import type { EmailRecord, EmailStatus } from '../../shared/outreach/model.js';
import { plainToHtml } from '../../shared/outreach/plain-html.js';
import type { EnrollmentRecord, EnrollmentStatus, SequenceRecord } from '../../shared/sequences/model.js';
import { enrollmentsAt, newEnrollmentWrite, newSequenceWrite } from '../../shared/sequences/sequences.repository.js';
import { encodeEnrollmentCursor } from '../../shared/sequences/enrollment-cursor.js';
import { listCursorKey } from '../../shared/outreach/cursor-key.repository.js';
import { handler as appGetSequence } from '../../functions/app/get-sequence.js';
import { handler as appListEmails } from '../../functions/app/list-emails.js';
import { handler as appListSequences } from '../../functions/app/list-sequences.js';
import { Client, newTenant, startTestStack } from '../support/local.js';
import { assertResponseMatchesContract } from '../support/contract.js';

/**
 * Every answer that carries sequences or emails stays within Lambda's synchronous response payload (6 MB) at
 * the contract's maxima: a sequence of 500 enrollments × 4 steps whose every field is as long as create and
 * edit allow (2,000-character instructions, 300-character subjects, 50,000-character bodies and their HTML),
 * 200 sequences and 200 API-created emails (of another account) of the same sizes. Seeded through the repositories' own writes, then
 * read through the real handlers: over HTTP as a client (the body's bytes) and invoked as Lambda would invoke
 * them (the whole proxy result, body escaped inside it, which is what the 6 MB applies to).
 */
const LAMBDA_RESPONSE_LIMIT = 6 * 1024 * 1024;
const CONTACTS = 500;
const STEPS = 4;
const LONG = 900_000;

const fill = (unit: string, length: number) => unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
// Quotes, ampersands, angle brackets and non-ASCII: each grows when escaped for JSON or HTML.
const INSTRUCTIONS = fill('Introduce our "warehouse" platform & ask <politely> for a café chat. ', 2000);
const NAME = fill('Q4 robotics — "north" & <south> ', 200);
const SUBJECT = fill('A "quick" idea & <question> for Acme — ', 300);
const BODY = fill('Hello "Jane" — our <platform> moves pallets & boxes at the café.\n\n', 50_000);
const BODY_HTML = plainToHtml(BODY);

/**
 * Emails read whole (asked for by a BatchGetItem of the outreach table without a projection, by an `EMAIL#` key:
 * the table holds the enrollments too) while counting,
 * each once however often it is asked for again (DynamoDB Local returns a batch of long items in parts, and
 * the unprocessed keys are asked for again); null: not counting.
 */
let wholeEmailReads: Set<string> | null = null;

let stack: LocalStack;
let t: Awaited<ReturnType<typeof newTenant>>;
/** The API-created emails' account: GET /emails/ reads every email of the account, the sequence's steps too. */
let u: Awaited<ReturnType<typeof newTenant>>;
let sender: { id: string; email: string };
let sequence: SequenceRecord;
const addresses: string[] = [];

beforeAll(async () => {
  stack = await startTestStack({ workers: false, throttleMultiplier: 1000 });
  t = await newTenant(stack);
  u = await newTenant(stack);
  sender = (await new Client(stack).console('POST', `accounts/${t.accountId}/sending-accounts/`, { email: 'rep@seller.test', type: 'google' })).body;
  await seed();
  documentClient().middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as { RequestItems?: Record<string, { Keys?: unknown[]; ProjectionExpression?: string }> };
      const read = input.RequestItems?.[tableName('outreach')];
      if (wholeEmailReads !== null && context.commandName?.startsWith('BatchGet') && read && !read.ProjectionExpression) for (const key of read.Keys ?? []) if (JSON.stringify(key).includes('EMAIL#')) wholeEmailReads.add(JSON.stringify(key));
      return next(args);
    },
    { step: 'initialize', name: 'wholeEmailReads' },
  );
}, LONG);
afterAll(async () => {
  await stack?.stop();
});

/** BatchWriteItem, 25 items a call, a few calls in flight at once (DynamoDB Local takes them in parallel). */
async function putAll(writes: TransactItem[]): Promise<void> {
  const items = writes.map((w) => (w as { Put: { TableName: string; Item: Record<string, unknown> } }).Put);
  const batches: (typeof items)[] = [];
  for (let i = 0; i < items.length; i += 25) batches.push(items.slice(i, i + 25));
  const writeBatches = async () => {
    for (let batch = batches.shift(); batch; batch = batches.shift()) {
      let request: Record<string, { PutRequest: { Item: Record<string, unknown> } }[]> | undefined = {};
      for (const p of batch) (request[p.TableName] ??= []).push({ PutRequest: { Item: p.Item } });
      while (request && Object.keys(request).length) {
        const out = await documentClient().send(new BatchWriteCommand({ RequestItems: request }));
        request = out.UnprocessedItems as typeof request;
      }
    }
  };
  await Promise.all(Array.from({ length: 4 }, writeBatches));
}

function email(id: string, status: EmailStatus, address: string, extra: Partial<EmailRecord>, accountId = t.accountId): EmailRecord {
  const now = new Date().toISOString();
  const contact = { email: address, first_name: fill('Jane', 100), last_name: fill('Doe', 100), company_name: fill('Acme Robotics', 200) };
  return {
    ...undraftedEmailFields(now),
    id,
    account_id: accountId,
    status,
    contact,
    to: { email: address, name: `${contact.first_name} ${contact.last_name}` },
    from_account: sender.id,
    from_email: sender.email,
    reply_to: null,
    cc: [],
    bcc: [],
    review: 'required',
    subject: SUBJECT,
    body_plain: BODY,
    body_html: BODY_HTML,
    instructions: INSTRUCTIONS,
    drafted_at: now,
    charge_id: newId('chg'),
    timezone: 'UTC',
    ...(status === 'sent' ? { sent_at: now, message_id: `<${id}@seller.test>`, open_count: 3, opened_at: now } : {}),
    ...(status === 'failed' ? { error: { code: 'send_failed', message: fill('The provider refused the message. ', 500) } } : {}),
    ...extra,
  };
}

/**
 * The sequence after an add-contacts pass on an active one: 480 enrollments completed (every step sent), 10
 * failed (every step failed: `failed` is 40), 10 new ones drafted and waiting for approval. Approve then
 * activates those 10 and cancel ends them, as they would in service, well within a function's time.
 */
async function seed(): Promise<void> {
  const now = new Date();
  const iso = now.toISOString();
  const id = newId('sq', now.getTime());
  const writes: TransactItem[] = [];
  for (let i = 0; i < CONTACTS; i++) {
    const address = `${fill('prospect.contact.', 48)}.${String(i).padStart(3, '0')}@long-prospect-domain-${i % 7}.test`;
    addresses.push(address);
    const [enrollment, step]: [EnrollmentStatus, EmailStatus] = i < 480 ? ['completed', 'sent'] : i < 490 ? ['failed', 'failed'] : ['pending_review', 'pending_review'];
    const ids = Array.from({ length: STEPS }, () => newId('em', now.getTime()));
    for (const [n, emailId] of ids.entries()) writes.push(...newEmailWrites(email(emailId, step, address, { step: n, sequence_id: id, step_ids: ids, subject: n === 0 ? SUBJECT : `Re: ${SUBJECT}` }), now));
    const e: EnrollmentRecord = { sequence_id: id, account_id: t.accountId, contact: email(ids[0]!, step, address, {}).contact, status: enrollment, email_ids: ids, pass_id: 'pass', created_at: iso, updated_at: iso };
    writes.push(newEnrollmentWrite(e));
  }
  sequence = { id, account_id: t.accountId, name: NAME, status: 'active', created_at: iso, updated_at: iso, instructions: INSTRUCTIONS, steps: STEPS, reply_to: null, cc: [], bcc: [], contacts: addresses.map((a) => a.toLowerCase()), total_emails: CONTACTS * STEPS, drafted: CONTACTS * STEPS };
  writes.push(newSequenceWrite(sequence, new Date(now.getTime() + 3600_000)));
  // 199 more sequences (the list's largest page holds 200) and 200 API-created emails (likewise).
  for (let i = 0; i < 199; i++) writes.push(newSequenceWrite({ ...sequence, id: newId('sq', now.getTime() - 1000 - i), status: 'completed', contacts: [] }, new Date(now.getTime() + 3600_000)));
  for (let i = 0; i < 200; i++) writes.push(...newEmailWrites(email(newId('em', now.getTime()), 'pending_review', `api.${i}.${fill('recipient', 40)}@prospect.test`, { api_created: true }, u.accountId), now));
  await putAll(writes);
}

const bytes = (body: unknown) => Buffer.byteLength(typeof body === 'string' ? body : JSON.stringify(body));

/** A web-app route invoked as Lambda invokes it: the size of the whole proxy result (what Lambda returns). */
async function invokeApp(handler: (e: APIGatewayProxyEvent, c: ReturnType<typeof lambdaContext>) => Promise<APIGatewayProxyResult>, resource: string, pathParameters: Record<string, string> | null, query: Record<string, string>, accountId = t.accountId) {
  const event = {
    resource,
    path: resource,
    httpMethod: 'GET',
    headers: {},
    queryStringParameters: query,
    pathParameters,
    body: null,
    isBase64Encoded: false,
    requestContext: { requestId: crypto.randomUUID(), authorizer: { claims: { [USER_POOL.accountClaim]: accountId, sub: 'user-1' } } },
  } as unknown as APIGatewayProxyEvent;
  const result = await handler(event, lambdaContext('size-test', Date.now() + 300_000));
  return { status: result.statusCode, payload: bytes(result), body: JSON.parse(result.body) };
}

const get = (path: string, who = t) => who.client.api('GET', path);
/** One GET as a client receives it: the body's bytes, the parsed body, checked against the published contract as `Client` checks. */
const raw = async (path: string, who = t) => {
  const url = `${stack.baseUrl}${path}`;
  const res = await fetch(url, { headers: { 'x-api-key': who.apiKey } });
  const text = await res.text();
  const body = JSON.parse(text);
  assertResponseMatchesContract('GET', new URL(url).pathname, res.status, res.headers.get('content-type'), body);
  return { status: res.status, size: Buffer.byteLength(text), body };
};

test('GET /sequences/{id}/ at page_size 200: every page within 6 MB (body and Lambda payload), all 500 enrollments exactly once, in enrollment order, every step whole', async () => {
  const seen: string[] = [];
  let cursor: string | null = null;
  let total = 0;
  let pages = 0;
  do {
    const query: string = `page_size=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    // The body's bytes and its content from the same answer: each page is read once over HTTP.
    const r = await raw(`sequences/${sequence.id}/?${query}`);
    expect(r.status).toBe(200);
    const size = r.size;
    expect(size).toBeLessThan(LAMBDA_RESPONSE_LIMIT);
    wholeEmailReads = new Set();
    const lambda = await invokeApp(appGetSequence, '/api/app/v1/sequences/{sequence_id}/', { sequence_id: sequence.id }, { page_size: '200', ...(cursor ? { cursor } : {}) });
    const emailsRead = wholeEmailReads.size;
    wholeEmailReads = null;
    expect(lambda.status).toBe(200);
    // A page reads its enrollments' emails whole and at most one enrollment's more (to find the page's end),
    // not a fixed chunk of 25 enrollments of which it can carry a dozen.
    expect(emailsRead).toBeLessThanOrEqual((lambda.body.enrollments.length + 1) * STEPS);
    expect(lambda.payload).toBeLessThan(LAMBDA_RESPONSE_LIMIT);
    expect(lambda.body.enrollments.map((e: any) => e.contact.email)).toEqual(r.body.enrollments.map((e: any) => e.contact.email));
    expect(r.body).toMatchObject({ id: sequence.id, name: NAME, instructions: INSTRUCTIONS, total_emails: 2000, drafted: 2000, failed: 40 });
    expect(r.body.enrollments.length).toBeGreaterThan(0);
    for (const e of r.body.enrollments) {
      expect(e.emails.map((m: any) => [m.step, m.body_plain === BODY, m.body_html === BODY_HTML])).toEqual([0, 1, 2, 3].map((n) => [n, true, true]));
      seen.push(e.contact.email);
    }
    total += size;
    pages++;
    cursor = r.body.next_cursor;
  } while (cursor !== null && pages < CONTACTS);
  expect(seen).toEqual(addresses);
  expect(new Set(seen).size).toBe(CONTACTS);
  // Together the pages are far past what one answer could carry: the paging is what keeps each within it.
  expect(total).toBeGreaterThan(LAMBDA_RESPONSE_LIMIT * 10);
  expect(pages).toBeGreaterThan(CONTACTS / 200);
}, LONG);

test('the lists at page_size 200 stay within 6 MB and carry no email bodies: GET /sequences/, GET /emails/ and the web app\'s', async () => {
  const sequences = await raw('sequences/?page_size=200');
  expect([sequences.status, sequences.body.count, sequences.body.results.length]).toEqual([200, 200, 200]);
  expect(sequences.size).toBeLessThan(LAMBDA_RESPONSE_LIMIT);
  expect(sequences.body.results.every((s: any) => s.instructions === INSTRUCTIONS && !('enrollments' in s))).toBe(true);

  const emails = await raw('emails/?page_size=200', u);
  expect([emails.status, emails.body.count, emails.body.results.length]).toEqual([200, 200, 200]);
  expect(emails.size).toBeLessThan(LAMBDA_RESPONSE_LIMIT);
  expect(emails.body.results.filter((e: any) => 'body_plain' in e || 'body_html' in e)).toEqual([]);
  expect(emails.body.results.every((e: any) => e.subject === SUBJECT && e.instructions === INSTRUCTIONS)).toBe(true);
  // The single email still has both bodies.
  const one = await get(`emails/${emails.body.results[0].id}/`, u);
  expect([one.body.body_plain, one.body.body_html]).toEqual([BODY, BODY_HTML]);

  for (const [handler, resource, accountId] of [
    [appListSequences, '/api/app/v1/sequences/', t.accountId],
    [appListEmails, '/api/app/v1/emails/', u.accountId],
  ] as const) {
    const r = await invokeApp(handler, resource, null, { page_size: '200' }, accountId);
    expect([r.status, r.body.results.length]).toEqual([200, 200]);
    expect(r.payload).toBeLessThan(LAMBDA_RESPONSE_LIMIT);
  }
}, LONG);

test('approve and cancel answer the first page (default page size) within 6 MB; the rest follows from next_cursor', async () => {
  const approved = await t.client.api('POST', `sequences/${sequence.id}/approve/`);
  expect([approved.status, approved.body.status, approved.body.failed]).toEqual([200, 'active', 40]);
  expect(bytes(approved.body)).toBeLessThan(LAMBDA_RESPONSE_LIMIT);
  expect(approved.body.enrollments.length).toBeLessThanOrEqual(50);
  expect(approved.body.enrollments.map((e: any) => e.contact.email)).toEqual(addresses.slice(0, approved.body.enrollments.length));
  expect(approved.body.next_cursor).toEqual(expect.any(String));
  const last = await get(`sequences/${sequence.id}/?page_size=10&cursor=${encodeURIComponent(approved.body.next_cursor)}`);
  expect(last.body.enrollments[0].contact.email).toBe(addresses[approved.body.enrollments.length]);

  const cancelled = await t.client.api('POST', `sequences/${sequence.id}/cancel/`);
  expect([cancelled.status, cancelled.body.status]).toEqual([200, 'cancelled']);
  expect(bytes(cancelled.body)).toBeLessThan(LAMBDA_RESPONSE_LIMIT);
  expect(cancelled.body.enrollments.length).toBeLessThanOrEqual(50);
  // Through the API: the first page (completed ones) and the last 20 from a cursor to the end (the failed and
  // the cancelled ones); the first test walks every page of the API already, so the rest is read as stored
  // rather than as another 40 pages of 6 MB.
  expect(cancelled.body.enrollments.map((e: any) => e.status)).toEqual(Array(cancelled.body.enrollments.length).fill('completed'));
  const tail: [string, string][] = [];
  for (let cursor: string | null = encodeEnrollmentCursor(await listCursorKey(), sequence, sequence.contacts[479]!); cursor; ) {
    const page = await get(`sequences/${sequence.id}/?page_size=20&cursor=${encodeURIComponent(cursor)}`);
    expect(page.status).toBe(200);
    tail.push(...page.body.enrollments.map((e: any) => [e.contact.email, e.status] as [string, string]));
    cursor = page.body.next_cursor;
  }
  expect(tail).toEqual(addresses.slice(480).map((a, i) => [a, i < 10 ? 'failed' : 'cancelled']));
  const stored = await enrollmentsAt(sequence, sequence.contacts);
  const statuses = sequence.contacts.map((a) => stored.get(a)?.status);
  expect(statuses).toEqual([...Array(480).fill('completed'), ...Array(10).fill('failed'), ...Array(10).fill('cancelled')]);
}, LONG);
