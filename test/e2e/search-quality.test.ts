/**
 * People search quality over HTTP, as a client sees it: a word the directory does not know is
 * never dropped (an unknown role in a known place returns nothing and costs nothing), stop words
 * never constrain, and `parsed_query` accounts for every term.
 */
import type { LocalStack } from '../../shared/local/stack.js';
import type { Person } from '../../shared/directory/types.js';
import { Client, newTenant, reply, startTestServices, type TestServices } from '../support/local.js';
import type { WebhookReceiver } from '../support/webhook-receiver.js';
import { rolesAskedFor, titleNames } from '../unit/search/title-oracle.js';

let services: TestServices | undefined;
let stack: LocalStack;
let receiver: WebhookReceiver;
let admin: Client;
let people: Person[] = [];

beforeAll(async () => {
  const started = await startTestServices({ throttleMultiplier: 1000, directory: { people: 1500, seed: 7 }, webhookReceiver: true });
  ({ stack, admin, receiver } = services = started);
  ({ people } = await started.readDirectory());
}, 180_000); // the stack, generation and import share two cores with the rest of the suite
afterAll(async () => services?.stop());

const tenant = () => newTenant(stack, {}, { webhookReceiver: receiver });

/** Runs one search to completion and returns the polled job with the account's charges. */
async function searchFor(query: string) {
  const t = await tenant();
  const before = (await admin.console('GET', `accounts/${t.accountId}/`)).body.balance as number;
  const accepted = await reply(t.client.typed.POST('/api/public/v1/search/', { body: { query, max_results: 25, webhook_url: receiver.url } }));
  expect(accepted.status).toBe(202);
  expect((await admin.console('POST', 'dev/settle/')).body).toEqual({ idle: true });
  const job = (await reply(t.client.typed.GET('/api/public/v1/search/{job_id}/', { params: { path: { job_id: accepted.body.id } } }))).body;
  const after = (await admin.console('GET', `accounts/${t.accountId}/`)).body.balance as number;
  const charges = (await admin.console('GET', `accounts/${t.accountId}/charges/`)).body.results as any[];
  return { id: accepted.body.id as string, job, spent: before - after, charges };
}

describe('people search you can trust', () => {
  test('an unknown role in a known place completes with zero leads and a zero_result charge', async () => {
    // The place alone matches people here, so only the unknown word can empty the result.
    expect(people.some((p) => p.location.country_code === 'US')).toBe(true);
    const { id, job, spent, charges } = await searchFor('astronauts in the United States');
    expect(job.status).toBe('completed');
    expect(job.result).toEqual({ results: [], total_returned: 0 });
    expect(job.leads_returned).toBe(0);
    expect(spent).toBe(0);
    expect(charges).toHaveLength(1);
    expect(charges[0]).toMatchObject({ operation: 'people_search', reference: id, reserved: 25, charged: 0, charge_status: 'zero_result' });
    expect(job.parsed_query.keywords).toEqual(['astronauts']);
    expect(job.parsed_query.locations).toEqual([{ country: 'US' }]);
    expect(job.parsed_query.terms).toContainEqual({ text: 'astronauts', use: 'keyword', value: 'astronauts' });
    expect(receiver.for(id)[0]!.body).toEqual({ id, event_type: 'search.completed', results: [], total_returned: 0 });
  });

  test('stop words and verbs never constrain; parsed_query says how each term was used', async () => {
    const { job, spent } = await searchFor('software engineers who know Python in the United States');
    expect(job.status).toBe('completed');
    expect(job.parsed_query.keywords).toEqual(['python']);
    const uses = Object.fromEntries(job.parsed_query.terms.map((t: any) => [t.text, [t.use, t.reason ?? t.value]]));
    expect(uses).toMatchObject({
      'software engineers': ['title', 'Software Engineer'],
      who: ['ignored', 'stop word'],
      know: ['ignored', 'stop word'],
      Python: ['keyword', 'python'],
      'United States': ['location', 'US'],
    });
    const expectedLeads = people.filter(
      (p) => p.location.country_code === 'US' && /\b(Software Engineer|Frontend Engineer|Backend Engineer|Full Stack Developer|Mobile Developer|Principal Engineer)\b/.test(p.current_job_title) && (p.skills.includes('Python') || /\bpython\b/i.test(p.headline)),
    );
    expect(expectedLeads.length).toBeGreaterThan(0);
    expect(job.result.total_returned).toBe(Math.min(25, job.result.results.length));
    expect(job.result.results.length).toBeGreaterThan(0);
    const urls = new Set(expectedLeads.map((p) => p.professional_url));
    for (const lead of job.result.results) expect(urls.has(lead.professional_url)).toBe(true);
    expect(spent).toBe(job.result.results.length);
  });

  test('a role finds its documented equivalents, and parsed_query.terms lists the variants searched', async () => {
    const { job, spent } = await searchFor('HR managers in the United States');
    expect(job.status).toBe('completed');
    const variants = ['HR Manager', 'People Operations Manager', 'HR Business Partner', 'HR Director', 'Director of People', 'Head of People', 'VP of Human Resources', 'VP of People'];
    expect(rolesAskedFor('HR Manager')).toEqual(variants);
    expect(job.parsed_query.titles).toEqual(variants);
    expect(job.parsed_query.terms).toContainEqual({ text: 'HR managers', use: 'title', value: 'HR Manager', variants });
    // Labels from the oracle over the raw records, never from the engine.
    const isHrManager = titleNames('HR Manager');
    const expectedLeads = people.filter((p) => p.location.country_code === 'US' && isHrManager(p.current_job_title));
    expect(new Set(expectedLeads.map((p) => p.current_job_title)).size).toBeGreaterThan(1); // more than the one title asked for
    expect(job.result.results.length).toBe(Math.min(25, expectedLeads.length));
    const urls = new Set(expectedLeads.map((p) => p.professional_url));
    for (const lead of job.result.results) expect(urls.has(lead.professional_url)).toBe(true);
    expect(spent).toBe(job.result.results.length);
  });
});
