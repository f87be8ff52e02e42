import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { LocalStack } from '../../shared/local/stack.js';
import { newTenant, startTestStack } from '../support/local.js';
import { documentClient } from '../../shared/adapters/aws.js';
import { tableName } from '../../shared/catalog/resource-names.js';
import { dynamoItemSize } from '../support/dynamo-item-size.js';
import { MAX_ENROLLMENTS } from '../../shared/sequences/model.js';
import { CreateSequenceSchema } from '../../shared/sequences/schemas.js';
import { createSequence } from '../../shared/sequences/create-sequence.js';

/**
 * A sequence item stays under DynamoDB's 400 KB at the maxima (issue 42 item 5): a pass of 100 contacts with
 * every field at its longest (3-byte characters where characters are counted) keeps its pending contacts in
 * items of their own, and even 500 enrollments of the longest addresses leave the sequence item far below.
 */
let stack: LocalStack;
const ITEM_LIMIT = 400 * 1024;
type Write = { key: string; item: Record<string, unknown> };
let writes: Write[] = [];

beforeAll(async () => {
  stack = await startTestStack({ throttleMultiplier: 1000, workers: false });
  documentClient().middlewareStack.add(
    (next) => async (args) => {
      const input = args.input as { TransactItems?: { Put?: { Item: Record<string, unknown> } }[]; RequestItems?: Record<string, { PutRequest?: { Item: Record<string, unknown> } }[]>; Item?: Record<string, unknown> };
      const puts = [
        ...(input.TransactItems ?? []).flatMap((t) => (t.Put ? [t.Put.Item] : [])),
        ...Object.values(input.RequestItems ?? {}).flatMap((r) => (Array.isArray(r) ? r.flatMap((x) => (x.PutRequest ? [x.PutRequest.Item] : [])) : [])),
        ...(input.Item ? [input.Item] : []),
      ];
      for (const item of puts) writes.push({ key: String(item.sk ?? ''), item });
      return next(args);
    },
    { step: 'initialize', name: 'sequence-item-size' },
  );
}, 120_000);
afterAll(async () => {
  documentClient().middlewareStack.remove('sequence-item-size');
  await stack?.stop();
});

const wide = (n: number) => '数'.repeat(n);
// The longest address a valid contact has (254 characters, RFC 5321's path limit): a 64-character local part.
const longest = (i: number) => `${String(i).padStart(3, '0')}${'l'.repeat(61)}@${'a'.repeat(61)}.${'b'.repeat(61)}.${'c'.repeat(60)}.test`;
const contact = (i: number) => ({
  email: longest(i),
  first_name: wide(100),
  last_name: wide(100),
  company_name: wide(200),
  professional_url: `https://www.linkedin.com/in/jane-doe-${i}?${'q'.repeat(2048)}`.slice(0, 2048),
  context: wide(1000),
});

test('a pass of 100 maximal contacts: every sequence item written stays under 400 KB, its contacts wait in their own items', async () => {
  const t = await newTenant(stack, { credits: 10_000 }, { sender: { email: 'rep.size@seller.test', type: 'google' } });
  writes = [];
  // The use case itself (a create of 100 such contacts outlasts the twin's function timeout on two shared cores).
  const body = CreateSequenceSchema.parse({ contacts: Array.from({ length: 100 }, (_, i) => contact(i)), steps: 4, instructions: wide(2000), name: wide(200), cc: [longest(900), longest(901), longest(902)], bcc: [longest(903), longest(904), longest(905)] });
  const created = await createSequence(t.accountId, body);
  expect([created.contacts_accepted, created.contacts_rejected]).toEqual([100, []]);
  const r = { body: created };

  const sequenceWrites = writes.filter((w) => w.key.startsWith('SEQ#'));
  expect(sequenceWrites.length).toBeGreaterThan(0);
  const largest = Math.max(...sequenceWrites.map((w) => dynamoItemSize(w.item)));
  expect(largest).toBeLessThan(ITEM_LIMIT);
  // No write of any item of the pass comes near the limit either (a pending contact's own item is a few KB).
  for (const w of writes) expect([w.key, dynamoItemSize(w.item) < ITEM_LIMIT]).toEqual([w.key, true]);

  // At MAX_ENROLLMENTS of the longest addresses, the stored item (as read back) is still far below.
  const stored = (await documentClient().send(new GetCommand({ TableName: tableName('outreach'), Key: { pk: `ACCOUNT#${t.accountId}`, sk: `SEQ#${r.body.id}` } }))).Item!;
  const full = { ...stored, ...sequenceWrites[0]!.item, contacts: Array.from({ length: MAX_ENROLLMENTS }, (_, i) => longest(i)) };
  expect(dynamoItemSize(full)).toBeLessThan(ITEM_LIMIT / 2);
});
