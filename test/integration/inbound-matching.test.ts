import type { LocalStack } from '../../shared/local/stack.js';
import { startTestStack } from '../support/local.js';
import { createAccount } from '../../shared/accounts/accounts.repository.js';
import { createSendingAccount } from '../../shared/accounts/sending-accounts.repository.js';
import { createEmail } from '../../shared/outreach/create-email.js';
import { draftEmail } from '../../shared/outreach/drafting.js';
import { approveEmail } from '../../shared/outreach/review.js';
import { sendEmail } from '../../shared/outreach/send-email.js';
import { getEmail } from '../../shared/outreach/emails.repository.js';
import { isSuppressed } from '../../shared/outreach/leads.repository.js';
import { handleInbound, receiveRawInbound, MAX_BODY_BYTES, type ReceivingMailbox } from '../../shared/outreach/inbound-mail.js';
import { listInboundIssues } from '../../shared/outreach/inbound-issues.repository.js';
import { mailEvidenceFor } from '../../shared/email-status/mail-evidence.repository.js';
import { documentClient } from '../../shared/adapters/aws.js';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { tableName } from '../../shared/catalog/resource-names.js';
import type { Scheduler } from '../../shared/adapters/scheduler.js';
import { dsnReport, plainMessage } from '../support/mail-reports.js';

// The inbound rules on the real DynamoDB Local, no workers: each test sends an email, then hands the
// service a message as it arrives (raw RFC 5322) and reads what changed.
let stack: LocalStack;
beforeAll(async () => {
  stack = await startTestStack({ gateway: false, workers: false });
});
afterAll(async () => {
  await stack?.stop();
});

const noScheduler: Scheduler = { scheduleAt: async () => undefined, cancel: async () => undefined };
let n = 0;

async function sentEmail(lead: string, opts: { cc?: string[]; mailbox?: string; accountId?: string } = {}) {
  const accountId =
    opts.accountId ?? (await createAccount({ name: 'w', credits: 100, public_api: true, agentic_search: false, pilot: false, auto_recharge: false }, { pilotLimit: 3 })).id;
  n += 1;
  const ea = await createSendingAccount(accountId, { email: opts.mailbox ?? `rep${n}-${accountId}@seller.test`, type: 'google', connected: true, sending_enabled: true, daily_limit: 50, health: 'healthy', timezone: 'UTC' });
  const { id } = await createEmail(accountId, { to: { email: lead, first_name: 'Ada' }, instructions: 'Introduce our analytics product and ask for a call.', cc: opts.cc ?? [], bcc: [], review: 'required' as const, from_account: ea.id } as never);
  await draftEmail(accountId, id, null, { scheduler: noScheduler });
  await approveEmail(accountId, id, { schedule: 'now' }, { scheduler: noScheduler });
  await sendEmail(accountId, id);
  const email = (await getEmail(accountId, id))!;
  expect(email.status).toBe('sent');
  return { accountId, ea, email };
}

const at = (mailbox: string, key = `k${(n += 1)}`): ReceivingMailbox => ({ source: 'ses', addresses: [mailbox], key });

function reply(o: { from: string; to: string; subject?: string; inReplyTo?: string; text?: string; extra?: string }): Buffer {
  return Buffer.from(
    plainMessage(
      [
        `From: ${o.from}`,
        `To: ${o.to}`,
        `Subject: ${o.subject ?? 'Re: Quick question'}`,
        `Message-ID: <r${(n += 1)}@prospect.test>`,
        'Date: Fri, 27 Nov 2026 10:00:00 +0000',
        ...(o.inReplyTo ? [`In-Reply-To: ${o.inReplyTo}`, `References: ${o.inReplyTo}`] : []),
        ...(o.extra ? [o.extra] : []),
      ],
      o.text ?? 'Sounds good, Thursday works.',
    ),
  );
}

