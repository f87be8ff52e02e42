import type { LocalStack } from '../../shared/local/stack.js';
import { startTestStack } from '../support/local.js';
import { createAccount } from '../../shared/accounts/accounts.repository.js';
import { documentClient } from '../../shared/adapters/aws.js';
import { tableName } from '../../shared/catalog/resource-names.js';
import { leadSentWrite, leadUpsertWrite, suppress } from '../../shared/outreach/leads.repository.js';
import { checkContacts } from '../../shared/sequences/check-contacts.js';
import { contactFacts, newEnrollmentWrite, takeLocksWrites, writeTogether } from '../../shared/sequences/sequences.repository.js';
import { newId } from '../../shared/core/ids.js';

/**
 * Sequence eligibility reads what the outreach table knows of the contacts gathered (contactFacts): leads and
 * suppressions by key in BatchGetItem requests of at most 100 keys, the enrollment locks of their buckets in one,
 * and one Query of the enrollments of each address whose lock is held, at most 10 in flight; never a GetItem
 * per contact. Every DynamoDB call the code sends is recorded here.
 */
let stack: LocalStack;
interface Sent {
  command: string;
  input: Record<string, any>;
}
let sent: Sent[] = [];
let inFlight = 0;
let mostInFlight = 0;

beforeAll(async () => {
  stack = await startTestStack({ gateway: false, workers: false });
  documentClient().middlewareStack.add(
    (next, context) => async (args) => {
      sent.push({ command: String(context.commandName), input: args.input as Record<string, any> });
      inFlight++;
      mostInFlight = Math.max(mostInFlight, inFlight);
      try {
        return await next(args);
      } finally {
        inFlight--;
      }
    },
    { step: 'initialize', name: 'contactFactsRecorder' },
  );
}, 120_000);
afterAll(async () => {
  documentClient().middlewareStack.remove('contactFactsRecorder');
  await stack?.stop();
});

const outreach = () => tableName('outreach');
const toOutreach = (command: string) => sent.filter((s) => s.command === command && (s.input.TableName === outreach() || s.input.RequestItems?.[outreach()]));
/** A BatchGetItem of enrollment lock buckets (lockHolders), not of leads and suppressions. */
const lockRead = (b: Sent) => b.input.RequestItems[outreach()].Keys.every((k: { sk: string }) => k.sk.startsWith('AUTOMATION#'));
const record = () => {
  sent = [];
  mostInFlight = 0;
};

async function seeded(n: number) {
  const account = await createAccount({ name: 'facts', credits: 0, public_api: true, agentic_search: false, pilot: false, auto_recharge: false }, { pilotLimit: 3 });
  const addresses = Array.from({ length: n }, (_, i) => `Person${i}@Prospect.test`);
  const now = new Date();
  // Every 3rd address is a lead in Paris, every 4th was sent to yesterday, every 5th unsubscribed, every 6th
  // is enrolled (active) in another sequence, which holds its enrollment lock (as the pass's reservation takes it).
  // Every 10th other one was enrolled in a sequence that ended (completed: its lock let go).
  for (const [i, email] of addresses.entries()) {
    const writes = [];
    if (i % 3 === 0) writes.push(leadUpsertWrite(account.id, { email, first_name: 'Ada' }, now.toISOString(), 'Europe/Paris'));
    if (i % 4 === 0) writes.push(leadSentWrite(account.id, email, new Date(now.getTime() - 86_400_000)));
    if (i % 6 === 0) {
      const at = now.toISOString();
      const sequenceId = newId('sq', now.getTime());
      writes.push(newEnrollmentWrite({ sequence_id: sequenceId, account_id: account.id, contact: { email, first_name: 'Ada' }, status: 'active', email_ids: [], pass_id: 'en_x', created_at: at, updated_at: at }));
      writes.push(...takeLocksWrites(account.id, sequenceId, [email]));
    } else if (i % 10 === 1) {
      const at = now.toISOString();
      writes.push(newEnrollmentWrite({ sequence_id: newId('sq', now.getTime()), account_id: account.id, contact: { email, first_name: 'Ada' }, status: 'completed', email_ids: [], pass_id: 'en_x', created_at: at, updated_at: at }));
    }
    for (const w of writes) await writeTogether([w]);
    if (i % 5 === 0) await suppress(account.id, email, 'unsubscribed', now.toISOString());
  }
  return { account, addresses };
}

