import { jest } from '@jest/globals';
import type { LocalStack } from '../../shared/local/stack.js';
import type { Person } from '../../shared/directory/types.js';
import type { MetricsReport } from '../../shared/local/metrics-log.js';
import { Client, newTenant, reply, startTestServices, type TestServices } from '../support/local.js';
import type { WebhookReceiver } from '../support/webhook-receiver.js';
import { sesEventFor } from '../support/ses-events.js';

// Issue 44: the functions' metrics on the twin. A known workload on a fresh stack (3 searches, 5 enrichments,
// 2 emails drafted and sent, 1 bounce, and an email cancelled before its draft), then `GET /api/console/v1/metrics/` sums exactly that, and the credits it
// shows are what the ledger's records say.
let services: TestServices | undefined;
let stack: LocalStack;
let admin: Client;
let receiver: WebhookReceiver;
let people: Person[] = [];

beforeAll(async () => {
  const started = await startTestServices({ throttleMultiplier: 1000, directory: { people: 1500, seed: 44 }, webhookReceiver: true });
  ({ stack, admin, receiver } = services = started);
  ({ people } = await started.readDirectory());
}, 180_000);
afterAll(async () => services?.stop());
jest.setTimeout(180_000);

const settle = async () => expect((await admin.console('POST', 'dev/settle/')).body).toEqual({ idle: true });
const metrics = async () => {
  const r = await admin.console<MetricsReport>('GET', 'metrics/');
  expect(r.status).toBe(200);
  return r.body;
};

test('the console route is the admin token’s, GET only', async () => {
  expect((await new Client(stack).call('GET', `${stack.consoleUrl}metrics/`)).status).toBe(403);
  expect((await admin.console('POST', 'metrics/')).body).toEqual({ message: 'Missing Authentication Token' });
  const empty = await metrics();
  expect(empty.namespace).toBe('people-outreach/local');
  expect(empty.last_hour.metrics.searches).toEqual({ unit: 'Count', sum: 0, samples: 0, by: { tier: {} } });
});