/** An RFC 3464 delivery status notification from the lead's MX, returning the original's headers. */
const dsn = (o: Parameters<typeof dsnReport>[0]): Buffer => Buffer.from(dsnReport(o));

async function repliesOf(accountId: string) {
  const out = await documentClient().send(
    new QueryCommand({ TableName: tableName('outreach'), KeyConditionExpression: 'pk = :pk AND begins_with(sk, :r)', ExpressionAttributeValues: { ':pk': `ACCOUNT#${accountId}`, ':r': 'REPLY#' } }),
  );
  return out.Items ?? [];
}

test('a reply from the lead is counted; from a CC address or a stranger it is recorded and counted as nobody', async () => {
  const { accountId, ea, email } = await sentEmail('ada.lead@prospect.test', { cc: ['cole.cc@prospect.test'] });
  const fromCc = await receiveRawInbound(reply({ from: 'Cole <cole.cc@prospect.test>', to: ea.email, inReplyTo: email.message_id! }), at(ea.email));
  expect(fromCc).toEqual({ matched: true, classification: 'reply', email_id: email.id, counted_as_lead_reply: false });
  const fromStranger = await receiveRawInbound(reply({ from: 'someone@else.test', to: ea.email, inReplyTo: email.message_id! }), at(ea.email));
  expect(fromStranger.counted_as_lead_reply).toBe(false);
  expect((await getEmail(accountId, email.id))!.status).toBe('sent');
  const fromLead = await receiveRawInbound(reply({ from: 'Ada <Ada.Lead@prospect.test>', to: ea.email, inReplyTo: email.message_id! }), at(ea.email));
  expect(fromLead).toEqual({ matched: true, classification: 'reply', email_id: email.id, counted_as_lead_reply: true });
  expect((await getEmail(accountId, email.id))!.status).toBe('replied');
  expect((await repliesOf(accountId)).map((r) => r.from_email).sort()).toEqual(['ada.lead@prospect.test', 'cole.cc@prospect.test', 'someone@else.test']);
});

test('a message is matched only to emails sent from the mailbox that received it', async () => {
  const a = await sentEmail('ben@prospect.test');
  const b = await sentEmail('other@prospect.test');
  // Account B's mailbox receives a "reply" carrying account A's Message-ID: it matches nothing.
  const crossed = await receiveRawInbound(reply({ from: 'ben@prospect.test', to: b.ea.email, inReplyTo: a.email.message_id! }), at(b.ea.email));
  expect(crossed.matched).toBe(false);
  // A polled mailbox names its account: the same id seen by account B's connection matches nothing either.
  const polled = await receiveRawInbound(reply({ from: 'ben@prospect.test', to: a.ea.email, inReplyTo: a.email.message_id! }), { source: 'google', addresses: [a.ea.email], accountId: b.accountId, key: 'cross-poll' });
  expect(polled.matched).toBe(false);
  expect((await getEmail(a.accountId, a.email.id))!.status).toBe('sent');
  expect(await repliesOf(b.accountId)).toEqual([]);
});

test('a hard bounce naming the lead: the lead is bounced and suppressed in this account; the address is invalid for everyone only once a second account reports it', async () => {
  const lead = 'gone.user@prospect.test';
  const a = await sentEmail(lead);
  const out = await receiveRawInbound(dsn({ mailbox: a.ea.email, recipient: lead, status: '5.1.1', originalId: a.email.message_id!, diagnostic: '550 5.1.1 <gone.user@prospect.test>: Recipient address rejected: User unknown' }), at(a.ea.email));
  expect(out).toEqual({ matched: true, classification: 'bounce', email_id: a.email.id, counted_as_lead_reply: false });
  expect((await getEmail(a.accountId, a.email.id))!.error?.code).toBe('bounced');
  expect(await isSuppressed(a.accountId, lead)).toBe(true);
  // The same report again (a redelivery) changes nothing, and one account's report stays its own.
  await receiveRawInbound(dsn({ mailbox: a.ea.email, recipient: lead, status: '5.1.1', originalId: a.email.message_id!, diagnostic: '550 5.1.1 User unknown' }), at(a.ea.email));
  expect((await mailEvidenceFor(lead)).bounced_at).toBeUndefined();
  const b = await sentEmail(lead);
  await receiveRawInbound(dsn({ mailbox: b.ea.email, recipient: lead, status: '5.1.1', originalId: b.email.message_id!, diagnostic: '550 5.1.1 User unknown' }), at(b.ea.email));
  expect((await mailEvidenceFor(lead)).bounced_at).toEqual(expect.any(String));
});

