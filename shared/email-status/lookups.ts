import { mailExchangers } from '../adapters/mail-exchangers.js';
import { DOMAIN_DEADLINE_MS } from '../adapters/mail-exchangers-dns.js';
import { logger } from '../core/logger.js';
import { once } from '../core/once.js';
import type { LookupBudget, MailExchangerAnswer, MailExchangers } from '../ports/mail-exchangers.js';
import { parseAddress } from './classify.js';
import { takeLookups } from './lookup-budget.repository.js';

/**
 * The DNS lookups of one request that judges caller-chosen addresses for free (the web app's contact checks,
 * sequence eligibility), bounded three ways (issue 42):
 * 1. **A per-account daily budget**, counted by registrable domain (the public-suffix list through `tldts`:
 *    `a.b.example.co.uk` and `x.example.co.uk` are one, `example.co.uk`): `LOOKUP_BUDGET_PER_DAY` a UTC day,
 *    an atomic counter in DynamoDB (lookup-budget.repository.ts). The request takes what it needs at once;
 *    the domains past what was granted are not looked up.
 * 2. **One deadline for the whole request**, `BATCH_DEADLINE_MS` from the start, and `DOMAIN_DEADLINE_MS` for
 *    each domain (MX and its A/AAAA fallback together); `LOOKUP_CONCURRENCY` domains are asked at once.
 * 3. Each answer comes from the adapter's bounded cache when it has it (mail-exchangers-dns.ts).
 * A domain not looked up (over budget, past a deadline) answers `unavailable`, so its addresses are
 * `unknown`/`dns_unavailable`: never `invalid`, never an error. Each is reported in `summary` and `unchecked`.
 * If the budget cannot be read or written, nothing is looked up (the budget fails closed) and the request goes on.
 */
/**
 * 2,000 registrable domains an account a UTC day: a sequence holds at most 500 contacts, so a day covers
 * checking and then creating two full sequences whose every contact is at another company (B2B lists repeat a
 * company's domain, so real imports use far fewer), while one account can make at most ≈ 6,000 DNS queries
 * (MX, A, AAAA) a day at the service's expense.
 */
export const LOOKUP_BUDGET_PER_DAY = 2_000;
export const BATCH_DEADLINE_MS = 5_000;
export const LOOKUP_CONCURRENCY = 50;

/** Why an address's domain was not looked up. */
export type Unchecked = 'lookup_budget' | 'lookup_deadline';

export interface LookupSummary {
  /** Distinct registrable domains of the request's well-formed addresses. */
  domains: number;
  /** Registrable domains taken from the budget (and looked up, unless the deadline passed). */
  checked: number;
  /** Registrable domains not looked up: the day's budget was spent. */
  over_budget: number;
  /** Domains whose lookup missed the deadline. */
  timed_out: number;
  /** The account's daily budget, in registrable domains. */
  budget_per_day: number;
}

export interface DomainLookups {
  /** The mail-exchanger port for emailStatusOf: the answers gathered, `unavailable` for any other domain. */
  mx: MailExchangers;
  /** Why `address`'s domain was not looked up, or null when it was (or the address is malformed). */
  unchecked(address: string): Unchecked | null;
  /** Complete once every lookup has settled. */
  summary: LookupSummary;
  /** Settles when every lookup has. */
  done: Promise<void>;
}

export interface LookupDeps {
  mx: MailExchangers;
  budget: LookupBudget;
  limit: number;
  batchDeadlineMs: number;
  domainDeadlineMs: number;
  now: () => Date;
}

const tldts = /* @__PURE__ */ once(() => import('tldts'));

/** The registrable domain of a host (public-suffix list, ICANN section), or the host itself when it has none. */
export async function registrableDomain(host: string): Promise<string> {
  const { getDomain } = await tldts();
  return getDomain(host.toLowerCase()) ?? host.toLowerCase();
}

const LATE = Symbol('late');

/** The answer of `ask()`, or LATE when it has not come within `ms` (the lookup is left to end on its own). */
async function beforeDeadline(ask: () => Promise<MailExchangerAnswer>, ms: number): Promise<MailExchangerAnswer | typeof LATE> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<typeof LATE>((resolve) => {
    timer = setTimeout(() => resolve(LATE), ms);
    timer.unref?.();
  });
  try {
    return await Promise.race([Promise.resolve().then(ask).catch((): MailExchangerAnswer => 'unavailable'), late]);
  } finally {
    clearTimeout(timer);
  }
}

