import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { LocalStack } from '../../shared/local/stack.js';
import { startTestStack } from '../support/local.js';
import { createAccount } from '../../shared/accounts/accounts.repository.js';
import { documentClient } from '../../shared/adapters/aws.js';
import { dnsMailExchangers } from '../../shared/adapters/mail-exchangers-dns.js';
import { localMailExchangers } from '../../shared/adapters/mail-exchangers-local.js';
import { tableName } from '../../shared/catalog/resource-names.js';
import { lookupsUsed, takeLookups } from '../../shared/email-status/lookup-budget.repository.js';
import { checkContacts } from '../../shared/sequences/check-contacts.js';
import { contactAddresses, judgeContacts } from '../../shared/sequences/eligibility.js';
import { contactFacts } from '../../shared/sequences/sequences.repository.js';

/**
 * Issue 42 item 3: the free contact checks (POST /api/app/v1/contact-checks/) and sequence eligibility take their
 * DNS lookups from one per-account daily budget, counted by registrable domain in the outreach table, and answer
 * within one deadline. Against DynamoDB Local; DNS is a fake resolver (never a real lookup in tests).
 */
let stack: LocalStack;
beforeAll(async () => {
  stack = await startTestStack({ gateway: false, workers: false });
}, 120_000);
afterAll(async () => stack?.stop());

const newAccount = () => createAccount({ name: 'lookups', credits: 0, public_api: true, agentic_search: false, pilot: false, auto_recharge: false }, { pilotLimit: 3 });
const contact = (email: string) => ({ email, first_name: 'Pat', company_name: 'Acme' });
const today = () => new Date().toISOString().slice(0, 10);
const fail = (code: string) => Object.assign(new Error(code), { code });

test('dead domains: the check answers within its 5 s deadline, their contacts unknown (eligible, marked lookup_deadline), the rest judged', async () => {
  const account = await newAccount();
  const dead = Array.from({ length: 120 }, (_, i) => `p${i}@dead${i}.example`);
  const live = Array.from({ length: 10 }, (_, i) => `q${i}@live${i}.example`);
  const mx = dnsMailExchangers({
    resolveMx: (d: string) => (d.startsWith('dead') ? new Promise(() => {}) : d === 'gone.example' ? Promise.reject(fail('ENOTFOUND')) : Promise.resolve([{ exchange: `mx.${d}`, priority: 10 }])),
    resolve4: async () => [],
    resolve6: async () => [],
  } as unknown as Parameters<typeof dnsMailExchangers>[0]);
  // 120 dead domains: more than the 50 asked at once can wait out at 3 s each within 5 s, so the request deadline cuts.
  const emails = [...live, 'r@gone.example', ...dead];
  // Warm: the address lists and the directory are loaded by a first check (no DNS) of the same contacts.
  await checkContacts(account.id, { contacts: emails.map(contact), steps: 1 }, undefined, { mx: localMailExchangers, limit: 10_000 });
  const t0 = Date.now();
  const check = await checkContacts(account.id, { contacts: emails.map(contact), steps: 1 }, undefined, { mx });
  const took = Date.now() - t0;
  // The lookups overlap the check's other reads: the whole check ends with the 5 s deadline, not after it.
  expect([took, took >= 4_900 && took < 5_600]).toEqual([took, true]);
  const byEmail = new Map(check.results.map((r) => [emails[r.index], r]));
  expect(live.map((e) => byEmail.get(e))).toEqual(live.map((_, i) => ({ index: i, reason: null })));
  expect(byEmail.get('r@gone.example')).toEqual({ index: 10, reason: 'invalid_contact' });
  expect(dead.every((e) => byEmail.get(e)?.reason === null && byEmail.get(e)?.unchecked === 'lookup_deadline')).toBe(true);
  expect(check.lookups).toMatchObject({ domains: 131, checked: 131, over_budget: 0, timed_out: 120, budget_per_day: 2_000 });
  expect(await lookupsUsed(account.id, today())).toBe(2 * 131);
}, 20_000);

