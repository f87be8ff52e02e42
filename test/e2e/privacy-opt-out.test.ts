import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PRICES } from '../../shared/accounts/prices.js';
import { logger } from '../../shared/core/logger.js';
import { dynamoDbDirectory } from '../../shared/directory/directory-dynamodb.repository.js';
import type { Person } from '../../shared/directory/types.js';
import { normalizeProfessionalUrl } from '../../shared/directory/urls.js';
import type { LocalStack } from '../../shared/local/stack.js';
import { startServices } from '../../shared/local/services.js';
import { peopleIndex } from '../../shared/search-engine/index-source.js';
import { Client, ROOT, newTenant, reply, startTestServices, startTestStack, type TestServices } from '../support/local.js';
import type { WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * Opt-out and erasure (docs/privacy.md) over HTTP against the twin, from the person's side to every account's:
 * the person asks through the privacy request routes, reads the link from the dev mailbox (the local SES sink) and
 * confirms; then the accounts' search (a new one and the continuation of one made before), email enrichment,
 * sequences (two accounts) and an email already queued to them all leave them out. The second test erases a person
 * and starts the twin again on the same data directory: the start-up import of the same file keeps them out.
 */
const LONG = 300_000;
const INSTRUCTIONS = 'Introduce our platform and ask for a 15-minute call.';
const level = logger.getLevelName();

interface Mail {
  from: string | null;
  to: string[];
  subject: string;
  text: string;
}

const bare = (url: string) => normalizeProfessionalUrl(url)!;

/** The person's side: ask, read the link mailed to the address, confirm. */
async function privacyRequest(stack: LocalStack, email: string, request: 'opt_out' | 'erase'): Promise<void> {
  const anonymous = new Client(stack);
  const asked = await reply(anonymous.typed.POST('/api/public/v1/privacy-requests/', { body: { email, request } }));
  expect([asked.status, asked.body]).toEqual([202, { status: 'verification_sent' }]);
  const mails = ((await new Client(stack).console('GET', 'dev/mailbox/')).body.messages as Mail[]).filter((m) => m.to.some((t) => t.toLowerCase() === email.toLowerCase()));
  const token = /\?token=([A-Za-z0-9_-]{43})(?![A-Za-z0-9_-])/.exec(mails.at(-1)!.text)?.[1];
  expect(token).toBeDefined();
  const done = await reply(anonymous.typed.POST('/api/public/v1/privacy-requests/{token}/confirm/', { params: { path: { token: token! } } }));
  expect([done.status, done.body.status]).toEqual([200, 'completed']);
}

describe('an opt-out through a privacy request', () => {
  let services: TestServices & { receiver: WebhookReceiver };
  let people: Person[];
  let n = 0;

  beforeAll(async () => {
    logger.setLogLevel('ERROR');
    services = await startTestServices({ directory: { people: 1500, seed: 4411 }, throttleMultiplier: 1000, webhookReceiver: true });
    people = (await services.readDirectory()).people;
  }, 180_000);
  afterAll(async () => {
    await services?.stop();
    logger.setLogLevel(level);
  });

  const admin = () => services.admin;
  const settle = async () => expect((await admin().console('POST', 'dev/settle/')).body).toEqual({ idle: true });
  const balance = async (id: string) => (await admin().console('GET', `accounts/${id}/`)).body.balance as number;
  const byUrl = (url: string) => people.find((p) => bare(p.professional_url) === bare(url))!;
  const tenant = () => newTenant(services.stack, { credits: 10_000 }, { webhookReceiver: services.receiver, sender: { email: `rep${++n}.${Date.now()}@seller.test`, type: 'google' } });
  type Tenant = Awaited<ReturnType<typeof tenant>>;

  async function search(t: Tenant, body: Record<string, unknown>): Promise<{ id: string; ids: string[] }> {
    const r = await t.client.api('POST', 'search/', { webhook_url: services.receiver.url, ...body });
    expect(r.status).toBe(202);
    await settle();
    const polled = await t.client.api('GET', `search/${r.body.id}/`);
    expect(polled.body.status).toBe('completed');
    return { id: r.body.id, ids: (polled.body.result.results as { professional_url: string }[]).map((x) => byUrl(x.professional_url).id) };
  }

  test(
    'search (new and continued), email enrichment, sequences in two accounts and an email already queued all leave the person out',
    async () => {
      const [a, b] = [await tenant(), await tenant()];
      const query = 'engineers';
      // The ranking, and the first page of a search made before the opt-out.
      const wide = await search(a, { query, max_results: 60 });
      const first = await search(a, { query, max_results: 25 });
      expect(first.ids).toEqual(wide.ids.slice(0, 25));
      // A person that search found (on the page after the first), with a work email.
      const person = wide.ids.slice(30, 50).map((id) => people.find((p) => p.id === id)!).find((p) => p.work_email)!;
      expect(person).toBeDefined();
      const address = person.work_email!;

      // An email already queued to them (no review: queued for its send time).
      const queued = await a.client.api('POST', 'emails/', { to: { email: address, first_name: person.first_name, company_name: 'Acme Robotics' }, instructions: INSTRUCTIONS, review: 'none' });
      expect(queued.status).toBe(202);
      await settle();
      expect((await a.client.api('GET', `emails/${queued.body.id}/`)).body.status).toBe('queued');

      await privacyRequest(services.stack, address, 'opt_out');

      // The same search no longer returns them; its page still holds 60.
      const again = await search(a, { query, max_results: 60 });
      expect(again.ids).toHaveLength(60);
      expect(again.ids).not.toContain(person.id);
      expect(again.ids.slice(0, 59)).toEqual(wide.ids.filter((id) => id !== person.id).slice(0, 59));
      // The continuation of the search made before the opt-out skips them, and repeats nobody of its first page.
      const next = await search(a, { search_id: first.id, max_results: 25 });
      expect(next.ids).toEqual(wide.ids.slice(25, 51).filter((id) => id !== person.id));

      // Email enrichment by their profile URL: not found, at the price of a miss.
      const before = await balance(a.accountId);
      const found = await a.client.api('POST', 'enrich/email/', { professional_url: person.professional_url });
      expect([found.status, found.body.error?.code]).toEqual([404, 'not_found']);
      expect(before - (await balance(a.accountId))).toBe(PRICES.email_enrich);

      // A sequence to their address, in each of two accounts: rejected as opted_out, the other contact accepted.
      for (const t of [a, b]) {
        const other = { email: `someone${++n}.${Date.now()}@prospect.test`, first_name: 'Sam', company_name: 'Acme Robotics' };
        const them = { email: address, first_name: person.first_name, company_name: 'Acme Robotics' };
        const s = await t.client.api('POST', 'sequences/', { instructions: INSTRUCTIONS, contacts: [them, other] });
        expect(s.status).toBe(202);
        expect([s.body.contacts_accepted, s.body.contacts_rejected]).toEqual([1, [{ contact: them, reason: 'opted_out' }]]);
      }

      // The email queued before the opt-out is cancelled when its send time comes, and nothing reaches them.
      for (let i = 0; i < 16 && (await a.client.api('GET', `emails/${queued.body.id}/`)).body.status === 'queued'; i++) {
        await admin().console('POST', 'dev/clock/', { advance_seconds: 12 * 3600 });
        await settle();
      }
      const ended = (await a.client.api('GET', `emails/${queued.body.id}/`)).body;
      expect([ended.status, ended.error?.code, ended.sent_at]).toEqual(['cancelled', 'opted_out', null]);
      const toThem = ((await admin().console('GET', 'dev/mailbox/')).body.messages as Mail[]).filter((m) => m.to.some((t) => t.toLowerCase() === address.toLowerCase()));
      expect(toThem.map((m) => m.from)).toEqual(['privacy@service.localhost']);
    },
    LONG,
  );
});

test(
  'an erasure, then the twin started again on the same data directory (the start-up import of the same file): the person stays absent',
  async () => {
    logger.setLogLevel('ERROR');
    const dataDir = mkdtempSync(join(tmpdir(), 'privacy-erasure-e2e-'));
    const directory = { file: join(dataDir, 'directory.jsonl'), people: 400, seed: 4412 };
    const store = process.env.DIRECTORY_STORE;
    let stack = await startTestStack({ dataDir, throttleMultiplier: 1000 });
    try {
      await startServices({ root: ROOT, stack, dataDir, directory });
      const t = await newTenant(stack, { credits: 1000 });
      const people: Person[] = [];
      const { readDirectoryFile } = await import('../../shared/directory/file.js');
      for await (const r of readDirectoryFile(directory.file)) if (r.type === 'person') people.push(r);
      const [person, other] = people.filter((p) => p.work_email).slice(7, 9) as [Person, Person];
      const profile = (c: Client, p: Person) => c.api('POST', 'enrich/professional-profile/', { professional_url: p.professional_url });
      expect((await profile(t.client, person)).status).toBe(200);

      await privacyRequest(stack, person.work_email!, 'erase');
      expect((await profile(t.client, person)).status).toBe(404);
      expect((await profile(t.client, other)).status).toBe(200);
      await stack.stop();

      // Second life: the same data directory, and this time the DynamoDB directory store, so the start imports
      // the same file into the directory table.
      process.env.DIRECTORY_STORE = 'dynamodb';
      stack = await startTestStack({ dataDir, throttleMultiplier: 1000 });
      await startServices({ root: ROOT, stack, dataDir, directory });
      const client = new Client(stack, t.apiKey);
      expect((await profile(client, person)).status).toBe(404);
      expect((await profile(client, other)).status).toBe(200);
      // Left out by the import itself, not only by the opt-out read: neither the table nor the index holds them.
      expect(await dynamoDbDirectory.findByProfessionalUrl(bare(person.professional_url))).toBeNull();
      expect(await dynamoDbDirectory.findByProfessionalUrl(bare(other.professional_url))).not.toBeNull();
      const index = await peopleIndex();
      expect(await index.entries([person.id, other.id])).toEqual([undefined, expect.objectContaining({ person: other })]);
    } finally {
      await stack.stop();
      if (store === undefined) delete process.env.DIRECTORY_STORE;
      else process.env.DIRECTORY_STORE = store;
      rmSync(dataDir, { recursive: true, force: true });
      logger.setLogLevel(level);
    }
  },
  LONG,
);
