import type { LocalStack } from '../../shared/local/stack.js';
import { Client, newTenant, reply, serviceClockNow, startTestStack } from '../support/local.js';

/**
 * Every outreach email's footer links the privacy page on the web app's host beside the unsubscribe link
 * (issue 43), in the text and the HTML part: a one-to-one email, a sequence step, and the lead's message that
 * its CC recipients share (Gmail and Graph deliver to the headers). Checked on what each engine delivered.
 */
let stack: LocalStack;
let admin: Client;
let privacyPage: string;

beforeAll(async () => {
  stack = await startTestStack({ throttleMultiplier: 1000 });
  admin = new Client(stack);
  privacyPage = `http://localhost:${stack.port}/privacy/`;
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

const settle = async () => expect((await admin.console('POST', 'dev/settle/')).body).toEqual({ idle: true });
const mailbox = async () => (await admin.console('GET', 'dev/mailbox/')).body.messages as any[];
const INSTRUCTIONS = 'Introduce our warehouse automation platform and ask for a 15-minute call.';
let n = 0;
const unique = () => `${++n}.${Date.now()}`;

async function tenantWith(sender: Record<string, unknown>) {
  const t = await newTenant(stack);
  expect((await admin.console('POST', `accounts/${t.accountId}/sending-accounts/`, { email: `rep${unique()}@seller.test`, ...sender })).status).toBe(201);
  return t;
}

/** The one message delivered to `address`, once it has been. */
async function deliveredTo(address: string) {
  const found = (await mailbox()).filter((m) => m.delivered_to.map((a: string) => a.toLowerCase()).includes(address));
  expect(found).toHaveLength(1);
  return found[0]!;
}

/** The footer: the unsubscribe link, and beside it the privacy page, in both parts. */
function expectFooter(message: any) {
  const token = /\/api\/public\/v1\/u\/([A-Za-z0-9_-]+)\//.exec(message.headers['list-unsubscribe'])?.[1];
  expect(token).toBeDefined();
  const unsubscribe = `http://localhost:${stack.port}/api/public/v1/u/${token}/`;
  expect(message.text).toContain(`\n--\nIf you'd rather not hear from me again, unsubscribe here: ${unsubscribe}\nTo see or remove the data held about you: ${privacyPage}\n`);
  expect(message.html).toContain(
    `If you'd rather not hear from me again, <a href="${unsubscribe}">unsubscribe here</a>.<br>\n<a href="${privacyPage}">See or remove the data held about you</a>.</p>`,
  );
}

test('a one-to-one email carries the privacy page beside the unsubscribe link, in text and HTML', async () => {
  const t = await tenantWith({ type: 'smtp', transport: 'ses' });
  const lead = `lead.${unique()}@prospect.test`;
  const created = await reply(t.client.typed.POST('/api/public/v1/emails/', { body: { to: { email: lead, first_name: 'Jane', company_name: 'Acme Robotics' }, instructions: INSTRUCTIONS } }));
  expect(created.status).toBe(202);
  await settle();
  const id = created.body.id as string;
  expect((await reply(t.client.typed.POST('/api/public/v1/emails/{id}/approve/', { params: { path: { id } }, body: { schedule: 'now' } }))).status).toBe(200);
  await settle();
  expectFooter(await deliveredTo(lead));
});

test('the lead\'s message its CC recipients share (Gmail) carries it too; a BCC copy carries no footer at all', async () => {
  const t = await tenantWith({ type: 'google' });
  const [lead, cc, bcc] = [`lead.${unique()}@prospect.test`, `colleague.${unique()}@prospect.test`, `crm.${unique()}@seller.test`];
  const created = await reply(t.client.typed.POST('/api/public/v1/emails/', { body: { to: { email: lead, first_name: 'Jane', company_name: 'Acme Robotics' }, instructions: INSTRUCTIONS, cc: [cc], bcc: [bcc] } }));
  expect(created.status).toBe(202);
  await settle();
  const id = created.body.id as string;
  expect((await reply(t.client.typed.POST('/api/public/v1/emails/{id}/approve/', { params: { path: { id } }, body: { schedule: 'now' } }))).status).toBe(200);
  await settle();
  const shared = await deliveredTo(lead);
  expect(shared.delivered_to).toEqual([lead, cc]);
  expectFooter(shared);
  const copy = await deliveredTo(bcc);
  expect(`${copy.text}${copy.html}`).not.toContain('/privacy/');
  expect(`${copy.text}${copy.html}`).not.toContain('/api/public/v1/u/');
});

test('a sequence step carries it, in text and HTML', async () => {
  const t = await tenantWith({ type: 'google' });
  const contact = `contact.${unique()}@prospect.test`;
  const created = await reply(
    t.client.typed.POST('/api/public/v1/sequences/', { body: { instructions: INSTRUCTIONS, contacts: [{ email: contact, first_name: 'Jane', last_name: 'Doe', company_name: 'Acme Robotics' }], steps: 1 } }),
  );
  expect(created.status).toBe(202);
  await settle();
  const id = created.body.id as string;
  const approved = await reply(t.client.typed.POST('/api/public/v1/sequences/{id}/approve/', { params: { path: { id } } }));
  expect(approved.status).toBe(200);
  // The step goes out at its slot in the sender's business hours: the service clock moves just past it.
  const slot = Date.parse(approved.body.enrollments[0]!.emails[0]!.scheduled_for!);
  const now = await serviceClockNow(admin);
  await admin.console('POST', 'dev/clock/', { advance_seconds: Math.max(1, Math.ceil((slot - now.getTime()) / 1000) + 60) });
  await settle();
  expectFooter(await deliveredTo(contact));
}, 120_000);
