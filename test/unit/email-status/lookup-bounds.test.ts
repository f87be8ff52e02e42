import { CACHE_MAX_ENTRIES, CACHE_TTL_MS, DOMAIN_DEADLINE_MS, dnsMailExchangers } from '../../../shared/adapters/mail-exchangers-dns.js';
import { BATCH_DEADLINE_MS, LOOKUP_BUDGET_PER_DAY, lookUpDomains, registrableDomain } from '../../../shared/email-status/lookups.js';
import { jest } from '@jest/globals';
import { logger } from '../../../shared/core/logger.js';
import type { LookupBudget, MailExchangerAnswer, MailExchangers } from '../../../shared/ports/mail-exchangers.js';

// Issue 42 item 3: the lookups of free work are bounded in number (a daily budget per account, by registrable
// domain), in time (one deadline per request and per domain) and in memory (a bounded cache with a TTL).
// A fake resolver throughout: tests never do real DNS.

const fail = (code: string) => Object.assign(new Error(code), { code });
/** A resolver where every name has an MX, but names in `hang` never answer (or only their A/AAAA queries do not). */
function resolver(opts: { hang?: (d: string) => boolean; hangAddress?: (d: string) => boolean; calls?: string[] } = {}) {
  const never = new Promise<never>(() => {});
  return {
    resolveMx: (d: string) => {
      opts.calls?.push(`mx:${d}`);
      if (opts.hang?.(d)) return never;
      return opts.hangAddress?.(d) ? Promise.reject(fail('ENODATA')) : Promise.resolve([{ exchange: `mx.${d}`, priority: 10 }]);
    },
    resolve4: (d: string) => (opts.hangAddress?.(d) ? never : Promise.reject(fail('ENODATA'))),
    resolve6: (d: string) => (opts.hangAddress?.(d) ? never : Promise.reject(fail('ENODATA'))),
  } as unknown as Parameters<typeof dnsMailExchangers>[0];
}

describe('the DNS adapter', () => {
  test('states its bounds: 10,000 domains kept 10 minutes, 3 s a domain', () => {
    expect([CACHE_MAX_ENTRIES, CACHE_TTL_MS, DOMAIN_DEADLINE_MS]).toEqual([10_000, 600_000, 3_000]);
  });

  test('a domain whose MX, or whose A/AAAA fallback, never answers is unavailable at its deadline, and is not cached', async () => {
    const calls: string[] = [];
    const mx = dnsMailExchangers(resolver({ hang: (d) => d === 'hung.io', hangAddress: (d) => d === 'slow-fallback.io', calls }), Date.now, { deadlineMs: 80 });
    const t0 = Date.now();
    expect(await Promise.all([mx('hung.io'), mx('slow-fallback.io'), mx('fine.io')])).toEqual(['unavailable', 'unavailable', 'present']);
    expect(Date.now() - t0).toBeLessThan(1_000);
    await mx('hung.io');
    expect(calls.filter((c) => c === 'mx:hung.io')).toHaveLength(2);
  });

  test('the cache evicts the least recently used domain past its size', async () => {
    const calls: string[] = [];
    const mx = dnsMailExchangers(resolver({ calls }), Date.now, { maxEntries: 2 });
    await mx('a.io');
    await mx('b.io');
    await mx('a.io'); // a is now the most recently used
    await mx('c.io'); // evicts b
    calls.length = 0;
    await mx('a.io');
    await mx('c.io');
    expect(calls).toEqual([]);
    await mx('b.io');
    expect(calls).toEqual(['mx:b.io']);
  });

  test('an answer expires after its TTL and is asked again', async () => {
    const calls: string[] = [];
    let now = 1_000_000;
    const mx = dnsMailExchangers(resolver({ calls }), () => now, { ttlMs: 60_000 });
    await mx('a.io');
    now += 59_999;
    await mx('a.io');
    expect(calls).toEqual(['mx:a.io']);
    now += 1;
    await mx('a.io');
    expect(calls).toEqual(['mx:a.io', 'mx:a.io']);
  });

  test('a flood of distinct domains keeps only the most recent ones', async () => {
    const calls: string[] = [];
    const mx = dnsMailExchangers(resolver({ calls }), Date.now, { maxEntries: 1_000 });
    for (let i = 0; i < 20_000; i++) await mx(`d${i}.io`);
    calls.length = 0;
    await mx('d19000.io'); // among the last 1,000: kept
    await mx('d18999.io'); // one older: evicted
    expect(calls).toEqual(['mx:d18999.io']);
  });
});

