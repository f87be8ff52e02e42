import { createServer, type Server } from 'node:http';
import { mulberry32 } from '../directory/generate.js';
import type { Company, Person } from '../directory/types.js';
import { readDirectory } from '../search-engine/index-source.js';
import { serviceClock, type Clock } from '../core/clock.js';
import { SAMPLE_WEB_HOSTS_PATH } from '../adapters/page-reader-local.js';

/**
 * The sample web: a deterministic set of company and person pages, generated from the people directory,
 * served on loopback so the agentic research loop has real pages to read on the one-machine twin.
 *
 * Every company of the directory gets a site at `https://<domain>/` with `/about/`, `/news/` (funding
 * rounds, launches, office openings, leadership changes; or that it is bootstrapped), `/careers/` (job posts),
 * `/stack/` (the tools it runs on) and `/team/<slug>/` for each of its people (the team they lead or work
 * in, talks and articles). What a site says is drawn from
 * a generator seeded by the domain (or the person's profile slug), so the same directory always serves the
 * same web; dates are days before the service clock's current day, so "in the last year" keeps its meaning
 * as the clock moves. A few sites keep robots out of `/team/`. The page reader reaches a site through the
 * static host table (`GET /.well-known/hosts` lists the domains served), connecting to this server's
 * loopback port with the site's name in the Host header: nothing ever asks real DNS.
 */

export interface SiteFacts {
  founded: number;
  /** The company says it has never raised outside money (only companies without funding news). */
  bootstrapped: boolean;
  funding: { round: string; amountMillions: number; daysAgo: number; investor: string }[];
  launches: { product: string; daysAgo: number }[];
  offices: { city: string; daysAgo: number }[];
  leadership: { name: string; role: string; daysAgo: number }[];
  jobs: { title: string; city: string; daysAgo: number }[];
  stack: string[];
  robotsBlockTeam: boolean;
}

export interface PersonFacts {
  talks: { conference: string; title: string; daysAgo: number }[];
  articles: { title: string; outlet: string; daysAgo: number }[];
  /**
   * What the person's page says about a team, if anything: `led` when they lead it (a leader's page),
   * else they only work in it (an individual contributor's page, which proves nothing about leading).
   */
  team: { size: number; led: boolean; of: string } | null;
}

const TOOLS = ['Snowflake', 'Databricks', 'BigQuery', 'Redshift', 'dbt', 'Airflow', 'Kafka', 'PostgreSQL', 'MongoDB', 'Kubernetes', 'Terraform', 'AWS', 'Google Cloud', 'Azure', 'Salesforce', 'HubSpot', 'Segment', 'Looker', 'Tableau', 'React', 'Python', 'Go', 'Rust', 'TypeScript', 'Datadog', 'Stripe'];
const ROLES = ['Data Engineer', 'Senior Data Engineer', 'Analytics Engineer', 'Data Scientist', 'Software Engineer', 'Senior Software Engineer', 'Frontend Engineer', 'DevOps Engineer', 'Product Manager', 'Product Designer', 'Account Executive', 'Sales Development Representative', 'Customer Success Manager', 'Marketing Manager', 'Finance Manager', 'Recruiter'];
const CITIES = ['London', 'Berlin', 'Paris', 'Amsterdam', 'New York', 'San Francisco', 'Austin', 'Toronto', 'Singapore', 'Sydney', 'Dublin', 'Madrid', 'Stockholm', 'Zurich', 'Boston', 'Chicago'];
const INVESTORS = ['Northwind Ventures', 'Blue Harbor Capital', 'Summit Peak Partners', 'Granite Growth', 'Lighthouse Ventures', 'Atlas Seed Fund', 'Redwood Crossing'];
const PRODUCTS = ['Insights', 'Flow', 'Pulse', 'Studio', 'Connect', 'Ledger', 'Radar', 'Pilot'];
const LEADERS_FIRST = ['Maria', 'David', 'Aisha', 'Tom', 'Elena', 'Kenji', 'Sofia', 'Lucas', 'Priya', 'Noah'];
const LEADERS_LAST = ['Keller', 'Okafor', 'Lindqvist', 'Moreau', 'Tanaka', 'Rossi', 'Novak', 'Singh', 'Walsh', 'Costa'];
const LEADER_ROLES = ['CEO', 'CTO', 'CFO', 'COO', 'Chief Revenue Officer', 'VP of Engineering'];
const CONFERENCES = ['DataCon Europe', 'KubeCon', 'SaaStr Annual', 'Money20/20', 'Web Summit', 'QCon London', 'Strata Data Conference', 'Collision', 'AWS re:Invent', 'PyData Global'];
const TALK_TOPICS = ['Scaling data platforms without heroics', 'What we learned migrating to the cloud', 'Building teams that ship', 'Pricing experiments that worked', 'Observability on a budget', 'From spreadsheets to a warehouse'];
const OUTLETS = ['the company blog', 'Medium', 'InfoQ', 'Harvard Business Review', 'TechCrunch', 'a personal newsletter'];

