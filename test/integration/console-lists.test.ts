import type { LocalStack } from '../../shared/local/stack.js';
import { chargeNow, release, reserve } from '../../shared/accounts/ledger.repository.js';
import { Client, startTestStack } from '../support/local.js';

/**
 * The console's charges list is complete: the web app's filters, a limit and a cursor (one query
 * implementation), so an operator can page through every record of a busy account.
 */
let stack: LocalStack;
let admin: Client;
beforeAll(async () => {
  stack = await startTestStack({ workers: false });
  admin = new Client(stack);
}, 60_000);
afterAll(async () => {
  await stack?.stop();
});

const CHARGES = 1_000;
const START = 10_000;

describe('console GET accounts/{id}/charges/', () => {
  let accountId: string;
  beforeAll(async () => {
    const a = await admin.console('POST', 'accounts/', { name: 'Busy', credits: START });
    accountId = a.body.id;
    // 1,000 records straight through the ledger: 900 kept (1–3 credits each, two operations), 100 released.
    for (let i = 0; i < CHARGES; i++) {
      const input = { accountId, operation: i % 2 ? 'email_enrich' : 'professional_url_enrich', reference: `ref_${i}`, amount: 1 + (i % 3) };
      if (i % 10 === 9) await release(accountId, (await reserve(input)).id);
      else await chargeNow(input);
    }
  }, 60_000);

  test('walks 1,000 records page by page, newest first, each once, summing to what the balance lost', async () => {
    const seen: any[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: any = await admin.console('GET', `accounts/${accountId}/charges/?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body.results.length).toBeLessThanOrEqual(200);
      seen.push(...res.body.results);
      cursor = res.body.next_cursor;
      pages++;
    } while (cursor && pages < 20);
    expect(cursor).toBeNull();
    expect(seen).toHaveLength(CHARGES);
    expect(new Set(seen.map((c) => c.id)).size).toBe(CHARGES);
    expect(seen.map((c) => c.id)).toEqual([...seen.map((c) => c.id)].sort().reverse());
    const balance = (await admin.console('GET', `accounts/${accountId}/`)).body.balance;
    expect(seen.reduce((s, c) => s + c.charged, 0)).toBe(START - balance);
    expect(seen.filter((c) => c.charge_status === 'released')).toHaveLength(100);
  }, 60_000);

  test('defaults to 50 and takes the app list’s filters', async () => {
    const first = await admin.console('GET', `accounts/${accountId}/charges/`);
    expect(first.body.results).toHaveLength(50);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    // A filtered page is filled from a bounded number of reads; its cursor goes on where reading stopped.
    const released: any[] = [];
    let cursor: string | null = null;
    do {
      const res: any = await admin.console('GET', `accounts/${accountId}/charges/?status=released&operation=email_enrich&limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status).toBe(200);
      released.push(...res.body.results);
      cursor = res.body.next_cursor;
    } while (cursor);
    expect(released.every((c: any) => c.charge_status === 'released' && c.operation === 'email_enrich')).toBe(true);
    // i % 10 === 9 is odd: every released record is an email enrichment.
    expect(released).toHaveLength(100);
    expect((await admin.console('GET', `accounts/${accountId}/charges/?to=2000-01-01`)).body).toEqual({ results: [], next_cursor: null });
  });

  test('a bad query is a 400 and an unknown account a 404', async () => {
    expect((await admin.console('GET', `accounts/${accountId}/charges/?limit=201`)).status).toBe(400);
    expect((await admin.console('GET', `accounts/${accountId}/charges/?status=settled`)).status).toBe(400);
    expect((await admin.console('GET', `accounts/${accountId}/charges/?cursor=bm90LWEta2V5`)).status).toBe(400);
    expect((await admin.console('GET', `accounts/${accountId}/charges/?page=2`)).status).toBe(400);
    expect((await admin.console('GET', `accounts/acct_${'0'.repeat(26)}/charges/`)).status).toBe(404);
  });
});