const defaults = (): LookupDeps => ({ mx: mailExchangers(), budget: takeLookups, limit: LOOKUP_BUDGET_PER_DAY, batchDeadlineMs: BATCH_DEADLINE_MS, domainDeadlineMs: DOMAIN_DEADLINE_MS, now: () => new Date() });

/**
 * Start looking up the mail exchangers of every domain of `addresses` for `accountId`, within the budget and
 * the deadline, and answer at once: `mx(domain)` settles as soon as that domain is answered (or its deadline
 * passes), so the other reads of the request overlap the lookups; `done` settles when every lookup has, and
 * `summary` is complete from then on. `accountId` null: no budget is taken (a caller that does not name the
 * account), only the deadlines hold.
 */
export function startLookups(accountId: string | null, addresses: readonly string[], overrides: Partial<LookupDeps> = {}): DomainLookups {
  const deps = { ...defaults(), ...overrides };
  const deadline = Date.now() + deps.batchDeadlineMs;
  const hosts = [...new Set(addresses.flatMap((a) => parseAddress(a.trim())?.domain ?? []))];
  const why = new Map<string, Unchecked>();
  const pending = new Map<string, { answer: Promise<MailExchangerAnswer>; settle: (a: MailExchangerAnswer) => void }>();
  const summary: LookupSummary = { domains: 0, checked: 0, over_budget: 0, timed_out: 0, budget_per_day: deps.limit };

  const plan = (async () => {
    const groups = new Map<string, string[]>();
    for (const host of hosts) {
      const reg = await registrableDomain(host);
      groups.set(reg, [...(groups.get(reg) ?? []), host]);
    }
    let granted = groups.size;
    if (accountId !== null && groups.size > 0) {
      try {
        granted = Math.max(0, Math.min(groups.size, await deps.budget(accountId, deps.now().toISOString().slice(0, 10), groups.size, deps.limit)));
      } catch (e) {
        logger.error('lookup budget unavailable: no domain is looked up', { accountId, error: e instanceof Error ? e.message : String(e) });
        granted = 0;
      }
    }
    Object.assign(summary, { domains: groups.size, checked: granted, over_budget: groups.size - granted });
    const asked: string[] = [];
    [...groups.values()].forEach((members, i) => {
      for (const host of members) {
        if (i >= granted) {
          why.set(host, 'lookup_budget');
          continue;
        }
        asked.push(host);
        let settle!: (a: MailExchangerAnswer) => void;
        const answer = new Promise<MailExchangerAnswer>((resolve) => (settle = resolve));
        pending.set(host, { answer, settle });
      }
    });
    return asked;
  })();

  const done = plan.then(async (asked) => {
    let next = 0;
    const worker = async () => {
      while (next < asked.length) {
        const host = asked[next++]!;
        const left = deadline - Date.now();
        const answer = left <= 0 ? LATE : await beforeDeadline(() => deps.mx(host), Math.min(deps.domainDeadlineMs, left));
        if (answer === LATE) why.set(host, 'lookup_deadline');
        pending.get(host)!.settle(answer === LATE ? 'unavailable' : answer);
      }
    };
    await Promise.all(Array.from({ length: Math.min(LOOKUP_CONCURRENCY, asked.length) }, worker));
    summary.timed_out = [...why.values()].filter((w) => w === 'lookup_deadline').length;
  });

  return {
    mx: async (domain) => {
      await plan;
      return (await pending.get(domain.toLowerCase())?.answer) ?? 'unavailable';
    },
    unchecked: (address) => {
      const host = parseAddress(address.trim())?.domain;
      return host ? (why.get(host) ?? null) : null;
    },
    summary,
    done,
  };
}

/** startLookups, answered once every lookup has settled. */
export async function lookUpDomains(accountId: string | null, addresses: readonly string[], overrides: Partial<LookupDeps> = {}): Promise<DomainLookups> {
  const lookups = startLookups(accountId, addresses, overrides);
  await lookups.done;
  return lookups;
}
