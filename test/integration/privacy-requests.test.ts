import { createHash } from 'node:crypto';
import { GetCommand, QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../shared/adapters/aws.js';
import { tableName } from '../../shared/catalog/resource-names.js';
import type { Clock } from '../../shared/core/clock.js';
import { toProfessionalProfile } from '../../shared/directory/shape.js';
import type { Company, Person } from '../../shared/directory/types.js';
import { mailEvidenceFor, recordHardBounce, reportInboundHardBounce } from '../../shared/email-status/mail-evidence.repository.js';
import { addressHash, isOptedOut, recordEmailed } from '../../shared/privacy/opt-outs.repository.js';
import {
  VERIFICATIONS_PER_ADDRESS_PER_DAY,
  listPrivacyRequests,
  maskEmail,
  viewPrivacyRequest,
} from '../../shared/privacy-requests/privacy-requests.js';
import { confirmPrivacyRequest } from '../../shared/privacy-requests/confirm-request.js';
import { createPrivacyRequest } from '../../shared/privacy-requests/create-request.js';
import { getRequest, tokenHash } from '../../shared/privacy-requests/requests.repository.js';
import { SOURCE_RATE_LIMITS, countsAgainst, findRoute } from '../../shared/catalog/routes.js';
import { startTestServices, type TestServices } from '../support/local.js';

/**
 * The privacy-request use cases against DynamoDB Local and a generated directory (docs/privacy.md): the request
 * mails a link and reads nothing about the address; the link shows what is held; the confirm carries the request
 * out once, safely retried after a crash; the operators' list pages newest first by status.
 */
let services: TestServices;
let people: Person[];
let companies: Map<string, Company>;

/** A clock the test moves (the service clock's shape). */
let nowMs = Date.parse('2026-03-10T09:00:00.000Z');
const clock: Clock = { now: () => new Date(nowMs) };
const later = (seconds: number) => (nowMs += seconds * 1000);

/** The mail step, recorded instead of sent: the token each message would carry. */
const sent: { email: string; request: string; token: string }[] = [];
const send = async (m: { email: string; request: string; token: string }) => void sent.push({ email: m.email, request: m.request, token: m.token });

beforeAll(async () => {
  services = await startTestServices({ workers: false, directory: { people: 60, seed: 43 } });
  ({ people, companies } = await services.readDirectory());
}, 120_000);
afterAll(async () => {
  await services?.stop();
});

let n = 0;
const unknownAddress = () => `nobody-${++n}-${Date.now()}@unknown.example`;
const withEmail = () => people.filter((p) => p.work_email);
let nextKnown = 0;
const knownPerson = () => withEmail()[nextKnown++]!;

/** Ask, and return the link token the message carried. */
async function ask(email: string, request: 'access' | 'opt_out' | 'erase'): Promise<string> {
  const before = sent.length;
  expect(await createPrivacyRequest({ email, request }, { clock, send })).toEqual({ status: 'verification_sent' });
  expect(sent.length).toBe(before + 1);
  return sent.at(-1)!.token;
}

async function privacyItems(): Promise<Record<string, unknown>[]> {
  const out = await documentClient().send(new ScanCommand({ TableName: tableName('privacy') }));
  return out.Items ?? [];
}

describe('a request', () => {
  test('answers the same for a known and an unknown address, mails a 43-character token, and stores only its hash', async () => {
    const known = knownPerson().work_email!;
    const tokens = [await ask(known, 'access'), await ask(unknownAddress(), 'access')];
    for (const token of tokens) expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const items = await privacyItems();
    const text = JSON.stringify(items);
    for (const token of tokens) {
      expect(text).not.toContain(token);
      expect(items.some((i) => i.pk === `TOKEN#${tokenHash(token)}`)).toBe(true);
      expect(tokenHash(token)).toBe(createHash('sha256').update(token).digest('hex'));
    }
  });

  test('an address gets at most 3 messages a UTC day; the 4th answers the same and sends nothing; the next day it gets one again', async () => {
    const email = unknownAddress();
    for (let i = 0; i < VERIFICATIONS_PER_ADDRESS_PER_DAY; i++) await ask(email, i % 2 ? 'opt_out' : 'access');
    const before = sent.length;
    const items = (await privacyItems()).length;
    // Any case of the address counts against the same limit.
    expect(await createPrivacyRequest({ email: email.toUpperCase(), request: 'erase' }, { clock, send })).toEqual({ status: 'verification_sent' });
    expect(sent.length).toBe(before);
    expect((await privacyItems()).length).toBe(items);
    const day = new Date(nowMs).toISOString().slice(0, 10);
    const counter = await documentClient().send(new GetCommand({ TableName: tableName('privacy'), Key: { pk: `RATE#${addressHash(email)}`, sk: day } }));
    expect(counter.Item?.sent).toBe(3);
    // The counter lives two days from the start of its day.
    expect(counter.Item?.expires_at).toBe(Date.parse(`${day}T00:00:00.000Z`) / 1000 + 2 * 86_400);
    const saved = nowMs;
    nowMs = Date.parse(`${day}T00:00:00.000Z`) + 86_400_000 + 1000;
    await ask(email, 'access');
    nowMs = saved;
  });
});

describe('the link', () => {
  test('shows the directory record of a known address as a profile, and the accounts that emailed it in the last 12 months', async () => {
    const person = knownPerson();
    const email = person.work_email!;
    const daysAgo = (d: number) => new Date(nowMs - d * 86_400_000).toISOString();
    await recordEmailed(email, 'acct_one', daysAgo(10));
    await recordEmailed(email, 'acct_two', daysAgo(40));
    await recordEmailed(email, 'acct_old', daysAgo(400));
    const token = await ask(email.toUpperCase(), 'access');
    const view = await viewPrivacyRequest(token, clock);
    expect(view).toEqual({
      email: email.toUpperCase(),
      request: 'access',
      status: 'pending',
      directory: [{ ...toProfessionalProfile(person, companies.get(person.company_id)!), professional_url: person.professional_url, work_email: person.work_email, phone: person.phone, skills: person.skills }],
      outreach: { accounts_that_emailed: 2, last_emailed_at: daysAgo(10) },
    });
    // An unknown address: nothing held.
    const other = await ask(unknownAddress(), 'opt_out');
    expect(await viewPrivacyRequest(other, clock)).toMatchObject({ request: 'opt_out', status: 'pending', directory: [], outreach: { accounts_that_emailed: 0, last_emailed_at: null } });
  });

  test('an unknown token, a token of another shape and an expired link are 404; a link answers until 24 h after the request', async () => {
    await expect(viewPrivacyRequest('A'.repeat(43), clock)).rejects.toMatchObject({ statusCode: 404, code: 'not_found' });
    await expect(confirmPrivacyRequest('A'.repeat(43), { clock })).rejects.toMatchObject({ statusCode: 404 });
    const token = await ask(unknownAddress(), 'access');
    later(24 * 3600 - 1);
    await expect(viewPrivacyRequest(token, clock)).resolves.toMatchObject({ status: 'pending' });
    later(1);
    await expect(viewPrivacyRequest(token, clock)).rejects.toMatchObject({ statusCode: 404 });
    await expect(confirmPrivacyRequest(token, { clock })).rejects.toMatchObject({ statusCode: 404 });
  });
});

describe('the confirm', () => {
  test('access: completes once; a repeat answers the same completed_at; the link still shows the data until it expires, then 404', async () => {
    const person = knownPerson();
    const token = await ask(person.work_email!, 'access');
    const first = await confirmPrivacyRequest(token, { clock });
    expect(first).toEqual({ status: 'completed', completed_at: new Date(nowMs).toISOString() });
    later(60);
    expect(await confirmPrivacyRequest(token, { clock })).toEqual(first);
    expect(await viewPrivacyRequest(token, { now: () => new Date(nowMs) })).toMatchObject({ status: 'completed', directory: [expect.objectContaining({ full_name: person.full_name })] });
    // Access changes nothing about the person.
    expect(await isOptedOut({ email: person.work_email!, professional_url: person.professional_url })).toBe(false);
    later(24 * 3600);
    await expect(viewPrivacyRequest(token, clock)).rejects.toMatchObject({ statusCode: 404 });
    await expect(confirmPrivacyRequest(token, { clock })).rejects.toMatchObject({ statusCode: 404 });
  });

  test('opt_out: the address and its directory person are opted out, the directory record stays; concurrent confirms agree', async () => {
    const person = knownPerson();
    const token = await ask(person.work_email!, 'opt_out');
    expect(await isOptedOut({ email: person.work_email! })).toBe(false);
    const [a, b, c] = await Promise.all([confirmPrivacyRequest(token, { clock }), confirmPrivacyRequest(token, { clock }), confirmPrivacyRequest(token, { clock })]);
    expect(b).toEqual(a);
    expect(c).toEqual(a);
    expect(await isOptedOut({ email: person.work_email! })).toBe(true);
    expect(await isOptedOut({ professional_url: `https://www.${person.professional_url}/` })).toBe(true);
    expect(await viewPrivacyRequest(token, clock)).toMatchObject({ status: 'completed', email: person.work_email, directory: [expect.objectContaining({ full_name: person.full_name })] });
  });

  test('erase: opt-out, the directory erasure, the address\'s mail evidence and outreach history deleted, and the address kept only as a hash (in earlier requests too)', async () => {
    const person = knownPerson();
    const email = person.work_email!;
    // An earlier, completed access request of the same address still names it.
    const earlier = await ask(email, 'access');
    await confirmPrivacyRequest(earlier, { clock });
    const at = new Date(nowMs - 86_400_000).toISOString();
    await recordHardBounce(email, at);
    await reportInboundHardBounce(email, 'acct_reporter', at);
    await recordEmailed(email, 'acct_one', at);
    expect((await mailEvidenceFor(email)).bounced_at).toBe(at);

    const erased: [string[], string][] = [];
    const token = await ask(email, 'erase');
    expect(await confirmPrivacyRequest(token, { clock, eraseFromDirectory: async (profiles, address) => void erased.push([profiles, address]) })).toEqual({
      status: 'completed',
      completed_at: new Date(nowMs).toISOString(),
    });
    expect(erased).toEqual([[[person.professional_url], email]]);
    expect(await isOptedOut({ email })).toBe(true);
    expect(await isOptedOut({ professional_url: person.professional_url })).toBe(true);
    const evidence = await documentClient().send(new QueryCommand({ TableName: tableName('mail_evidence'), KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': `ADDR#${addressHash(email)}` } }));
    expect(evidence.Items).toEqual([]);
    const emailed = await documentClient().send(new QueryCommand({ TableName: tableName('privacy'), KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': `EMAILED#${addressHash(email)}` } }));
    expect(emailed.Items).toEqual([]);
    // Nothing in the privacy table names the address in clear any more; the erasure list has its hash.
    const items = await privacyItems();
    expect(JSON.stringify(items).toLowerCase()).not.toContain(email.toLowerCase());
    expect(items).toContainEqual(expect.objectContaining({ pk: 'SUPPRESS', sk: addressHash(email) }));
    // The link answers until it expires, with nothing held.
    expect(await viewPrivacyRequest(token, clock)).toEqual({ email: null, request: 'erase', status: 'completed', directory: [], outreach: { accounts_that_emailed: 0, last_emailed_at: null } });
    expect(await viewPrivacyRequest(earlier, clock)).toMatchObject({ email: null, status: 'completed' });
    // A repeat changes nothing and answers the same.
    expect(await confirmPrivacyRequest(token, { clock, eraseFromDirectory: async () => void erased.push([[], 'again']) })).toMatchObject({ status: 'completed' });
    expect(erased).toHaveLength(1);
  });

  test('a confirm that fails part-way leaves the request pending and its link unused; confirming again completes it', async () => {
    const person = knownPerson();
    const email = person.work_email!;
    const token = await ask(email, 'erase');
    let calls = 0;
    const flaky = async () => {
      calls++;
      if (calls === 1) throw new Error('crash in the middle of the erasure');
    };
    await expect(confirmPrivacyRequest(token, { clock, eraseFromDirectory: flaky })).rejects.toThrow('crash in the middle');
    // The steps before the crash are in place (the opt-out); the request is not marked done.
    expect(await isOptedOut({ email })).toBe(true);
    expect(await viewPrivacyRequest(token, clock)).toMatchObject({ status: 'pending', email });
    const tokenItem = await documentClient().send(new GetCommand({ TableName: tableName('privacy'), Key: { pk: `TOKEN#${tokenHash(token)}`, sk: 'T' } }));
    expect(tokenItem.Item?.used_at).toBeUndefined();
    later(5);
    expect(await confirmPrivacyRequest(token, { clock, eraseFromDirectory: flaky })).toEqual({ status: 'completed', completed_at: new Date(nowMs).toISOString() });
    expect(calls).toBe(2);
    const id = tokenItem.Item!.request_id as string;
    const record = await getRequest(id);
    expect(record).toMatchObject({ status: 'completed', email_hash: addressHash(email) });
    expect(record!.email).toBeUndefined();
    // Kept 400 days from its creation once completed.
    expect(record!.expires_at).toBe(Math.floor(Date.parse(record!.created_at) / 1000) + 400 * 86_400);
  });
});

describe('the operators\' list', () => {
  test('newest first, by status, paged by cursor; the address masked and only while pending; expired pending requests left out', async () => {
    // Six fresh requests, a second apart, two of them confirmed, beside the completed ones of the tests above.
    const fresh: string[] = [];
    for (let i = 0; i < 6; i++) {
      later(1);
      fresh.push(await ask(unknownAddress(), i % 3 === 0 ? 'erase' : 'access'));
    }
    await confirmPrivacyRequest(fresh[1]!, { clock });
    await confirmPrivacyRequest(fresh[4]!, { clock });
    const all: any[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await listPrivacyRequests({ limit: 4, ...(cursor ? { cursor } : {}) }, clock);
      expect(page.results.length).toBeLessThanOrEqual(4);
      all.push(...page.results);
      cursor = page.next_cursor;
    } while (cursor);
    expect(all.length).toBeGreaterThan(8);
    expect(new Set(all.map((r) => r.id)).size).toBe(all.length);
    expect(all.map((r) => `${r.created_at}#${r.id}`)).toEqual(all.map((r) => `${r.created_at}#${r.id}`).sort().reverse());
    for (const r of all) {
      expect(Object.keys(r).sort()).toEqual(['completed_at', 'created_at', 'email', 'id', 'request', 'status']);
      if (r.status === 'completed') expect([r.email, typeof r.completed_at]).toEqual([null, 'string']);
      else expect([r.email, r.completed_at]).toEqual([expect.stringMatching(/^.•••@[^@]+$/), null]);
    }
    // Every pending request whose link is still valid, and no other.
    const pending = await listPrivacyRequests({ status: 'pending', limit: 200 }, clock);
    expect(pending.results).toHaveLength(4);
    expect(pending.results.every((r) => r.status === 'pending' && Date.parse(r.created_at) > nowMs - 86_400_000)).toBe(true);
    const completed = await listPrivacyRequests({ status: 'completed', limit: 200 }, clock);
    expect(completed.results.length).toBe(all.filter((r) => r.status === 'completed').length);
    expect(pending.results.length + completed.results.length).toBe(all.length);
    // A day on, the pending ones are gone from the list; the completed stay.
    later(24 * 3600);
    expect((await listPrivacyRequests({ status: 'pending', limit: 200 }, clock)).results).toEqual([]);
    expect((await listPrivacyRequests({ limit: 200 }, clock)).results).toHaveLength(completed.results.length);
    await expect(listPrivacyRequests({ limit: 10, cursor: Buffer.from('REQ#x').toString('base64url') }, clock)).rejects.toMatchObject({ statusCode: 400, code: 'invalid_request' });
  });

  test('masks an address to its first character and domain', () => {
    expect(maskEmail('jane.doe@example.com')).toBe('j•••@example.com');
    expect(maskEmail('@odd')).toBe('•••');
  });
});

describe('the edge', () => {
  const base = '/api/public/v1/privacy-requests/';
  const token = 'A'.repeat(43);

  test('each privacy route is public, with a stage throttle, and counted by its own per-source rule, never by the API-key routes\' rule', () => {
    const calls: [string, string][] = [['POST', base], ['GET', `${base}${token}/`], ['POST', `${base}${token}/confirm/`]];
    for (const [method, path] of calls) {
      const found = findRoute(method, path);
      expect([path, found?.route.auth, typeof found?.route.throttle?.perMinute]).toEqual([path, 'public', 'number']);
      expect([path, countsAgainst(SOURCE_RATE_LIMITS.apiKey, method, path)]).toEqual([path, false]);
    }
    // A new request (it mails a message) is held to 10 per source in 5 minutes; the link's reads and confirms to theirs.
    expect(SOURCE_RATE_LIMITS.privacyRequests).toMatchObject({ limit: 10, windowSeconds: 300 });
    expect([countsAgainst(SOURCE_RATE_LIMITS.privacyRequests, 'POST', base), countsAgainst(SOURCE_RATE_LIMITS.privacyRequests, 'GET', `${base}${token}/`)]).toEqual([true, false]);
    expect([countsAgainst(SOURCE_RATE_LIMITS.privacyLinks, 'GET', `${base}${token}/`), countsAgainst(SOURCE_RATE_LIMITS.privacyLinks, 'POST', `${base}${token}/confirm/`)]).toEqual([true, true]);
    // An encoded slash cannot pass another route off as a privacy link: it is still an API-key route to the edge.
    expect(countsAgainst(SOURCE_RATE_LIMITS.apiKey, 'GET', `${base}x%2F..%2F..%2Fsearch/`)).toBe(true);
    expect(countsAgainst(SOURCE_RATE_LIMITS.apiKey, 'GET', '/api/public/v1/search/')).toBe(true);
  });
});
