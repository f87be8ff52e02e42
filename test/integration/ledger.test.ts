import fc from 'fast-check';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { LocalStack } from '../../shared/local/stack.js';
import { startTestStack } from '../support/local.js';
import { createAccount, getAccount, listCharges } from '../../shared/accounts/accounts.repository.js';
import { release, reserve, settleCharged, settleZeroResult, chargeNow, getCharge } from '../../shared/accounts/ledger.repository.js';
import { ContentionError, InsufficientCreditsError } from '../../shared/core/errors.js';
import { documentClient } from '../../shared/adapters/aws.js';

let stack: LocalStack;
beforeAll(async () => {
  stack = await startTestStack({ gateway: false, workers: false });
});
afterAll(async () => {
  await stack?.stop();
});

const newAccount = (credits: number, auto_recharge = false) =>
  createAccount({ name: 'ledger', credits, public_api: true, agentic_search: false, pilot: false, auto_recharge }, { pilotLimit: 3 });

async function purchases(accountId: string): Promise<number> {
  const out = await documentClient().send(
    new QueryCommand({
      TableName: process.env.ACCOUNTS_TABLE_NAME,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
      ExpressionAttributeValues: { ':pk': `ACCOUNT#${accountId}`, ':p': 'LEDGER#' },
      ConsistentRead: true,
    }),
  );
  return (out.Items ?? []).filter((i) => i.type === 'purchase').reduce((s, i) => s + (i.amount as number), 0);
}