/** FNV-1a: a stable 32-bit seed from a name. */
function seedOf(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

function draw(seed: string) {
  const next = mulberry32(seedOf(seed));
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  return { next, int, chance: (p: number) => next() < p, pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]! };
}

function roundFor(employees: number, r: ReturnType<typeof draw>): string {
  if (employees < 50) return r.pick(['Seed', 'Series A']);
  if (employees < 200) return r.pick(['Series A', 'Series B']);
  if (employees < 1000) return r.pick(['Series B', 'Series C']);
  return r.pick(['Series C', 'Series D']);
}

export function siteFacts(company: Company): SiteFacts {
  const r = draw(`site:${company.domain}`);
  const funding = r.chance(0.55)
    ? Array.from({ length: r.int(1, 2) }, (_, i) => ({ round: roundFor(company.employee_count, r), amountMillions: r.int(2, 120), daysAgo: r.int(20, 500) + i * 400, investor: r.pick(INVESTORS) }))
    : [];
  const stack = new Set<string>();
  for (let n = r.int(4, 7); stack.size < n; ) stack.add(r.pick(TOOLS));
  // Drawn from a stream of its own, so the facts above stay what they were before it was added.
  const bootstrapped = funding.length === 0 && draw(`bootstrapped:${company.domain}`).chance(0.4);
  return {
    founded: 2026 - r.int(2, 30),
    bootstrapped,
    funding,
    launches: Array.from({ length: r.int(0, 2) }, () => ({ product: `${company.name.split(' ')[0]} ${r.pick(PRODUCTS)}`, daysAgo: r.int(10, 700) })),
    offices: r.chance(0.3) ? [{ city: r.pick(CITIES), daysAgo: r.int(15, 600) }] : [],
    leadership: r.chance(0.3) ? [{ name: `${r.pick(LEADERS_FIRST)} ${r.pick(LEADERS_LAST)}`, role: r.pick(LEADER_ROLES), daysAgo: r.int(10, 600) }] : [],
    jobs: r.chance(0.6) ? Array.from({ length: r.int(1, 4) }, () => ({ title: r.pick(ROLES), city: company.hq.city, daysAgo: r.int(1, 90) })) : [],
    stack: [...stack],
    robotsBlockTeam: r.chance(0.08),
  };
}

export const personSlug = (person: Pick<Person, 'professional_url'>): string => person.professional_url.slice(person.professional_url.lastIndexOf('/') + 1);

/** Titles of people who lead others: their pages may say how large a team they lead. */
const LEADER_TITLE = /\b(?:vp|vice president|head|director|chief|ceo|cto|cfo|coo|cmo|cro|founder|co-founder|owner|president|manager|lead|partner|principal)\b/i;

/** Who a team is made of, by the words of a title. */
function teamOf(title: string): string {
  const t = title.toLowerCase();
  if (/sales|revenue|account|business development/.test(t)) return 'sales reps and account executives';
  if (/engineer|technology|cto|software|devops|platform/.test(t)) return 'engineers';
  if (/market|growth|brand|content/.test(t)) return 'marketers';
  if (/data|analytics/.test(t)) return 'analysts and data scientists';
  if (/hr|people|talent|human/.test(t)) return 'HR and people partners';
  if (/financ|cfo|account|controller/.test(t)) return 'finance staff';
  if (/design|ux/.test(t)) return 'designers';
  if (/product/.test(t)) return 'product managers';
  if (/customer|success|support/.test(t)) return 'customer success managers';
  return 'people';
}

