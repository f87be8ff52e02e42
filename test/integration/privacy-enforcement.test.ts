/**
 * Opt-outs and erasure enforced everywhere (docs/privacy.md), on the real local stack with no workers running:
 * the test takes each job's message off the search queue and runs it, and plays the send worker by hand. The
 * opt-outs are recorded with the domain function the privacy request's confirm calls (`recordOptOut`); the HTTP
 * round trip of a request is test/e2e/privacy-opt-out.test.ts.
 *
 * - people search: an opted-out person is in no page (a new search, a continuation of a search made before the
 *   opt-out), the page still fills to its size, and only the people returned are charged;
 * - deep search's shortlist fills past them; agentic search passes over a shortlisted candidate and drops a lead
 *   saved before the opt-out (and its price);
 * - enrichment (email, profile URL, profile, phone, bulk) answers them not found at the price of a miss;
 * - sequences (two accounts) and the web app's contact check reject the address as `opted_out`; POST /emails/
 *   refuses it as it refuses an unsubscribed recipient; an email queued before the opt-out is cancelled unsent
 *   and a sequence step ends its enrollment; a send records the account in the privacy table.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../shared/adapters/aws.js';
import { logger } from '../../shared/core/logger.js';
import { tableName } from '../../shared/catalog/resource-names.js';
import { createSendingAccount } from '../../shared/accounts/sending-accounts.repository.js';
import { createAccount, getAccount } from '../../shared/accounts/accounts.repository.js';
import { PRICES } from '../../shared/accounts/prices.js';
import { runAgenticStep } from '../../shared/agentic/research-step.js';
import type { AgenticJob } from '../../shared/agentic/model.js';
import type { Person } from '../../shared/directory/types.js';
import { getJob } from '../../shared/jobs/jobs.repository.js';
import { createEmail } from '../../shared/outreach/create-email.js';
import { draftEmail } from '../../shared/outreach/drafting.js';
import { getEmail } from '../../shared/outreach/emails.repository.js';
import { approveEmail } from '../../shared/outreach/review.js';
import { sendEmail } from '../../shared/outreach/send-email.js';
import { addressHash, emailedSummary, recordOptOut } from '../../shared/privacy/opt-outs.repository.js';
import { runBulkEnrichJob } from '../../shared/enrichment/bulk-job.js';
import { runPhoneEnrichJob } from '../../shared/enrichment/phone-job.js';
import { runDeepSearchJob } from '../../shared/search/deep-search.js';
import { runPeopleSearchJob } from '../../shared/search/people-search-run.js';
import { optedOutCheck, visiblePage } from '../../shared/search/visible-page.js';
import { deepShortlist } from '../../shared/search-engine/deep-search-shortlist.js';
import { peopleIndex } from '../../shared/search-engine/index-source.js';
import { parseQuery } from '../../shared/search-engine/query.js';
import { cursorAfter } from '../../shared/search-engine/search-port.js';
import { normalizeProfessionalUrl } from '../../shared/directory/urls.js';
import type { Scheduler } from '../../shared/adapters/scheduler.js';
import { newTenant, startTestServices, type TestServices } from '../support/local.js';
import { drainQueue, dynamoCallCounter } from '../support/probes.js';

let services: TestServices;
let people: Person[];
let counted: ReturnType<typeof dynamoCallCounter>;
const hook = 'http://127.0.0.1:9/hook';

const level = logger.getLevelName();
beforeAll(async () => {
  // The import and the workers log each step: quiet while passing.
  logger.setLogLevel('ERROR');
  services = await startTestServices({ workers: false, throttleMultiplier: 1000, directory: { people: 3000, seed: 7 } });
  people = (await services.readDirectory()).people;
  counted = dynamoCallCounter('privacy-enforcement-count');
}, 180_000);
afterAll(async () => {
  await services?.stop();
  logger.setLogLevel(level);
});

const stack = () => services.stack;
const admin = () => services.admin;
const charges = async (accountId: string, reference: string) => ((await admin().console('GET', `accounts/${accountId}/charges/`)).body.results as any[]).filter((c) => c.reference === reference);
const bare = (p: Person) => normalizeProfessionalUrl(p.professional_url)!;
const byUrl = (url: string) => people.find((p) => bare(p) === normalizeProfessionalUrl(url))!;
/** What the privacy request's confirm records for a directory person (shared/privacy-requests/privacy-requests.ts). */
const optOut = (p: Person, request: 'opt_out' | 'erase' = 'opt_out') => recordOptOut({ email: p.work_email!, profiles: [bare(p)], request, at: new Date().toISOString() });
/** An opt-out of an address nobody in the directory holds. */
const optOutAddress = (email: string) => recordOptOut({ email, profiles: [], request: 'opt_out', at: new Date().toISOString() });