describe('credit ledger against DynamoDB Local', () => {
  test('reserve → charged keeps the charge and returns the rest', async () => {
    const a = await newAccount(100);
    const r = await reserve({ accountId: a.id, operation: 'people_search', reference: 'dj_x', amount: 40 });
    expect(r.charge_status).toBe('pending');
    expect((await getAccount(a.id))!.balance).toBe(60);
    const s = await settleCharged(a.id, r.id, 25);
    expect(s).toMatchObject({ charge_status: 'charged', charged: 25, reserved: 40 });
    expect(s.settled_at).not.toBeNull();
    expect((await getAccount(a.id))!.balance).toBe(75);
    // Settling again — or releasing after charging — changes nothing.
    await settleCharged(a.id, r.id, 40);
    await release(a.id, r.id);
    expect((await getAccount(a.id))!.balance).toBe(75);
    expect((await getCharge(a.id, r.id))!.charged).toBe(25);
  });

  test('zero_result and released return everything', async () => {
    const a = await newAccount(50);
    const r1 = await reserve({ accountId: a.id, operation: 'people_search', reference: 'dj_1', amount: 30 });
    expect((await settleZeroResult(a.id, r1.id)).charge_status).toBe('zero_result');
    const r2 = await reserve({ accountId: a.id, operation: 'phone_enrich', reference: 'dj_2', amount: 50 });
    expect((await release(a.id, r2.id)).charge_status).toBe('released');
    expect((await getAccount(a.id))!.balance).toBe(50);
    const charges = await listCharges(a.id);
    expect(charges.map((c) => c.charge_status)).toEqual(['released', 'zero_result']); // newest first
  });

  test('402 when the balance cannot cover the reservation; nothing written', async () => {
    const a = await newAccount(10);
    await expect(reserve({ accountId: a.id, operation: 'phone_enrich', reference: 'x', amount: 11 })).rejects.toBeInstanceOf(InsufficientCreditsError);
    expect((await getAccount(a.id))!.balance).toBe(10);
    expect(await listCharges(a.id)).toEqual([]);
  });

  test('a retried reservation with the same charge id reserves once', async () => {
    const a = await newAccount(100);
    const first = await reserve({ accountId: a.id, operation: 'x', reference: 'r', amount: 30, chargeId: 'chg_fixed' });
    const again = await reserve({ accountId: a.id, operation: 'x', reference: 'r', amount: 30, chargeId: 'chg_fixed' });
    expect(again.id).toBe(first.id);
    expect((await getAccount(a.id))!.balance).toBe(70);
  });

  test('auto-recharge buys exactly the shortfall', async () => {
    const a = await newAccount(20, true);
    const r = await reserve({ accountId: a.id, operation: 'phone_enrich', reference: 'x', amount: 50 });
    expect((await getAccount(a.id))!.balance).toBe(0);
    expect(await purchases(a.id)).toBe(30);
    await release(a.id, r.id);
    expect((await getAccount(a.id))!.balance).toBe(50);
  });

  test('chargeNow passes through pending to charged', async () => {
    const a = await newAccount(5);
    const c = await chargeNow({ accountId: a.id, operation: 'email_enrich', reference: 'x', amount: 5 });
    expect(c).toMatchObject({ charge_status: 'charged', charged: 5, reserved: 5 });
    expect((await getAccount(a.id))!.balance).toBe(0);
  });

  test('property: under random concurrent reserve/settle/release the balance is never negative and adds up', async () => {
    type Op = { amount: number; outcome: 'charge' | 'zero' | 'release'; keep: number; doubleSettle: boolean };
    const op = fc.record({
      amount: fc.integer({ min: 0, max: 60 }),
      outcome: fc.constantFrom<'charge' | 'zero' | 'release'>('charge', 'zero', 'release'),
      keep: fc.double({ min: 0, max: 1, noNaN: true }),
      doubleSettle: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 200 }), fc.boolean(), fc.array(op, { minLength: 1, maxLength: 12 }), async (initial, auto, ops: Op[]) => {
        const a = await newAccount(initial, auto);
        const results = await Promise.all(
          ops.map(async (o, i) => {
            let r;
            try {
              r = await reserve({ accountId: a.id, operation: 'prop', reference: `op${i}`, amount: o.amount });
            } catch (e) {
              // Both are clean refusals that reserve nothing (402, or the retryable 503 under contention).
              if (e instanceof InsufficientCreditsError || e instanceof ContentionError) return { reserved: false, charged: 0 };
              throw e;
            }
            const keep = Math.floor(o.amount * o.keep);
            const settle = () => (o.outcome === 'charge' ? settleCharged(a.id, r.id, keep) : o.outcome === 'zero' ? settleZeroResult(a.id, r.id) : release(a.id, r.id));
            const settled = o.doubleSettle ? (await Promise.all([settle(), settle(), release(a.id, r.id)]))[0] : await settle();
            const final = await getCharge(a.id, r.id);
            return { reserved: true, charged: final!.charged, status: final!.charge_status, settledFirst: settled.charge_status };
          }),
        );
        const account = await getAccount(a.id);
        const bought = await purchases(a.id);
        const charged = results.reduce((s, r) => s + r.charged, 0);
        expect(account!.balance).toBeGreaterThanOrEqual(0);
        expect(account!.balance).toBe(initial + bought - charged);
        if (!auto) expect(bought).toBe(0);
        const charges = await listCharges(a.id);
        expect(charges.every((c) => c.charge_status !== 'pending')).toBe(true);
        expect(charges.every((c) => c.charged <= c.reserved)).toBe(true);
        expect(charges.length).toBe(results.filter((r) => r.reserved).length);
      }),
      { numRuns: 25 },
    );
    // Up to 12 writers race on one balance in each of 25 runs, and a lost race backs off with jitter.
  }, 180_000);

  test('auto-recharge under contention: 40 concurrent reservations on an empty account buy exactly what they use, and none is refused with 402', async () => {
    const a = await newAccount(0, true);
    const results = await Promise.allSettled(
      Array.from({ length: 40 }, (_, i) => reserve({ accountId: a.id, operation: 'email_enrich', reference: `call-${i}`, amount: 5 })),
    );
    const refused = results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason);
    // Whatever could not be resolved is the retryable 503, never "insufficient credits".
    for (const e of refused) expect(e).toBeInstanceOf(ContentionError);
    expect(refused.some((e) => e instanceof InsufficientCreditsError)).toBe(false);
    const reserved = results.filter((r) => r.status === 'fulfilled').length * 5;
    expect(reserved).toBeGreaterThan(0);
    // Every purchase rode in the transaction of the reservation it paid for: nothing bought goes unused.
    expect(await purchases(a.id)).toBe(reserved);
    expect((await getAccount(a.id))!.balance).toBe(0);
    expect((await listCharges(a.id)).filter((c) => c.charge_status === 'pending')).toHaveLength(reserved / 5);
  });
});
