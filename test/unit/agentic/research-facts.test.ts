/**
 * The facts personas ask for, on the sample web: how often pages state them (deterministic from the seed),
 * and how the built-in criteria engine reads them: a criterion is proven by a block that states it,
 * disproven by one that states the contrary, and unknown when the page says neither. Pages are rendered
 * by the sample web itself (renderSitePage), so the text judged is the text the research loop would read.
 */
import { parseCriteria, type EvidenceCheck } from '../../../shared/understanding/criteria.js';
import { assessCheck, blocksOf, findProof } from '../../../shared/understanding/evaluate.js';
import type { Company } from '../../../shared/directory/types.js';
import { personFacts, renderSitePage, siteFacts } from '../../../shared/local/sample-web.js';

const today = new Date('2026-11-23T00:00:00Z');
const place = { city: 'Berlin', region: 'Berlin', country: 'Germany', country_code: 'DE', time_zone: 'Europe/Berlin' };
const company = (n: number): Company => ({ type: 'company', id: `co_${n}`, name: `Firm ${n} GmbH`, domain: `firm-${n}.example`, professional_url: `linkedin.com/company/firm-${n}`, industry: 'Computer Software', employee_count: 40 + n, hq: place });

/** The blocks of one page of a company's site, with one person on its team. */
function page(c: Company, path: string, person?: { slug: string; title: string }) {
  const people = new Map(person ? [[person.slug, { full_name: 'Alex Example', title: person.title }]] : []);
  const out = renderSitePage({ company: c, people }, path, today);
  if (!out) throw new Error(`no page ${path}`);
  return blocksOf(out.body);
}
const verdict = (check: EvidenceCheck, blocks: ReturnType<typeof blocksOf>) => assessCheck(check, blocks, today).verdict;
const checkOf = (query: string) => parseCriteria(query).required[0]!.check;

describe('the facts the sample web states', () => {
  const slugs = Array.from({ length: 4000 }, (_, i) => `person-${i}`);

  test('about a third of people pages state a team; leaders say how many they lead, some of them a small team', () => {
    const titles = ['VP of Sales', 'Head of People', 'Engineering Manager', 'Software Engineer', 'Account Executive', 'Data Scientist', 'Director of Finance', 'Recruiter'];
    const facts = slugs.map((s, i) => ({ title: titles[i % titles.length]!, f: personFacts(s, titles[i % titles.length]) }));
    const stated = facts.filter((x) => x.f.team).length / facts.length;
    expect(stated).toBeGreaterThan(0.3);
    expect(stated).toBeLessThan(0.4);
    const led = facts.filter((x) => x.f.team?.led);
    expect(led.every((x) => /VP|Head|Manager|Director/.test(x.title))).toBe(true);
    expect(led.filter((x) => x.f.team!.size >= 10).length / led.length).toBeGreaterThan(0.6);
    expect(led.some((x) => x.f.team!.size < 10)).toBe(true);
    // Deterministic from the seed.
    expect(personFacts('person-7', 'VP of Sales')).toEqual(personFacts('person-7', 'VP of Sales'));
  });

  test('companies: most hire, about half announce funding, some say they are bootstrapped, every one lists its stack', () => {
    const sites = Array.from({ length: 2000 }, (_, i) => siteFacts(company(i)));
    const share = (p: (f: (typeof sites)[number]) => boolean) => sites.filter(p).length / sites.length;
    expect(share((f) => f.jobs.length > 0)).toBeGreaterThan(0.5);
    expect(share((f) => f.funding.length > 0)).toBeGreaterThan(0.4);
    expect(share((f) => f.bootstrapped)).toBeGreaterThan(0.1);
    expect(sites.every((f) => !(f.bootstrapped && f.funding.length))).toBe(true);
    expect(sites.every((f) => f.stack.length >= 4)).toBe(true);
  });
});

