import type { LocalStack } from '../../shared/local/stack.js';
import { Client, newTenant, startTestStack, reply } from '../support/local.js';

/**
 * BCC recipients of an outreach email get copies of their own (issue 30 item 6): without the lead's
 * unsubscribe link, List-Unsubscribe headers or open pixel, every BCC in a message of their own, on every
 * engine (SES, SMTP, the Gmail API and Microsoft Graph emulators). CC recipients get a copy of their own
 * where the engine delivers to the envelope (SES, SMTP); on Gmail and Graph they are on the lead's message
 * (test/e2e/cc-visible.test.ts). Checked on what each engine delivered.
 */
let stack: LocalStack;
let admin: Client;

beforeAll(async () => {
  stack = await startTestStack({ throttleMultiplier: 1000 });
  admin = new Client(stack);
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

const settle = async () => expect((await admin.console('POST', 'dev/settle/')).body).toEqual({ idle: true });
const mailbox = async () => (await admin.console('GET', 'dev/mailbox/')).body.messages as any[];

let seq = 0;
const engines = {
  ses: { type: 'smtp', transport: 'ses' },
  smtp: { type: 'smtp' },
  google: { type: 'google' },
  microsoft: { type: 'microsoft' },
} as const;

describe.each(Object.keys(engines) as (keyof typeof engines)[])('%s', (engine) => {
  test("only the lead's message carries the unsubscribe link, headers and pixel; BCC copies (and CC copies on SES and SMTP) go separately, hide every BCC, and an open of a copy counts nothing", async () => {
    // Gmail and Graph deliver to the headers: there the CC is on the lead's message, which then has no one-click.
    const sharedWithCc = engine === 'google' || engine === 'microsoft';
    const t = await newTenant(stack);
    const ea = await admin.console('POST', `accounts/${t.accountId}/sending-accounts/`, { email: `rep${++seq}.${engine}@seller.test`, ...engines[engine] });
    expect(ea.status).toBe(201);
    const n = `${engine}${++seq}.${Date.now()}`;
    const lead = `lead.${n}@prospect.test`;
    const cc = `colleague.${n}@prospect.test`;
    const bcc = [`crm.${n}@seller.test`, `manager.${n}@seller.test`];
    const created = await reply(
      t.client.typed.POST('/api/public/v1/emails/', {
        body: { to: { email: lead, first_name: 'Jane', company_name: 'Acme Robotics' }, instructions: 'Introduce our warehouse automation platform.', cc: [cc], bcc },
      }),
    );
    expect(created.status).toBe(202);
    await settle();
    const id = created.body.id as string;
    expect((await reply(t.client.typed.POST('/api/public/v1/emails/{id}/approve/', { params: { path: { id } }, body: { schedule: 'now' } }))).status).toBe(200);
    await settle();
    const email = (await reply(t.client.typed.GET('/api/public/v1/emails/{id}/', { params: { path: { id } } }))).body;
    expect(email.status).toBe('sent');

    const ours = (await mailbox()).filter((m) => m.delivered_to.some((a: string) => a.includes(n)));
    const to = (address: string) => ours.filter((m) => m.delivered_to.map((a: string) => a.toLowerCase()).includes(address));
    // Each recipient got exactly one message.
    expect(ours).toHaveLength(sharedWithCc ? 3 : 4);
    for (const address of [lead, cc, ...bcc]) expect(to(address)).toHaveLength(1);
    const [leadCopy] = to(lead);
    expect(leadCopy.delivered_to).toEqual(sharedWithCc ? [lead, cc] : [lead]);

    const token = /\/api\/public\/v1\/u\/([A-Za-z0-9_-]+)\//.exec(leadCopy.headers['list-unsubscribe'])?.[1];
    expect(token).toBeDefined();
    expect(leadCopy.headers['list-unsubscribe-post']).toBe(sharedWithCc ? undefined : 'List-Unsubscribe=One-Click');
    expect(leadCopy.text).toContain(`/api/public/v1/u/${token}/`);
    expect(leadCopy.html).toContain(`/api/public/v1/o/${token}/`);
    const whole = (m: any) => JSON.stringify({ ...m, delivered_to: undefined, bcc: undefined });
    for (const b of bcc) expect(whole(leadCopy)).not.toContain(b);

    const copies = ours.filter((m) => m !== leadCopy);
    expect(copies).toHaveLength(sharedWithCc ? 2 : 3);
    for (const copy of copies) {
      expect(whole(copy)).not.toContain(token!);
      expect(whole(copy)).not.toContain('/api/public/v1/u/');
      expect(whole(copy)).not.toContain('/api/public/v1/o/');
      expect(copy.headers['list-unsubscribe']).toBeUndefined();
      expect(copy.subject).toBe(leadCopy.subject);
    }
    // No BCC address shows in any message but as its own recipient.
    for (const b of bcc) for (const m of ours.filter((x) => !x.delivered_to.includes(b))) expect(whole(m)).not.toContain(b);
    for (const b of bcc) expect(to(b)[0].delivered_to).toEqual([b]);
    expect(to(cc)[0]).toBe(sharedWithCc ? leadCopy : copies[0]);
    if (!sharedWithCc) expect(to(cc)[0].delivered_to).toEqual([cc]);

    if (engine === 'ses' || engine === 'smtp') {
      // Engines that deliver to the envelope show every message as the one the lead got: To the lead, Cc visible.
      for (const m of ours) {
        expect(m.to).toEqual([lead]);
        expect(m.cc).toEqual([cc]);
      }
    } else {
      // Gmail and Graph deliver to the headers: the lead's message shows the lead and the CC, a BCC copy its own recipient.
      expect([leadCopy.to, leadCopy.cc]).toEqual([[lead], [cc]]);
      for (const b of bcc) expect([to(b)[0].to, to(b)[0].cc]).toEqual([[b], []]);
    }

    // Opening every copy fetches its images: none is the lead's pixel, so nothing is counted.
    const images = (html: string) => [...html.matchAll(/<img[^>]+src="([^"]+)"/g)].map((x) => x[1]!);
    for (const copy of copies) for (const src of images(copy.html)) await fetch(src);
    const afterCc = (await reply(t.client.typed.GET('/api/public/v1/emails/{id}/', { params: { path: { id } } }))).body;
    expect(afterCc.open_count).toBe(0);
    const pixel = images(leadCopy.html).filter((src) => src.includes(`/api/public/v1/o/${token}/`));
    expect(pixel).toHaveLength(1);
    expect((await fetch(pixel[0]!)).status).toBe(200);
    expect((await reply(t.client.typed.GET('/api/public/v1/emails/{id}/', { params: { path: { id } } }))).body.open_count).toBe(1);
  });
});
