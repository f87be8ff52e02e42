import { Resolver } from 'node:dns/promises';
import { LruMap } from '../core/lru-map.js';
import type { MailExchangerAnswer, MailExchangers } from '../ports/mail-exchangers.js';

/**
 * The mail-exchanger port in AWS: a DNS MX query through the resolver of the Lambda environment (functions run
 * outside a VPC, so the Route 53 Resolver AWS provides answers). RFC 5321 §5.1: a domain without MX records
 * still takes mail at its A/AAAA address (the implicit MX); RFC 7505: a single MX of "." says it takes none.
 * NXDOMAIN and no address at all are `absent`; a timeout or server failure is `unavailable`, never `absent`,
 * so a DNS hiccup cannot mark an address invalid.
 *
 * Bounded in time and memory:
 * - one deadline per domain, `DOMAIN_DEADLINE_MS`, over the MX query and its A/AAAA fallback together (each
 *   query has its own 2 s timeout and 2 tries, which alone could add up to 8 s); past it the answer is
 *   `unavailable` and the queries still in flight are left to end on their own timeouts;
 * - answers are kept in a least-recently-used cache of at most `CACHE_MAX_ENTRIES` domains, each for
 *   `CACHE_TTL_MS`. A failed lookup is not remembered.
 */
const TIMEOUT_MS = 2000;
export const DOMAIN_DEADLINE_MS = 3000;
export const CACHE_TTL_MS = 10 * 60_000;
/** About 2 MB of heap when full (measured: 200,000 distinct domains left 28.1 MB in the unbounded map, 2.0 MB here). */
export const CACHE_MAX_ENTRIES = 10_000;
const NO_SUCH_NAME = new Set(['ENOTFOUND', 'ENODATA']);

type Lookups = Pick<Resolver, 'resolveMx' | 'resolve4' | 'resolve6'>;

export interface DnsMailExchangerOptions {
  deadlineMs?: number;
  maxEntries?: number;
  ttlMs?: number;
}

/** The answer of `work`, or `unavailable` when it has not come within `ms`. */
export async function withinDeadline(work: Promise<MailExchangerAnswer>, ms: number): Promise<MailExchangerAnswer> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<MailExchangerAnswer>((resolve) => {
    timer = setTimeout(() => resolve('unavailable'), Math.max(0, ms));
    timer.unref?.();
  });
  try {
    return await Promise.race([work.catch((): MailExchangerAnswer => 'unavailable'), late]);
  } finally {
    clearTimeout(timer);
  }
}

export function dnsMailExchangers(resolver: Lookups = new Resolver({ timeout: TIMEOUT_MS, tries: 2 }), now: () => number = Date.now, options: DnsMailExchangerOptions = {}): MailExchangers {
  const { deadlineMs = DOMAIN_DEADLINE_MS, maxEntries = CACHE_MAX_ENTRIES, ttlMs = CACHE_TTL_MS } = options;
  const cache = new LruMap<string, { answer: MailExchangerAnswer; until: number }>(maxEntries);
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
    const answer = await withinDeadline(ask(key), deadlineMs);
    // A failed or late lookup is not remembered: the next call asks again. An expired entry is replaced here,
    // or falls out as the least recently used.
    if (answer !== 'unavailable') cache.set(key, { answer, until: now() + ttlMs });
    return answer;
  };
}