test('contactFacts: 120 addresses are 3 BatchGetItem requests of at most 100 keys, one of their lock buckets and a query of each of the 20 held addresses, 10 at once, and each fact lands on its address', async () => {
  const { account, addresses } = await seeded(120);
  record();
  const facts = await contactFacts(account.id, addresses);

  const batches = toOutreach('BatchGetItemCommand');
  expect(batches.filter((b) => !lockRead(b)).map((b) => b.input.RequestItems[outreach()].Keys.length)).toEqual([100, 100, 40]);
  // The lock buckets of 120 addresses: one request of each bucket once (64 at most).
  const buckets = batches.filter(lockRead).map((b) => b.input.RequestItems[outreach()].Keys.map((k: { sk: string }) => k.sk) as string[]);
  expect(buckets.map((keys) => ({ distinct: new Set(keys).size === keys.length, within64: keys.length <= 64 }))).toEqual([{ distinct: true, within64: true }]);
  expect(batches.every((b) => b.input.RequestItems[outreach()].ConsistentRead === true)).toBe(true);
  expect(toOutreach('QueryCommand')).toHaveLength(20);
  expect(toOutreach('GetItemCommand')).toHaveLength(0);
  expect(mostInFlight).toBeLessThanOrEqual(11);

  expect([...facts.keys()]).toEqual(addresses.map((a) => a.toLowerCase()));
  addresses.forEach((a, i) => {
    const f = facts.get(a.toLowerCase())!;
    expect({ i, suppressed: f.suppressed, timezone: f.lead?.timezone ?? null, sent: Boolean(f.lead?.last_sent_at), enrollments: f.enrollments.length }).toEqual({
      i,
      suppressed: i % 5 === 0,
      timezone: i % 3 === 0 ? 'Europe/Paris' : null,
      sent: i % 4 === 0,
      enrollments: i % 6 === 0 ? 1 : 0,
    });
  });
}, 120_000);

test('judging 25 contacts (check-contacts) reads the outreach table in one gathered BatchGetItem, one of the lock buckets and a Query per held address, with the verdicts the rules give', async () => {
  const { account, addresses } = await seeded(25);
  const contacts = addresses.map((email) => ({ email, first_name: 'Ada', company_name: 'Acme' }));
  record();
  const check = await checkContacts(account.id, { contacts, steps: 2 });

  expect(toOutreach('BatchGetItemCommand')).toHaveLength(2);
  expect(toOutreach('QueryCommand')).toHaveLength(5);
  expect(toOutreach('GetItemCommand')).toHaveLength(0);
  const expected = addresses.map((_, i) => (i % 5 === 0 ? 'invalid_contact' : i % 6 === 0 ? 'already_in_automation' : i % 4 === 0 ? 'recently_contacted' : null));
  expect(check.results.map((r) => r.reason)).toEqual(expected);
  expect(check.eligible).toBe(expected.filter((r) => r === null).length);
}, 120_000);

test('keys a BatchGetItem leaves unprocessed (a partial answer, as DynamoDB may give past 16 MB or under throttling) are asked again, and nothing is lost', async () => {
  const { account, addresses } = await seeded(30);
  let cut = false;
  documentClient().middlewareStack.add(
    (next, context) => async (args: any) => {
      const request = args.input.RequestItems?.[outreach()];
      if (context.commandName !== 'BatchGetItemCommand' || cut || !request) return next(args);
      cut = true;
      const left = request.Keys.slice(25);
      const out: any = await next({ ...args, input: { ...args.input, RequestItems: { [outreach()]: { ...request, Keys: request.Keys.slice(0, 25) } } } });
      out.output.UnprocessedKeys = { [outreach()]: { ...request, Keys: left } };
      return out;
    },
    { step: 'initialize', name: 'partialBatchGet' },
  );
  try {
    record();
    const facts = await contactFacts(account.id, addresses);
    expect(toOutreach('BatchGetItemCommand').filter((b) => !lockRead(b)).map((b) => b.input.RequestItems[outreach()].Keys.length)).toEqual([60, 35]);
    expect(addresses.map((a) => facts.get(a.toLowerCase())!.suppressed)).toEqual(addresses.map((_, i) => i % 5 === 0));
    expect(addresses.map((a) => facts.get(a.toLowerCase())!.lead?.timezone ?? null)).toEqual(addresses.map((_, i) => (i % 3 === 0 ? 'Europe/Paris' : null)));
  } finally {
    documentClient().middlewareStack.remove('partialBatchGet');
  }
}, 120_000);