test('the daily budget by registrable domain: past it a contact is unknown (not rejected for its domain), the answer says so, the counter never passes it', async () => {
  const account = await newAccount();
  const emails = ['a@a.b.example.co.uk', 'b@x.example.co.uk', 'c@one.test', 'd@two.test', 'e@nowhere.invalid', 'f@three.test'];
  const deps = { mx: localMailExchangers, limit: 3 };
  const first = await checkContacts(account.id, { contacts: emails.map(contact), steps: 1 }, undefined, deps);
  expect(first.results).toEqual([
    { index: 0, reason: null },
    { index: 1, reason: null },
    { index: 2, reason: null },
    { index: 3, reason: null },
    { index: 4, reason: null, unchecked: 'lookup_budget' },
    { index: 5, reason: null, unchecked: 'lookup_budget' },
  ]);
  expect(first.lookups).toEqual({ domains: 5, checked: 3, over_budget: 2, timed_out: 0, budget_per_day: 3 });
  expect(await lookupsUsed(account.id, today())).toBe(3);

  const again = await checkContacts(account.id, { contacts: [contact('e@nowhere.invalid')], steps: 1 }, undefined, deps);
  expect([again.results, again.lookups.over_budget, await lookupsUsed(account.id, today())]).toEqual([[{ index: 0, reason: null, unchecked: 'lookup_budget' }], 1, 3]);

  // Another account's budget is its own: the same domain is looked up and found to take no mail.
  const other = await newAccount();
  const fresh = await checkContacts(other.id, { contacts: [contact('e@nowhere.invalid')], steps: 1 }, undefined, deps);
  expect(fresh.results).toEqual([{ index: 0, reason: 'invalid_contact' }]);

  // The counter is one item of the account's partition, and expires two days after its UTC day began.
  const item = (await documentClient().send(new GetCommand({ TableName: tableName('outreach'), Key: { pk: `ACCOUNT#${account.id}`, sk: `LOOKUPS#${today()}` } }))).Item!;
  expect(item.expires_at).toBe(Date.parse(`${today()}T00:00:00Z`) / 1000 + 2 * 86_400);
});

test('concurrent requests never take more than the day holds between them', async () => {
  const account = await newAccount();
  const grants = await Promise.all(Array.from({ length: 8 }, () => takeLookups(account.id, '2026-11-23', 2, 9)));
  const total = grants.reduce((a, b) => a + b, 0);
  expect(await lookupsUsed(account.id, '2026-11-23')).toBe(total);
  expect(total).toBeLessThanOrEqual(9);
  expect(total).toBeGreaterThanOrEqual(8);
  expect(await takeLookups(account.id, '2026-11-23', 5, 9)).toBe(9 - total);
  expect(await takeLookups(account.id, '2026-11-23', 5, 9)).toBe(0);
});

test('sequence eligibility takes its lookups from the same budget', async () => {
  const account = await newAccount();
  const raw = ['s@one.test', 't@sub.one.test', 'u@nowhere.invalid'].map(contact);
  const known = await contactFacts(account.id, contactAddresses(raw));
  const judged = await judgeContacts(raw, known, { accountId: account.id, sequenceId: 'sq_x', enrolled: new Set(), now: new Date(), lookupDeps: { mx: localMailExchangers, limit: 1 } });
  expect([judged.eligible.map((c) => c.email), judged.rejected]).toEqual([['s@one.test', 't@sub.one.test', 'u@nowhere.invalid'], []]);
  expect(await lookupsUsed(account.id, today())).toBe(1);
  const check = await checkContacts(account.id, { contacts: raw, steps: 1 }, undefined, { mx: localMailExchangers, limit: 1 });
  expect(check.lookups).toMatchObject({ checked: 0, over_budget: 2 });
});

test('a check of 500 addresses at 500 new domains reads DynamoDB in batches: at most 30 calls (1,516 when each address was read alone), none a GetItem or Query per address', async () => {
  const account = await newAccount();
  const emails = Array.from({ length: 500 }, (_, i) => `pat${i}@batch${i}.${i % 5 === 0 ? 'example' : 'invalid'}`);
  const calls: string[] = [];
  documentClient().middlewareStack.add(
    (next, context) => async (args) => {
      calls.push(String(context.commandName));
      return next(args);
    },
    { step: 'initialize', name: 'checkCallCounter' },
  );
  try {
    const check = await checkContacts(account.id, { contacts: emails.map(contact), steps: 1 }, undefined, { mx: localMailExchangers, limit: 10_000 });
    expect(check.results.filter((r) => r.reason === 'invalid_contact')).toHaveLength(400);
  } finally {
    documentClient().middlewareStack.remove('checkCallCounter');
  }
  const byCommand: Record<string, number> = {};
  for (const c of calls) byCommand[c] = (byCommand[c] ?? 0) + 1;
  expect({ byCommand, total: calls.length, within: calls.length <= 30 && !byCommand.GetItemCommand && !byCommand.QueryCommand }).toEqual({ byCommand, total: calls.length, within: true });
}, 60_000);