/** Every search-queue message now waiting run as the search worker would (agentic steps are left to their tests). */
async function runSearchQueue(): Promise<void> {
  for (const m of await drainQueue(stack(), 'search')) {
    if (m.kind === 'people_search') await runPeopleSearchJob(m.job_id, null);
    else if (m.kind === 'deep_search') await runDeepSearchJob(m.job_id, null);
    else if (m.kind === 'phone_enrich') await runPhoneEnrichJob(m.job_id, null);
    else if (m.kind === 'bulk_enrich') await runBulkEnrichJob(m.job_id, null);
  }
}

async function searched(client: any, body: Record<string, unknown>) {
  const r = await client.api('POST', 'search/', { webhook_url: hook, ...body });
  expect(r.status).toBe(202);
  await runSearchQueue();
  const job = await getJob(r.body.id);
  expect(job!.status).toBe('completed');
  return { id: r.body.id as string, results: (job!.result as any).results as any[] };
}

describe('search', () => {
  test('a page reads the opt-outs once per engine call (BatchGetItem), and again only for what it must fill', async () => {
    const index = await peopleIndex();
    const q = parseQuery('managers');
    const ranked = (await index.search(q, { limit: 200 })).filter((h, i) => i >= 100 || h.person.work_email);
    expect(ranked.length).toBeGreaterThan(130);
    const clean = await counted(() => visiblePage(index, q, { limit: 100 }));
    expect(clean.calls).toEqual(['BatchGetItemCommand', 'BatchGetItemCommand']); // 200 keys: two requests, sent together
    expect(clean.value.hits).toHaveLength(100);
    const small = await counted(() => visiblePage(index, q, { limit: 25 }));
    expect(small.calls).toEqual(['BatchGetItemCommand']);
    const page = (await index.search(q, { limit: 27 }));
    const [x, y] = [page[0]!.person, page.slice(10).find((h) => h.person.work_email)!.person];
    await optOut(x.work_email ? x : page.find((h) => h.person.work_email)!.person);
    await optOut(y);
    const gone = new Set([x.work_email ? x.id : page.find((h) => h.person.work_email)!.person.id, y.id]);
    const filled = await counted(() => visiblePage(index, q, { limit: 25 }));
    // The page, then the two it lacks after the page's last hit.
    expect(filled.calls).toEqual(['BatchGetItemCommand', 'BatchGetItemCommand']);
    expect(filled.value.hidden).toBe(2);
    expect(filled.value.hits.map((h) => h.person.id)).toEqual(page.map((h) => h.person.id).filter((id) => !gone.has(id)));
    expect(filled.value.after).toEqual(cursorAfter(page));
  }, 60_000);

  test('people search: an opted-out person is in no page, new or continued; the page fills to its size; only the people returned are charged', async () => {
    const t = await newTenant(stack(), { credits: 10_000 }, { webhookSecret: true });
    const query = 'software engineers';
    const index = await peopleIndex();
    const ranked = await index.search(parseQuery(query), { limit: 200 });
    expect(ranked.length).toBeGreaterThan(60);

    // The first page, made before any opt-out.
    const first = await searched(t.client, { query, max_results: 25 });
    expect(first.results.map((r) => byUrl(r.professional_url).id)).toEqual(ranked.slice(0, 25).map((h) => h.person.id));

    // One person of that first page and one of the page that would follow opt out.
    const onFirst = ranked.slice(2).find((h) => h.person.work_email)!.person;
    const onSecond = ranked.slice(30).find((h) => h.person.work_email)!.person;
    expect(ranked.findIndex((h) => h.person.id === onSecond.id)).toBeLessThan(50);
    await optOut(onFirst);
    await optOut(onSecond);

    // The same search now: the page still holds 25, without the one who opted out; 25 charged.
    const again = await searched(t.client, { query, max_results: 25 });
    const againIds = again.results.map((r) => byUrl(r.professional_url).id);
    expect(againIds).toEqual(ranked.slice(0, 26).map((h) => h.person.id).filter((id) => id !== onFirst.id));
    expect((await charges(t.accountId, again.id)).map((c) => c.charged)).toEqual([25 * PRICES.people_search_per_lead]);

    // The continuation of the search made before the opt-out skips the other, and still holds 25, none of the first page.
    const next = await searched(t.client, { search_id: first.id, max_results: 25 });
    const nextIds = next.results.map((r) => byUrl(r.professional_url).id);
    expect(nextIds).toEqual(ranked.slice(25, 51).map((h) => h.person.id).filter((id) => id !== onSecond.id));
    // ...and the page after it continues exactly where it stopped: nobody repeated, nobody skipped.
    const third = await searched(t.client, { search_id: next.id, max_results: 25 });
    expect(third.results.map((r) => byUrl(r.professional_url).id)).toEqual(ranked.slice(51, 76).map((h) => h.person.id));
  }, 120_000);

  test('people search: a search with fewer matches than its size returns and charges the people left after the opt-out', async () => {
    const t = await newTenant(stack(), { credits: 10_000 }, { webhookSecret: true });
    const index = await peopleIndex();
    // A title in one city: a handful of people.
    let query = '';
    let matches: Awaited<ReturnType<typeof index.search>> = [];
    for (const p of people) {
      const q = `${p.current_job_title} in ${p.location.city}`;
      matches = await index.search(parseQuery(q), { limit: 200 });
      if (matches.length >= 4 && matches.length <= 60 && matches[1]!.person.work_email) {
        query = q;
        break;
      }
    }
    expect(query).not.toBe('');
    await optOut(matches[1]!.person);
    const r = await searched(t.client, { query, max_results: 100 });
    expect(r.results.map((x) => byUrl(x.professional_url).id)).toEqual(matches.filter((_, i) => i !== 1).map((h) => h.person.id));
    expect((await charges(t.accountId, r.id)).map((c) => c.charged)).toEqual([(matches.length - 1) * PRICES.people_search_per_lead]);
  }, 120_000);

  test("deep search: the shortlist leaves out an opted-out person and fills past them; the run's results too", async () => {
    const index = await peopleIndex();
    const q = parseQuery('sales directors');
    const asOf = new Date();
    const before = await deepShortlist(index, q, { size: 25, asOf });
    expect(before).toHaveLength(25);
    const gone = before.slice(3).find((e) => e.person.work_email)!.person;
    await optOut(gone);
    const after = await deepShortlist(index, q, { size: 25, asOf, hidden: optedOutCheck });
    const wider = await deepShortlist(index, q, { size: 26, asOf });
    expect(after.map((e) => e.person.id)).toEqual(wider.map((e) => e.person.id).filter((id) => id !== gone.id));

    const t = await newTenant(stack(), { credits: 10_000 }, { webhookSecret: true });
    const r = await t.client.api('POST', 'deep-search/', { query: 'sales directors', webhook_url: hook });
    expect(r.status).toBe(202);
    await runSearchQueue();
    const job = await getJob(r.body.id);
    const urls = ((job!.result as any).results as any[]).map((x) => normalizeProfessionalUrl(x.professional_url));
    expect(urls).toHaveLength(25);
    expect(urls).not.toContain(bare(gone));
  }, 120_000);

  test('agentic search: a shortlisted candidate who opts out is never evaluated, and a lead saved before an opt-out is dropped from the result and its price', async () => {
    const t = await newTenant(stack(), { agentic_search: true, credits: 5000 }, { webhookSecret: true });
    const r = await t.client.api('POST', 'agentic-search/', { query: 'Software engineers', target_results: 50, max_credits: 2000, webhook_url: hook });
    expect(r.status).toBe(202);
    const step = async () => {
      const [m] = (await drainQueue(stack(), 'search')).filter((x) => x.kind === 'agentic_step');
      await runAgenticStep(m!.job_id, (m as any).step);
    };
    await step();
    const saved = (await getJob(r.body.id)) as AgenticJob;
    const shortlist = saved.shortlist!;
    const entry = (id: string) => people.find((p) => p.id === id)!;
    // Every candidate qualifies here, so a slice's leads are its candidates but those who opted out (earlier tests).
    const visible = async (ids: string[]) => (await optedOutCheck(ids.map(entry))).filter((out) => !out).length;
    expect(saved.checkpoint).toMatchObject({ cursor: 25, leads: await visible(shortlist.slice(0, 25)) });
    // A lead already saved, and a candidate of the next step's slice, opt out.
    const savedLead = byUrl(saved.agentic_results!.find((x) => byUrl(x.professional_url!).work_email)!.professional_url!);
    const candidate = shortlist.slice(26, 50).map(entry).find((p) => p.work_email)!;
    const secondBefore = await visible(shortlist.slice(25, 50));
    await optOut(savedLead);
    await optOut(candidate);
    await step();
    const after = (await getJob(r.body.id)) as AgenticJob;
    // The second slice gave one lead fewer: the candidate who opted out was passed over.
    const leads = saved.checkpoint.leads + secondBefore - 1;
    expect(after.checkpoint).toMatchObject({ leads, cursor: 50, charged: 100 + leads * 10 });
    expect(after.agentic_results!.map((x) => normalizeProfessionalUrl(x.professional_url!))).not.toContain(bare(candidate));
    expect(after.agentic_results!.map((x) => normalizeProfessionalUrl(x.professional_url!))).toContain(bare(savedLead));

    const c = await t.client.api('POST', `agentic-search/${r.body.id}/cancel/`);
    expect(c.body.status).toBe('completed');
    const done = await getJob(r.body.id);
    const results = (done!.result as any).results as any[];
    expect(results).toHaveLength(leads - 1);
    expect(results.map((x) => normalizeProfessionalUrl(x.professional_url))).not.toContain(bare(savedLead));
    expect((done!.result as any).total_returned).toBe(leads - 1);
    expect((await charges(t.accountId, r.body.id)).map((x) => [x.charged, x.charge_status])).toEqual([[100 + (leads - 1) * 10, 'charged']]);
  }, 180_000);
});