describe('the lookups of one request', () => {
  const present: MailExchangers = async () => 'present';
  const budgetOf = (granted: (wanted: number) => number, asked: number[] = []): LookupBudget => async (_a, _d, wanted) => {
    asked.push(wanted);
    return granted(wanted);
  };
  const NOW = () => new Date('2026-11-23T10:00:00Z');

  test('states its bounds: 2,000 registrable domains an account a day, 5 s a request', () => {
    expect([LOOKUP_BUDGET_PER_DAY, BATCH_DEADLINE_MS]).toEqual([2_000, 5_000]);
  });

  test('registrable domains by the public-suffix list', async () => {
    expect(await Promise.all(['a.b.example.co.uk', 'x.example.co.uk', 'mail.acme.io', 'nowhere.invalid'].map(registrableDomain))).toEqual(['example.co.uk', 'example.co.uk', 'acme.io', 'nowhere.invalid']);
  });

  test('the budget is taken once per registrable domain, for the account and its UTC day', async () => {
    const taken: unknown[] = [];
    const budget: LookupBudget = async (...args) => {
      taken.push(args);
      return args[2];
    };
    const asked: string[] = [];
    const l = await lookUpDomains('acct_1', ['p@a.b.example.co.uk', 'q@x.example.co.uk', 'r@X.Example.co.uk', 's@acme.io', 'not an address'], { budget, mx: async (d) => (asked.push(d), 'present'), limit: 7, now: NOW });
    expect(taken).toEqual([['acct_1', '2026-11-23', 2, 7]]);
    expect(asked.sort()).toEqual(['a.b.example.co.uk', 'acme.io', 'x.example.co.uk']);
    expect(l.summary).toEqual({ domains: 2, checked: 2, over_budget: 0, timed_out: 0, budget_per_day: 7 });
  });

  test('past the budget a domain is not looked up: unavailable, marked lookup_budget', async () => {
    const asked: string[] = [];
    const l = await lookUpDomains('acct_1', ['a@one.io', 'b@two.io', 'c@sub.two.io', 'd@three.invalid'], { budget: budgetOf(() => 1), mx: async (d) => (asked.push(d), 'absent'), now: NOW });
    expect(asked).toEqual(['one.io']);
    expect(await Promise.all(['one.io', 'two.io', 'sub.two.io', 'three.invalid'].map(l.mx))).toEqual<MailExchangerAnswer[]>(['absent', 'unavailable', 'unavailable', 'unavailable']);
    expect(['a@one.io', 'b@two.io', 'c@sub.two.io', 'd@three.invalid'].map(l.unchecked)).toEqual([null, 'lookup_budget', 'lookup_budget', 'lookup_budget']);
    expect(l.summary).toMatchObject({ domains: 3, checked: 1, over_budget: 2 });
  });

  test('a budget that cannot be reached grants nothing and throws nothing', async () => {
    const logged = jest.spyOn(logger, 'error').mockImplementation(() => {});
    const asked: string[] = [];
    const failing: LookupBudget = async () => {
      throw new Error('AccessDeniedException');
    };
    const l = await lookUpDomains('acct_1', ['a@one.io'], { budget: failing, mx: async (d) => (asked.push(d), 'present') });
    expect([asked, await l.mx('one.io'), l.unchecked('a@one.io')]).toEqual([[], 'unavailable', 'lookup_budget']);
    expect(logged).toHaveBeenCalledTimes(1);
    logged.mockRestore();
  });

  const hangingDns = (hang: (d: string) => boolean) =>
    dnsMailExchangers(
      {
        resolveMx: (d: string) => (hang(d) ? new Promise(() => {}) : d === 'gone.io' ? Promise.reject(fail('ENOTFOUND')) : Promise.resolve([{ exchange: 'mx', priority: 1 }])),
        resolve4: async () => [],
        resolve6: async () => [],
      } as unknown as Parameters<typeof dnsMailExchangers>[0],
      Date.now,
      { deadlineMs: 10_000 },
    );

  test('a few dead domains end at their own deadline as lookup_deadline; the others are answered', async () => {
    const addresses = [...Array.from({ length: 5 }, (_, i) => `x@hang${i}.io`), ...Array.from({ length: 40 }, (_, i) => `y@fine${i}.io`), 'z@gone.io'];
    const t0 = Date.now();
    const l = await lookUpDomains('acct_1', addresses, { budget: budgetOf((n) => n), mx: hangingDns((d) => d.startsWith('hang')), batchDeadlineMs: 1_000, domainDeadlineMs: 200, now: NOW });
    const took = Date.now() - t0;
    expect([took >= 190, took < 700]).toEqual([true, true]);
    expect(await Promise.all(['hang0.io', 'fine0.io', 'fine39.io', 'gone.io'].map(l.mx))).toEqual(['unavailable', 'present', 'present', 'absent']);
    expect(addresses.map(l.unchecked).filter(Boolean)).toEqual(Array(5).fill('lookup_deadline'));
    expect(l.summary).toMatchObject({ domains: 46, checked: 46, timed_out: 5 });
  });

  test('many dead domains: the request still ends at its one deadline, every domain not answered by then is lookup_deadline', async () => {
    const addresses = [...Array.from({ length: 200 }, (_, i) => `x@hang${i}.io`), 'y@fine.io'];
    const t0 = Date.now();
    const l = await lookUpDomains('acct_1', addresses, { budget: budgetOf((n) => n), mx: hangingDns((d) => d.startsWith('hang')), batchDeadlineMs: 400, domainDeadlineMs: 250, now: NOW });
    const took = Date.now() - t0;
    expect([took >= 390, took < 900]).toEqual([true, true]);
    expect(addresses.map(l.unchecked).filter((u) => u === 'lookup_deadline')).toHaveLength(201);
    expect(l.summary).toMatchObject({ domains: 201, timed_out: 201 });
  });

  test('without an account only the deadlines hold', async () => {
    const l = await lookUpDomains(null, ['a@one.io'], { budget: async () => 0, mx: present });
    expect([await l.mx('one.io'), l.summary.over_budget]).toEqual(['present', 0]);
  });
});