test('a bounce naming someone else, or a soft bounce, marks nothing invalid', async () => {
  const other = await sentEmail('kept@prospect.test');
  const notLead = await receiveRawInbound(dsn({ mailbox: other.ea.email, recipient: 'cc-person@prospect.test', status: '5.1.1', originalId: other.email.message_id!, diagnostic: '550 5.1.1 User unknown' }), at(other.ea.email));
  expect(notLead.matched).toBe(true);
  expect((await getEmail(other.accountId, other.email.id))!.error).toBeNull();
  expect(await isSuppressed(other.accountId, 'kept@prospect.test')).toBe(false);

  const soft = await sentEmail('full.box@prospect.test');
  const full = await receiveRawInbound(dsn({ mailbox: soft.ea.email, recipient: 'full.box@prospect.test', status: '4.2.2', originalId: soft.email.message_id!, diagnostic: '452 4.2.2 Mailbox full' }), at(soft.ea.email));
  expect(full.classification).toBe('bounce');
  expect(await isSuppressed(soft.accountId, 'full.box@prospect.test')).toBe(false);
  expect((await getEmail(soft.accountId, soft.email.id))!.error).toBeNull();
  const [record] = (await repliesOf(soft.accountId)).filter((r) => r.classification === 'bounce');
  expect(record!.bounce).toEqual({ recipient: 'full.box@prospect.test', status: '4.2.2', hard: false, reason: expect.any(String) });
});

test('a bounce that returns no Message-ID is matched by its failed recipient and the mailbox\'s latest send to them', async () => {
  const lead = 'no.id@prospect.test';
  const s = await sentEmail(lead);
  const out = await receiveRawInbound(dsn({ mailbox: s.ea.email, recipient: lead, status: '5.1.1', originalId: null, diagnostic: '550 5.1.1 User unknown' }), at(s.ea.email));
  expect(out).toMatchObject({ matched: true, classification: 'bounce', email_id: s.email.id });
  expect(await isSuppressed(s.accountId, lead)).toBe(true);
  // Another mailbox receiving the same report matches nothing: it never sent to that address.
  const elsewhere = await sentEmail('x@prospect.test');
  expect((await receiveRawInbound(dsn({ mailbox: elsewhere.ea.email, recipient: lead, status: '5.1.1', originalId: null, diagnostic: '550 User unknown' }), at(elsewhere.ea.email))).matched).toBe(false);
});

test('a forged "Undeliverable:" from a stranger and a reply titled like a bounce are replies, and stop nothing', async () => {
  const s = await sentEmail('real.lead@prospect.test');
  const forged = await receiveRawInbound(
    reply({ from: 'prankster@elsewhere.test', to: s.ea.email, subject: 'Undeliverable: Quick question', inReplyTo: s.email.message_id!, text: 'Your message to real.lead@prospect.test could not be delivered. User unknown.', extra: 'X-Failed-Recipients: real.lead@prospect.test' }),
    at(s.ea.email),
  );
  expect(forged).toEqual({ matched: true, classification: 'reply', email_id: s.email.id, counted_as_lead_reply: false });
  expect(await isSuppressed(s.accountId, 'real.lead@prospect.test')).toBe(false);
  expect((await getEmail(s.accountId, s.email.id))!.status).toBe('sent');
  expect((await mailEvidenceFor('real.lead@prospect.test')).bounced_at).toBeUndefined();
  const titled = await receiveRawInbound(reply({ from: 'real.lead@prospect.test', to: s.ea.email, subject: 'Re: Returned mail costs at Acme', inReplyTo: s.email.message_id! }), at(s.ea.email));
  expect(titled).toEqual({ matched: true, classification: 'reply', email_id: s.email.id, counted_as_lead_reply: true });
});

