import { Resolver } from 'node:dns/promises';
import type { MailExchangerAnswer, MailExchangers } from '../ports/mail-exchangers.js';

/**
 * The mail-exchanger port in AWS: a DNS MX query through the resolver of the Lambda environment (functions run
 * outside a VPC, so the Route 53 Resolver AWS provides answers). RFC 5321 §5.1: a domain without MX records
 * still takes mail at its A/AAAA address (the implicit MX); RFC 7505: a single MX of "." says it takes none.
 * NXDOMAIN and no address at all are `absent`; a timeout or server failure is `unavailable`, never `absent`,
 * so a DNS hiccup cannot mark an address invalid. Answers are kept ten minutes per process.
 */
const TIMEOUT_MS = 2000;
const CACHE_MS = 10 * 60_000;
const NO_SUCH_NAME = new Set(['ENOTFOUND', 'ENODATA']);

type Lookups = Pick<Resolver, 'resolveMx' | 'resolve4' | 'resolve6'>;

export function dnsMailExchangers(resolver: Lookups = new Resolver({ timeout: TIMEOUT_MS, tries: 2 }), now: () => number = Date.now): MailExchangers {
  const cache = new Map<string, { answer: MailExchangerAnswer; until: number }>();
  const has = async (query: () => Promise<unknown[]>): Promise<boolean | 'failed'> => {
    try {
      return (await query()).length > 0;
    } catch (e) {
      return NO_SUCH_NAME.has((e as NodeJS.ErrnoException).code ?? '') ? false : 'failed';
    }
  };
  const ask = async (domain: string): Promise<MailExchangerAnswer> => {
    let records: { exchange: string }[];
    try {
      records = await resolver.resolveMx(domain);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOTFOUND') return 'absent';
      if (code !== 'ENODATA') return 'unavailable';
      records = [];
    }
    if (records.length === 1 && (records[0]!.exchange === '' || records[0]!.exchange === '.')) return 'absent';
    if (records.length > 0) return 'present';
    const [v4, v6] = await Promise.all([has(() => resolver.resolve4(domain)), has(() => resolver.resolve6(domain))]);
    if (v4 === true || v6 === true) return 'present';
    return v4 === 'failed' || v6 === 'failed' ? 'unavailable' : 'absent';
  };
  return async (domain) => {
    const key = domain.toLowerCase();
    const hit = cache.get(key);
    if (hit && hit.until > now()) return hit.answer;
    const answer = await ask(key);
    // A failed lookup is not remembered: the next call asks again.
    if (answer !== 'unavailable') cache.set(key, { answer, until: now() + CACHE_MS });
    return answer;
  };
}