describe('enrichment', () => {
  test('email, profile URL and profile lookups answer an opted-out person 404 not_found at the full price of a miss', async () => {
    const t = await newTenant(stack(), { credits: 1000 });
    const [a, b] = people.filter((p) => p.work_email && p.phone).slice(40, 42) as [Person, Person];
    // Found before.
    expect((await t.client.api('POST', 'enrich/email/', { professional_url: a.professional_url })).status).toBe(200);
    await optOut(a);
    const balance = async () => (await getAccount(t.accountId))!.balance;
    const start = await balance();
    const email = await t.client.api('POST', 'enrich/email/', { professional_url: a.professional_url });
    expect([email.status, email.body.error?.code]).toEqual([404, 'not_found']);
    const url = await t.client.api('POST', 'enrich/professional-url/', { email: a.work_email });
    expect([url.status, url.body.error?.code]).toEqual([404, 'not_found']);
    const profile = await t.client.api('POST', 'enrich/professional-profile/', { professional_url: a.professional_url });
    expect([profile.status, profile.body.error?.code]).toEqual([404, 'not_found']);
    expect(start - (await balance())).toBe(PRICES.email_enrich + PRICES.professional_url_enrich + PRICES.professional_profile_enrich);
    // Someone else is still found.
    expect((await t.client.api('POST', 'enrich/professional-profile/', { professional_url: b.professional_url })).status).toBe(200);
  }, 60_000);

  test('phone and bulk enrichment: an opted-out person is a miss (phone: free), charged as a miss', async () => {
    const t = await newTenant(stack(), { credits: 1000 }, { webhookSecret: true });
    const [a, b] = people.filter((p) => p.work_email && p.phone).slice(50, 52) as [Person, Person];
    await optOut(a);
    const phone = await t.client.api('POST', 'enrich/phone/', { professional_url: a.professional_url, webhook_url: hook });
    expect(phone.status).toBe(202);
    const bulk = await t.client.api('POST', 'enrich/bulk/', {
      webhook_url: hook,
      items: [
        { kind: 'email', professional_url: a.professional_url },
        { kind: 'phone', email: a.work_email },
        { kind: 'professional_profile', professional_url: b.professional_url },
      ],
    });
    expect(bulk.status).toBe(202);
    await runSearchQueue();
    const phoneJob = await getJob(phone.body.id);
    expect([phoneJob!.status, (phoneJob!.result as any).phone]).toEqual(['completed', null]);
    expect((await charges(t.accountId, phone.body.id)).map((c) => c.charged)).toEqual([0]);
    const items = ((await getJob(bulk.body.id))!.result as any).results as any[];
    expect(items.map((x) => [x.status, x.credits_charged])).toEqual([
      ['not_found', PRICES.email_enrich],
      ['not_found', 0],
      ['found', PRICES.professional_profile_enrich],
    ]);
  }, 60_000);
});