test('an ARF feedback report is a complaint: the lead is suppressed in this account, listed as an auto-reply', async () => {
  const lead = 'annoyed@prospect.test';
  const s = await sentEmail(lead);
  const b = 'arf-1';
  const arf = Buffer.from(
    [
      'From: feedback@fbl.mailbox-provider.test',
      `To: ${s.ea.email}`,
      'Subject: Abuse report',
      'Message-ID: <arf1@fbl.mailbox-provider.test>',
      'Date: Fri, 27 Nov 2026 10:00:00 +0000',
      'MIME-Version: 1.0',
      `Content-Type: multipart/report; report-type=feedback-report; boundary="${b}"`,
      '',
      `--${b}`,
      'Content-Type: text/plain',
      '',
      'This is an email abuse report for an email message received from IP 192.0.2.1.',
      '',
      `--${b}`,
      'Content-Type: message/feedback-report',
      '',
      'Feedback-Type: abuse',
      'User-Agent: SomeGenerator/1.0',
      'Version: 1',
      `Original-Rcpt-To: <${lead}>`,
      '',
      `--${b}`,
      'Content-Type: message/rfc822',
      '',
      `From: ${s.ea.email}`,
      `To: ${lead}`,
      'Subject: Quick question',
      `Message-ID: ${s.email.message_id}`,
      '',
      'Hello',
      '',
      `--${b}--`,
      '',
    ].join('\r\n'),
  );
  const out = await receiveRawInbound(arf, at(s.ea.email));
  expect(out).toEqual({ matched: true, classification: 'auto_reply', email_id: s.email.id, counted_as_lead_reply: false });
  expect(await isSuppressed(s.accountId, lead)).toBe(true);
});

test('odd messages: no sender is unprocessable and listed; a 160,000-character CJK body is stored cut to its byte cap and listed as repaired', async () => {
  const s = await sentEmail('cjk@prospect.test');
  const since = new Date();
  const noSender = await handleInbound(reply({ from: 'x', to: s.ea.email, inReplyTo: s.email.message_id! }), at(s.ea.email, 'no-sender-1'));
  expect(noSender).toMatchObject({ matched: false, unprocessable: 'no_sender' });
  const long = '返信ありがとうございます。'.repeat(160_000 / 13 + 1).slice(0, 160_000);
  const out = await handleInbound(reply({ from: 'cjk@prospect.test', to: s.ea.email, inReplyTo: s.email.message_id!, text: long }), at(s.ea.email, 'cjk-1'));
  expect(out).toEqual({ matched: true, classification: 'reply', email_id: s.email.id, counted_as_lead_reply: true });
  const [stored] = await repliesOf(s.accountId);
  expect(Buffer.byteLength(stored!.body_plain as string, 'utf8')).toBeLessThanOrEqual(MAX_BODY_BYTES);
  expect(Buffer.byteLength(stored!.body_plain as string, 'utf8')).toBeGreaterThan(MAX_BODY_BYTES - 4);
  expect(stored!.body_truncated).toBe(true);
  const issues = (await listInboundIssues(since, 1, 200)).filter((i) => i.key === 'no-sender-1' || i.key === 'cjk-1');
  expect(issues.map((i) => [i.key, i.status, i.reasons]).sort()).toEqual([
    ['cjk-1', 'repaired', ['body_truncated']],
    ['no-sender-1', 'unprocessable', ['no_sender']],
  ]);
});
