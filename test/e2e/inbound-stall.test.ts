import { jest } from '@jest/globals';
import type { LocalStack } from '../../shared/local/stack.js';
import { functionNamed } from '../../shared/catalog/functions.js';
import { Client, newTenant, reply, startTestStack, type RequestBody } from '../support/local.js';
import { dsnReport, plainMessage } from '../support/mail-reports.js';

// A message that keeps failing cannot stall a mailbox. The mailbox poller runs here without its grant on
// mail_evidence, so handling a hard bounce fails at its last write every time (as a missing grant would in
// AWS) while replies are handled. The poll keeps its cursor and fails (counted), the reply behind the bounce
// is handled all the same, and the third failed attempt makes the bounce unprocessable: listed, passed.
const POLL = 'mailbox-poll';
const catalogue = functionNamed(POLL).bindings;
const { mail_evidence: _dropped, ...tables } = catalogue.tables ?? {};

let stack: LocalStack;
let admin: Client;
beforeAll(async () => {
  stack = await startTestStack({ throttleMultiplier: 1000, mailboxPollSeconds: 0, grants: { [POLL]: { ...catalogue, tables } } });
  admin = new Client(stack);
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});
jest.setTimeout(120_000);

const settle = async () => expect((await admin.console('POST', 'dev/settle/')).body).toEqual({ idle: true });
const mailbox = async () => (await admin.console('GET', 'dev/mailbox/')).body.messages as any[];
const inbound = async (to: string, raw: string) => (await admin.console('POST', 'dev/inbound/', { mailbox: to, raw })).body;
/** The failed polls the functions counted, as the console's metrics sum them (shared/local/metrics-log.ts). */
const pollsFailed = async () => (await admin.console('GET', 'metrics/')).body.last_hour.metrics.mailbox_polls_failed.sum as number;

async function sentTo(t: Awaited<ReturnType<typeof newTenant>>, lead: string) {
  const r = await reply(t.client.typed.POST('/api/public/v1/emails/', { body: { to: { email: lead, first_name: 'Jane', last_name: 'Doe', company_name: 'Acme Robotics' }, instructions: 'Introduce our warehouse automation platform and ask for a 15-minute call.', review: 'none' } as RequestBody<'post_emails'> }));
  expect(r.status).toBe(202);
  await settle();
  for (let i = 0; i < 10 && !(await mailbox()).some((m) => m.to.includes(lead)); i++) {
    await admin.console('POST', 'dev/clock/', { advance_seconds: 12 * 3600 });
    await settle();
  }
  return { id: r.body.id as string, messageId: (await mailbox()).find((m) => m.to.includes(lead))!.message_id as string };
}

test('a bounce that fails three times is listed unprocessable and passed; the reply behind it is handled', async () => {
  const t = await newTenant(stack);
  const ea = (await admin.console('POST', `accounts/${t.accountId}/sending-accounts/`, { email: `rep.${Date.now()}@seller.test`, type: 'google' })).body;
  const gone = `gone.${Date.now()}@prospect.test`;
  const talker = `talker.${Date.now()}@prospect.test`;
  const bounced = await sentTo(t, gone);
  const replied = await sentTo(t, talker);
  const failedBefore = await pollsFailed();

  // Attempt 1 (the poll dev/inbound runs): the bounce's handling fails; the poll keeps its cursor.
  expect(await inbound(ea.email, dsnReport({ mailbox: ea.email, recipient: gone, originalId: bounced.messageId }))).toMatchObject({ matched: false, poll_failed: true });
  // Attempt 2 (the scheduled poll, here settle's): it fails again, and the failed poll is counted.
  await settle();
  expect(await pollsFailed()).toBe(failedBefore + 1);
  // Attempt 3: the poll that reads the reply behind it gives the bounce up as unprocessable and moves on.
  const answered = await inbound(ea.email, plainMessage([`From: Jane <${talker}>`, `To: ${ea.email}`, 'Subject: Re: hello', `In-Reply-To: ${replied.messageId}`], 'Yes, Tuesday works.'));
  expect(answered).toMatchObject({ matched: true, classification: 'reply', counted_as_lead_reply: true });
  const email = async (id: string) => (await reply(t.client.typed.GET('/api/public/v1/emails/{id}/', { params: { path: { id } } }))).body;
  expect((await email(replied.id)).status).toBe('replied');
  const unprocessable = async () => ((await admin.console('GET', 'inbound-issues/?status=unprocessable')).body.results as any[]).filter((i) => i.mailbox === ea.email);
  expect(await unprocessable()).toEqual([expect.objectContaining({ status: 'unprocessable', reasons: ['failed'], source: 'google', error: expect.stringContaining('MAIL_EVIDENCE_TABLE_NAME') })]);
  // Nothing left to read: the next poll succeeds and changes nothing.
  await settle();
  expect(await pollsFailed()).toBe(failedBefore + 1);
  expect(await unprocessable()).toHaveLength(1);
  // What the bounce did before its failing write stands (within the account); nothing shared was written.
  expect((await email(bounced.id)).error?.code).toBe('bounced');
});