describe('criteria on those pages: proven, disproven or unknown', () => {
  const c = company(1);

  test('"led a team of 10+": proven by a team of 10 or more led, disproven by a smaller one, unknown otherwise', () => {
    const check = checkOf('VP of Sales at B2B SaaS companies in Germany, must have led a team of 10+, exclude agencies');
    expect(check).toEqual({ kind: 'team', min: 10 });
    const slugs = Array.from({ length: 400 }, (_, i) => `vp-${i}`);
    const big = slugs.find((s) => (personFacts(s, 'VP of Sales').team?.size ?? 0) >= 10)!;
    const small = slugs.find((s) => { const t = personFacts(s, 'VP of Sales').team; return t !== null && t.size < 10; })!;
    const none = slugs.find((s) => personFacts(s, 'VP of Sales').team === null)!;
    const worker = slugs.find((s) => personFacts(s, 'Account Executive').team !== null)!;
    const read = (slug: string, title: string) => page(c, `/team/${slug}/`, { slug, title });

    const proven = assessCheck(check, read(big, 'VP of Sales'), today);
    expect(proven.verdict).toBe('proven');
    const size = personFacts(big, 'VP of Sales').team!.size;
    expect(proven.verdict === 'proven' && proven.block.text).toContain(`leads a team of ${size}`);
    expect(verdict(check, read(small, 'VP of Sales'))).toBe('disproven');
    expect(verdict(check, read(none, 'VP of Sales'))).toBe('unknown');
    // Working in a team is not leading one: unknown, not proof.
    expect(verdict(check, read(worker, 'Account Executive'))).toBe('unknown');
    // "more than N" is N + 1.
    expect(verdict({ kind: 'team', min: size + 1 }, read(big, 'VP of Sales'))).toBe('disproven');
    expect(verdict({ kind: 'team', min: null }, read(small, 'VP of Sales'))).toBe('proven');
  });

  test('"hiring": proven by an open position, disproven by none (or none for the role)', () => {
    const hiring = checkOf('CTOs of fintech startups in London that are hiring');
    expect(hiring).toEqual({ kind: 'hiring', role: '' });
    const n = Array.from({ length: 200 }, (_, i) => i);
    const open = company(n.find((i) => siteFacts(company(i)).jobs.length > 0)!);
    const closed = company(n.find((i) => siteFacts(company(i)).jobs.length === 0)!);
    expect(verdict(hiring, page(open, '/careers/'))).toBe('proven');
    expect(verdict(hiring, page(closed, '/careers/'))).toBe('disproven');
    const roles = siteFacts(open).jobs.map((j) => j.title.toLowerCase());
    const missing = ['recruiter', 'data scientist', 'product designer', 'finance manager'].find((r) => !roles.some((t) => t.includes(r)))!;
    expect(verdict({ kind: 'hiring', role: missing }, page(open, '/careers/'))).toBe('disproven');
  });

  test('"raised funding / Series A": proven by the announcement, disproven by a bootstrapped company, unknown on silence', () => {
    expect(checkOf('Finance directors at companies that raised funding')).toEqual({ kind: 'funding', round: null, withinDays: null });
    expect(checkOf('Founders at companies that raised a Series A')).toEqual({ kind: 'funding', round: 'Series A', withinDays: null });
    const n = Array.from({ length: 400 }, (_, i) => i);
    const funded = company(n.find((i) => siteFacts(company(i)).funding.length > 0)!);
    const boot = company(n.find((i) => siteFacts(company(i)).bootstrapped)!);
    const silent = company(n.find((i) => { const f = siteFacts(company(i)); return !f.bootstrapped && f.funding.length === 0; })!);
    const round = siteFacts(funded).funding[0]!.round;
    expect(verdict({ kind: 'funding', round: null, withinDays: null }, page(funded, '/news/'))).toBe('proven');
    expect(verdict({ kind: 'funding', round, withinDays: null }, page(funded, '/news/'))).toBe('proven');
    expect(verdict({ kind: 'funding', round: null, withinDays: null }, page(boot, '/news/'))).toBe('disproven');
    expect(findProof({ kind: 'funding', round: null, withinDays: null }, page(boot, '/news/'), today)).toBeNull();
    expect(verdict({ kind: 'funding', round: null, withinDays: null }, page(silent, '/news/'))).toBe('unknown');
  });

  test('"uses <technology>": proven when the stack page lists it, disproven when the stack page does not', () => {
    expect(checkOf('Marketing directors at companies that use HubSpot')).toEqual({ kind: 'tech', tool: 'HubSpot' });
    const stack = siteFacts(c).stack;
    expect(verdict({ kind: 'tech', tool: stack[0]! }, page(c, '/stack/'))).toBe('proven');
    const absent = ['Snowflake', 'HubSpot', 'Kafka', 'Rust', 'Stripe', 'Looker', 'Terraform'].find((t) => !stack.includes(t))!;
    expect(verdict({ kind: 'tech', tool: absent }, page(c, '/stack/'))).toBe('disproven');
  });

  test('"spoke at conferences": proven by a talk on the person\'s page, else unknown', () => {
    const check = checkOf('Data scientists at fintech companies who spoke at a conference');
    expect(check).toEqual({ kind: 'talk', withinDays: null });
    const slugs = Array.from({ length: 200 }, (_, i) => `ds-${i}`);
    const talker = slugs.find((s) => personFacts(s).talks.length > 0)!;
    const quiet = slugs.find((s) => personFacts(s).talks.length === 0)!;
    const got = assessCheck(check, page(c, `/team/${talker}/`, { slug: talker, title: 'Data Scientist' }), today);
    expect(got.verdict === 'proven' && got.block.text).toContain(`spoke at ${personFacts(talker).talks[0]!.conference}`);
    expect(verdict(check, page(c, `/team/${quiet}/`, { slug: quiet, title: 'Data Scientist' }))).toBe('unknown');
  });
});