test('after 3 searches, 5 enrichments, 2 drafts sent and 1 bounce, the last hour and day show exactly those', async () => {
  const t = await newTenant(stack, { credits: 100_000 }, { webhookReceiver: receiver, sender: { email: `rep.${Date.now()}@seller.test`, type: 'google' } });
  const typed = t.client.typed;

  // 3 searches: two people searches and a deep search.
  const searches: string[] = [];
  for (const body of [{ query: 'software engineers', max_results: 25 }, { query: 'sales managers', max_results: 25 }]) {
    const r = await reply(typed.POST('/api/public/v1/search/', { body: { ...body, webhook_url: receiver.url } }));
    expect(r.status).toBe(202);
    searches.push(r.body.id);
  }
  const deep = await reply(typed.POST('/api/public/v1/deep-search/', { body: { query: 'software engineers in the United States', webhook_url: receiver.url } }));
  expect(deep.status).toBe(202);
  await settle();
  const peopleLeads = [];
  for (const id of searches) {
    const poll = await reply(typed.GET('/api/public/v1/search/{job_id}/', { params: { path: { job_id: id } } }));
    expect(poll.body.status).toBe('completed');
    peopleLeads.push(poll.body.leads_returned as number);
  }
  const deepPoll = await reply(typed.GET('/api/public/v1/deep-search/{job_id}/', { params: { path: { job_id: deep.body.id } } }));
  expect(deepPoll.body.status).toBe('completed');

  // 5 email enrichments: four people of the directory, and one profile nobody has.
  const withEmail = people.filter((p) => p.work_email).slice(0, 4);
  for (const p of withEmail) expect((await reply(typed.POST('/api/public/v1/enrich/email/', { body: { professional_url: p.professional_url } }))).status).toBe(200);
  expect((await reply(typed.POST('/api/public/v1/enrich/email/', { body: { professional_url: 'linkedin.com/in/nobody-here-at-all-44' } }))).status).toBe(404);

  // 2 emails drafted, approved and sent; the first bounces (an SES event, as EventBridge delivers it).
  const recipients = people.filter((p) => p.work_email && !withEmail.includes(p)).slice(-2);
  const ids: string[] = [];
  for (const p of recipients) {
    const created = await reply(typed.POST('/api/public/v1/emails/', { body: { to: { email: p.work_email!, first_name: p.first_name, last_name: p.last_name }, instructions: 'Introduce our analytics product in two sentences.' } }));
    expect(created.status).toBe(202);
    ids.push(created.body.id);
  }
  // A third, cancelled before it is drafted: its reservation is given back, and it is no draft.
  const cancelled = await reply(typed.POST('/api/public/v1/emails/', { body: { to: { email: recipients[1]!.work_email!, first_name: 'Kim', last_name: 'Lee' }, instructions: 'Say hello.' } }));
  expect((await reply(typed.POST('/api/public/v1/emails/{id}/cancel/', { params: { path: { id: cancelled.body.id } } }))).status).toBe(200);
  await settle();
  for (const id of ids) expect((await reply(typed.POST('/api/public/v1/emails/{id}/approve/', { params: { path: { id } }, body: { schedule: 'now' } }))).status).toBe(200);
  await settle();
  for (const id of ids) expect((await reply(typed.GET('/api/public/v1/emails/{id}/', { params: { path: { id } } }))).body.status).toBe('sent');
  const sendOf = (emailId: string) => stack.sentMail.find((s) => s.raw?.toString('utf8').includes(`<${emailId}.`));
  const bounced = sesEventFor('bounce-permanent', { messageId: sendOf(ids[0]!)!.provider_message_id!, recipient: recipients[0]!.work_email! });
  expect((await admin.console('POST', 'dev/ses-events/', bounced)).status).toBe(202);
  await settle();

  const report = await metrics();
  for (const window of [report.last_hour, report.last_day]) {
    const m = window.metrics;
    expect(m.searches).toMatchObject({ unit: 'Count', sum: 3, by: { tier: { people: 2, deep: 1 } } });
    expect(m.leads!.by!.tier).toEqual({ people: peopleLeads[0]! + peopleLeads[1]!, deep: deepPoll.body.leads_returned });
    expect(m.enrichments!.sum).toBe(5);
    expect(m.enrichments!.by).toEqual({ kind: { email: 5 }, outcome: { found: 4, not_found: 1 } });
    expect([m.drafts!.sum, m.drafts_failed!.sum]).toEqual([2, 0]);
    expect(m.sends!.sum).toBe(2);
    expect([m.bounces_hard!.sum, m.bounces_soft!.sum, m.complaints!.sum, m.replies!.sum, m.unsubscribes!.sum]).toEqual([1, 0, 0, 0, 0]);
    // The jobs behind the searches: ended completed, each timed; each delivered its webhook at the first attempt.
    expect(m.jobs_ended!.by).toEqual({ outcome: { completed: 3 } });
    expect(m.job_latency).toMatchObject({ unit: 'Milliseconds', samples: 3, by: { tier: { people: expect.any(Number), deep: expect.any(Number) } } });
    expect([m.webhook_attempts!.sum, m.webhook_failures!.sum]).toEqual([3, 0]);
    expect(m.queue_age!.samples).toBeGreaterThanOrEqual(3);
    expect(m.queue_age!.by!.queue!.search).toBeGreaterThanOrEqual(0);
    expect([m.lost_work_ended!.sum, m.dead_letters!.sum, m.mailbox_polls_failed!.sum, m.messages_unprocessable!.sum]).toEqual([0, 0, 0, 0]);
  }

  // Credits: what the ledger's records of the account kept and gave back, each counted once.
  const charges = (await admin.console('GET', `accounts/${t.accountId}/charges/?limit=200`)).body.results as { reserved: number; charged: number; charge_status: string }[];
  expect(charges.filter((c) => c.charge_status === 'pending')).toEqual([]);
  const kept = charges.reduce((n, c) => n + c.charged, 0);
  const givenBack = charges.reduce((n, c) => n + c.reserved - c.charged, 0);
  expect([kept > 0, givenBack > 0]).toEqual([true, true]);
  expect(report.last_hour.metrics.credits_charged!.sum).toBe(kept);
  expect(report.last_hour.metrics.credits_released!.sum).toBe(givenBack);
});
