import { dnsMailExchangers } from '../../../shared/adapters/mail-exchangers-dns.js';

// The AWS adapter against a fake resolver: never a real lookup in tests.
const fail = (code: string) => Object.assign(new Error(code), { code });
type Answers = { mx?: { exchange: string; priority: number }[] | string; a?: string[] | string; aaaa?: string[] | string };
function fakeResolver(table: Record<string, Answers>, calls: string[] = []) {
  const answer = <T>(kind: 'mx' | 'a' | 'aaaa', domain: string): Promise<T> => {
    calls.push(`${kind}:${domain}`);
    const v = table[domain]?.[kind];
    if (v === undefined) return Promise.reject(fail(table[domain] ? 'ENODATA' : 'ENOTFOUND'));
    return typeof v === 'string' ? Promise.reject(fail(v)) : Promise.resolve(v as T);
  };
  return {
    resolveMx: (d: string) => answer<{ exchange: string; priority: number }[]>('mx', d),
    resolve4: (d: string) => answer<string[]>('a', d),
    resolve6: (d: string) => answer<string[]>('aaaa', d),
  } as unknown as Parameters<typeof dnsMailExchangers>[0];
}

test('MX records, the implicit MX of an address record, the null MX, NXDOMAIN and a failing server', async () => {
  const mx = dnsMailExchangers(
    fakeResolver({
      'acme.io': { mx: [{ exchange: 'mx1.acme.io', priority: 10 }] },
      'implicit.io': { a: ['192.0.2.1'] },
      'nullmx.io': { mx: [{ exchange: '', priority: 0 }] },
      'bare.io': {},
      'flaky.io': { mx: 'ESERVFAIL' },
      'timeout.io': { mx: 'ETIMEOUT' },
    }),
  );
  expect(await mx('acme.io')).toBe('present');
  expect(await mx('implicit.io')).toBe('present');
  expect(await mx('nullmx.io')).toBe('absent');
  expect(await mx('bare.io')).toBe('absent');
  expect(await mx('gone.io')).toBe('absent');
  expect(await mx('flaky.io')).toBe('unavailable');
  expect(await mx('timeout.io')).toBe('unavailable');
});

test('answers are kept ten minutes; a failed lookup is asked again', async () => {
  const calls: string[] = [];
  let now = 0;
  const table: Record<string, Answers> = { 'acme.io': { mx: [{ exchange: 'mx1.acme.io', priority: 10 }] }, 'flaky.io': { mx: 'ESERVFAIL' } };
  const mx = dnsMailExchangers(fakeResolver(table, calls), () => now);
  await mx('acme.io');
  await mx('ACME.io');
  await mx('flaky.io');
  await mx('flaky.io');
  expect(calls).toEqual(['mx:acme.io', 'mx:flaky.io', 'mx:flaky.io']);
  now += 10 * 60_000 + 1;
  await mx('acme.io');
  expect(calls.at(-1)).toBe('mx:acme.io');
});