/**
 * A person's page facts, drawn from their profile slug. About a third of pages state a team: half of the
 * leaders' pages say how many people they lead (about 70% of those ten or more, the rest a small team),
 * a quarter of the others say the size of the team they work in (which proves nothing about leading).
 * The team is drawn from a stream of its own, so talks and articles are what they were before it was added.
 */
export function personFacts(slug: string, title = ''): PersonFacts {
  const r = draw(`person:${slug}`);
  const talks = r.chance(0.3) ? Array.from({ length: r.int(1, 2) }, () => ({ conference: r.pick(CONFERENCES), title: r.pick(TALK_TOPICS), daysAgo: r.int(20, 700) })) : [];
  const articles = r.chance(0.2) ? [{ title: r.pick(TALK_TOPICS), outlet: r.pick(OUTLETS), daysAgo: r.int(5, 500) }] : [];
  const t = draw(`team:${slug}`);
  const leader = LEADER_TITLE.test(title);
  let team: PersonFacts['team'] = null;
  if (leader && t.chance(0.5)) team = { size: t.chance(0.7) ? t.int(10, 80) : t.int(2, 9), led: true, of: teamOf(title) };
  else if (!leader && t.chance(0.25)) team = { size: t.int(4, 30), led: false, of: teamOf(title) };
  return { talks, articles, team };
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const dayOf = (today: Date, daysAgo: number) => new Date(today.getTime() - daysAgo * 86_400_000).toISOString().slice(0, 10);

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title></head><body><h1>${esc(title)}</h1>${body}</body></html>`;
}

function article(headline: string, date: string, text: string): string {
  return `<article><h2>${esc(headline)}</h2><time datetime="${date}">${date}</time><p>${esc(text)}</p></article>`;
}

interface SiteEntry {
  company: Company;
  people: Map<string, { full_name: string; title: string }>;
}

/** One page of a site, or null (404). `today` anchors every date. */
export function renderSitePage(site: SiteEntry, path: string, today: Date): { contentType: string; body: string } | null {
  const { company } = site;
  const f = siteFacts(company);
  const html = (title: string, body: string) => ({ contentType: 'text/html; charset=utf-8', body: page(title, body) });
  switch (path) {
    case '/robots.txt':
      return { contentType: 'text/plain', body: `User-agent: *\nDisallow: /private/\n${f.robotsBlockTeam ? 'Disallow: /team/\n' : ''}` };
    case '/':
      return html(company.name, `<p>${esc(company.name)}: ${esc(company.industry)}.</p><nav><a href="/about/">About</a> <a href="/news/">News</a> <a href="/careers/">Careers</a> <a href="/stack/">Stack</a></nav>`);
    case '/about/':
      return html(`About ${company.name}`, `<p>${esc(company.name)} was founded in ${f.founded} and is headquartered in ${esc(company.hq.city)}, ${esc(company.hq.country)}. We work in ${esc(company.industry)} and employ about ${company.employee_count} people.</p>`);
    case '/news/': {
      const posts = [
        ...f.funding.map((x) => ({ d: x.daysAgo, h: `${company.name} raises $${x.amountMillions}M ${x.round}`, t: `${company.name} closed a $${x.amountMillions}M ${x.round} funding round led by ${x.investor}.` })),
        ...f.launches.map((x) => ({ d: x.daysAgo, h: `Launching ${x.product}`, t: `${company.name} launched ${x.product}, its new product.` })),
        ...f.offices.map((x) => ({ d: x.daysAgo, h: `${company.name} opens an office in ${x.city}`, t: `${company.name} opened a new office in ${x.city}.` })),
        ...f.leadership.map((x) => ({ d: x.daysAgo, h: `${company.name} appoints ${x.name} as ${x.role}`, t: `${x.name} joins ${company.name} as ${x.role}, a leadership change.` })),
      ].sort((a, b) => a.d - b.d);
      const own = f.bootstrapped ? `<article><h2>How ${esc(company.name)} is funded</h2><p>${esc(company.name)} is bootstrapped: it has never raised outside funding and is funded by its customers.</p></article>` : '';
      return html(`${company.name} news`, posts.map((p) => article(p.h, dayOf(today, p.d), p.t)).join('') + own || '<p>No news yet.</p>');
    }
    case '/careers/':
      return html(`Careers at ${company.name}`, f.jobs.map((j) => article(j.title, dayOf(today, j.daysAgo), `We are hiring a ${j.title} in ${j.city}.`)).join('') || '<p>No open positions right now.</p>');
    case '/stack/':
      return html(`${company.name} tech stack`, `<p>The tools we build and run ${esc(company.name)} on:</p><ul>${f.stack.map((t) => `<li>${esc(t)}</li>`).join('')}</ul>`);
  }
  const team = /^\/team\/([a-z0-9-]+)\/$/.exec(path);
  const person = team ? site.people.get(team[1]!) : undefined;
  if (!team || !person) return null;
  const pf = personFacts(team[1]!, person.title);
  const said = pf.team && (pf.team.led ? ` ${person.full_name} leads a team of ${pf.team.size} ${pf.team.of}.` : ` ${person.full_name} works in a team of ${pf.team.size} ${pf.team.of}.`);
  const body = [
    `<article><h2>About ${esc(person.full_name)}</h2><p>${esc(person.full_name)} is ${esc(person.title)} at ${esc(company.name)}.${esc(said ?? '')}</p></article>`,
    ...pf.talks.map((t) => article(`Talk at ${t.conference}: ${t.title}`, dayOf(today, t.daysAgo), `${person.full_name} spoke at ${t.conference} on "${t.title}".`)),
    ...pf.articles.map((a) => article(`Article: ${a.title}`, dayOf(today, a.daysAgo), `${person.full_name} wrote "${a.title}", published in ${a.outlet}.`)),
  ].join('');
  return html(person.full_name, body);
}

export interface SampleWeb {
  port: number;
  /** Every page served, in order (`https://host/path`), for tests that check what was really read. */
  served: string[];
  stop(): Promise<void>;
}