describe('outreach', () => {
  let n = 0;
  const prospect = () => `optout${++n}.${Date.now()}@prospect.test`;
  const contact = (email: string) => ({ email, first_name: 'Jane', last_name: 'Doe', company_name: 'Acme Robotics' });

  /** The drafting queue run by hand (no workers here) until it is empty. */
  async function runDrafting(): Promise<void> {
    const { draftingHandlers } = await import('../../shared/workers/drafting.handlers.js');
    const { handleRecord } = await import('../../shared/workers/dispatch.js');
    const { sqsRecord } = await import('../support/probes.js');
    for (let round = 0; round < 20; round++) {
      const ms = await drainQueue(stack(), 'drafting');
      if (!ms.length) return;
      for (const [i, m] of ms.entries()) await handleRecord('drafting', draftingHandlers, sqsRecord(`d${round}-${i}-${Date.now()}`, m, 'local-drafting'));
    }
  }

  /** Drafting runs here and in the stack's own queue runner: wait until the pass has ended, whoever ran it (409 while it runs). */
  async function draftingDone(account: { client: { api: (m: string, p: string) => Promise<{ status: number; body: { status?: string } }> } }, id: string): Promise<void> {
    for (let i = 0; i < 600; i++) {
      await runDrafting();
      const s = await account.client.api('GET', `sequences/${id}/`);
      if (s.status === 200 && s.body.status !== 'drafting') return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`sequence ${id} still drafting after 60 s`);
  }

  async function sender(account: Record<string, unknown> = {}) {
    const t = await newTenant(stack(), { credits: 1000, ...account });
    await admin().console('POST', `accounts/${t.accountId}/sending-accounts/`, { email: `rep${++n}@seller.test`, type: 'google' });
    return t;
  }

  test('sequences in two accounts reject an opted-out address as opted_out; the others are accepted', async () => {
    const out = prospect();
    const person = people.find((p) => p.work_email)!;
    await optOutAddress(out);
    await optOut(person);
    for (const account of [await sender(), await sender()]) {
      const fine = prospect();
      const r = await account.client.api('POST', 'sequences/', { instructions: 'Introduce our platform and ask for a call.', contacts: [contact(out), contact(fine), contact(person.work_email!.toUpperCase())] });
      expect(r.status).toBe(202);
      expect(r.body.contacts_rejected).toEqual([
        { contact: contact(out), reason: 'opted_out' },
        { contact: contact(person.work_email!.toUpperCase()), reason: 'opted_out' },
      ]);
      expect(r.body.contacts_accepted).toBe(1);
      await draftingDone(account, r.body.id);
      const add = await account.client.api('POST', `sequences/${r.body.id}/contacts/`, { contacts: [contact(out), contact(prospect())] });
      expect([add.status, add.body.contacts_accepted, add.body.contacts_rejected]).toEqual([202, 1, [{ contact: contact(out), reason: 'opted_out' }]]);
      await draftingDone(account, r.body.id);
      const none = await account.client.api('POST', `sequences/${r.body.id}/contacts/`, { contacts: [contact(out)] });
      expect([none.status, none.body.error?.details]).toEqual([400, [{ path: 'contacts.0', message: 'opted_out' }]]);
    }
  }, 120_000);

  test("the web app's contact check reports an opted-out address as opted_out", async () => {
    const out = prospect();
    await optOutAddress(out);
    const t = await newTenant(stack(), { credits: 100 });
    const { checkContacts } = await import('../../shared/sequences/check-contacts.js');
    const r = await checkContacts(t.accountId, { contacts: [contact(prospect()), contact(out)], steps: 3 });
    expect(r.results.map((x) => x.reason)).toEqual([null, 'opted_out']);
    expect(r.eligible).toBe(1);
  }, 60_000);

  test('POST /emails/ refuses an opted-out recipient as it refuses an unsubscribed one: 400 invalid_request on to.email, nothing reserved', async () => {
    const t = await sender();
    const out = prospect();
    await optOutAddress(out);
    const before = (await getAccount(t.accountId))!.balance;
    const r = await t.client.api('POST', 'emails/', { to: contact(out), instructions: 'Introduce our platform and ask for a call.' });
    expect(r.status).toBe(400);
    expect(r.body.error).toEqual({ code: 'invalid_request', message: 'The recipient has opted out of all outreach through this service.', details: [{ path: 'to.email', message: 'opted out' }] });
    expect((await getAccount(t.accountId))!.balance).toBe(before);
    expect((await t.client.api('POST', 'emails/', { to: contact(prospect()), instructions: 'Introduce our platform and ask for a call.' })).status).toBe(202);
  }, 60_000);

  const scheduler: Scheduler = { scheduleAt: async () => {}, cancel: async () => {} };
  async function queuedEmail(to: string) {
    const a = await createAccount({ name: 'w', credits: 100, public_api: true, agentic_search: false, pilot: false, auto_recharge: false }, { pilotLimit: 3 });
    await createSendingAccount(a.id, { email: `rep-${a.id}@seller.test`, type: 'google', connected: true, sending_enabled: true, daily_limit: 50, health: 'healthy', timezone: 'UTC' });
    const { id } = await createEmail(a.id, { to: { email: to, first_name: 'Ada' }, instructions: 'Introduce our analytics product and ask for a call.', cc: [], bcc: [], review: 'required' });
    await draftEmail(a.id, id, null, { scheduler });
    await approveEmail(a.id, id, { schedule: 'now' }, { scheduler });
    expect((await getEmail(a.id, id))!.status).toBe('queued');
    return { accountId: a.id, id };
  }

  test('an email queued before the opt-out is cancelled by the send worker, unsent; a sent one is recorded for access requests, once under redelivery', async () => {
    const out = prospect();
    const queued = await queuedEmail(out);
    const other = await queuedEmail(out);
    await optOutAddress(out);
    const sentBefore = stack().sentMail.length;
    const cost = await counted(() => sendEmail(queued.accountId, queued.id));
    expect(cost.calls.filter((c) => c === 'BatchGetItemCommand')).toHaveLength(1);
    const e = await getEmail(queued.accountId, queued.id);
    expect([e!.status, e!.error?.code, e!.sent_at]).toEqual(['cancelled', 'opted_out', null]);
    await sendEmail(other.accountId, other.id);
    expect((await getEmail(other.accountId, other.id))!.status).toBe('cancelled');
    expect(stack().sentMail.length).toBe(sentBefore);

    // A send to someone else is recorded (hashes only), and a redelivery of its message keeps one record.
    const to = prospect();
    const ok = await queuedEmail(to);
    await sendEmail(ok.accountId, ok.id);
    const sent = await getEmail(ok.accountId, ok.id);
    expect(sent!.status).toBe('sent');
    await sendEmail(ok.accountId, ok.id);
    expect(await emailedSummary(to, '2000-01-01T00:00:00.000Z')).toEqual({ accounts_that_emailed: 1, last_emailed_at: sent!.sent_at });
    const rows = await documentClient().send(new QueryCommand({ TableName: tableName('privacy'), KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': `EMAILED#${addressHash(to)}` } }));
    expect(rows.Items).toHaveLength(1);
    expect(JSON.stringify(rows.Items)).not.toContain(to);
  }, 120_000);

  test('a queued sequence step to an address that opts out is cancelled unsent and ends its enrollment like an unsubscribe', async () => {
    const t = await sender();
    const out = prospect();
    const r = await t.client.api('POST', 'sequences/', { instructions: 'Introduce our platform and ask for a call.', contacts: [contact(out)], review: 'none' });
    expect(r.status).toBe(202);
    await runDrafting();
    const seq = (await t.client.api('GET', `sequences/${r.body.id}/`)).body;
    const enrollment = seq.enrollments.find((x: any) => x.contact.email === out);
    expect(enrollment.status).toBe('active');
    const [first, ...later] = enrollment.emails.map((e: any) => e.id as string);
    expect(later.length).toBeGreaterThan(0);
    const step = (await getEmail(t.accountId, first!))!;
    expect(step.status).toBe('queued');
    await optOutAddress(out);
    const sentBefore = stack().sentMail.length;
    // Its send slot comes.
    const at = new Date(step.scheduled_for ?? Date.now());
    await sendEmail(t.accountId, first!, { scheduler, clock: { now: () => at } });
    expect(stack().sentMail.length).toBe(sentBefore);
    const after = (await t.client.api('GET', `sequences/${r.body.id}/`)).body;
    const ended = after.enrollments.find((x: any) => x.contact.email === out);
    expect(ended.status).toBe('cancelled');
    expect(ended.emails.map((e: any) => [e.status, e.error?.code])).toEqual([['cancelled', 'opted_out'], ...later.map(() => ['cancelled', 'opted_out'])]);
  }, 180_000);
});