async function loadSites(): Promise<Map<string, SiteEntry>> {
  const sites = new Map<string, SiteEntry>();
  const byId = new Map<string, SiteEntry>();
  for await (const r of await readDirectory()) {
    if (r.type === 'company') {
      const entry = { company: r, people: new Map() };
      sites.set(r.domain, entry);
      byId.set(r.id, entry);
    } else {
      byId.get(r.company_id)?.people.set(personSlug(r), { full_name: r.full_name, title: r.current_job_title });
    }
  }
  return sites;
}

/** Serve the sample web on a loopback port. The directory is read on the first request (DIRECTORY_FILE). */
export async function startSampleWeb(opts: { port?: number; clock?: Clock } = {}): Promise<SampleWeb> {
  const clock = opts.clock ?? serviceClock;
  let sites: Promise<Map<string, SiteEntry>> | undefined;
  const served: string[] = [];
  const server: Server = createServer((req, res) => {
    const host = (req.headers.host ?? '').toLowerCase().replace(/:\d+$/, '');
    const path = (req.url ?? '/').split('?')[0]!;
    sites ??= loadSites().catch((e: unknown) => {
      sites = undefined;
      throw e;
    });
    sites
      .then((all) => {
        if (path === SAMPLE_WEB_HOSTS_PATH) {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify([...all.keys()]));
          return;
        }
        const site = all.get(host);
        const today = new Date(clock.now().toISOString().slice(0, 10));
        const out = site ? renderSitePage(site, path, today) : null;
        served.push(`https://${host}${path}`);
        if (!out) {
          res.writeHead(404, { 'content-type': 'text/plain' });
          res.end('not found');
          return;
        }
        res.writeHead(200, { 'content-type': out.contentType });
        res.end(out.body);
      })
      .catch(() => {
        res.writeHead(503);
        res.end();
      });
  });
  await new Promise<void>((r) => server.listen(opts.port ?? 0, '127.0.0.1', r));
  return {
    port: (server.address() as { port: number }).port,
    served,
    stop: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
