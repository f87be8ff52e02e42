import type { LocalStack } from '../../shared/local/stack.js';
import { startTestStack } from '../support/local.js';
import { createAccount, getAccount, listCharges } from '../../shared/accounts/accounts.repository.js';
import { createSendingAccount } from '../../shared/accounts/sending-accounts.repository.js';
import { createEmail } from '../../shared/outreach/create-email.js';
import { draftEmail } from '../../shared/outreach/drafting.js';
import { approveEmail, cancelEmail } from '../../shared/outreach/review.js';
import { SEND_LEASE_MS, SendInProgressError, sendEmail } from '../../shared/outreach/send-email.js';
import { getEmail, transition } from '../../shared/outreach/emails.repository.js';
import type { Scheduler, TimerMessage } from '../../shared/adapters/scheduler.js';

// Workers are not running here: each test plays the queue itself, delivering the same message twice
// where the point is redelivery.
let stack: LocalStack;
beforeAll(async () => {
  stack = await startTestStack({ gateway: false, workers: false });
});
afterAll(async () => {
  await stack?.stop();
});

/** Records schedules instead of creating them: these tests drive time by hand. */
function recordingScheduler(): Scheduler & { calls: { name: string; at: Date; message: TimerMessage }[]; cancelled: string[] } {
  const calls: { name: string; at: Date; message: TimerMessage }[] = [];
  const cancelled: string[] = [];
  return { calls, cancelled, scheduleAt: async (name, at, message) => void calls.push({ name, at, message }), cancel: async (name) => void cancelled.push(name) };
}

async function tenant() {
  const a = await createAccount({ name: 'w', credits: 100, public_api: true, agentic_search: false, pilot: false, auto_recharge: false }, { pilotLimit: 3 });
  const ea = await createSendingAccount(a.id, { email: `rep-${a.id}@seller.test`, type: 'google', connected: true, sending_enabled: true, daily_limit: 50, health: 'healthy', timezone: 'UTC' });
  return { accountId: a.id, ea };
}

const body = (email: string) => ({ to: { email, first_name: 'Ada' }, instructions: 'Introduce our analytics product and ask for a call.', cc: [], bcc: [], review: 'required' as const });

test('cancel while drafting: the draft is discarded and nothing is charged, even when the draft message arrives later', async () => {
  const t = await tenant();
  const { id } = await createEmail(t.accountId, body('ada1@prospect.test'));
  expect((await getAccount(t.accountId))!.balance).toBe(98); // reserved
  const cancelled = await cancelEmail(t.accountId, id, { scheduler: recordingScheduler() });
  expect(cancelled.status).toBe('cancelled');
  await draftEmail(t.accountId, id, null, { scheduler: recordingScheduler() });
  await draftEmail(t.accountId, id, null, { scheduler: recordingScheduler() });
  const e = await getEmail(t.accountId, id);
  expect(e!.status).toBe('cancelled');
  expect(e!.subject).toBe('');
  expect((await getAccount(t.accountId))!.balance).toBe(100);
  expect((await listCharges(t.accountId))[0]!.charge_status).toBe('released');
});

test('a redelivered draft message charges once and schedules one review expiry', async () => {
  const t = await tenant();
  const { id } = await createEmail(t.accountId, body('ada2@prospect.test'));
  const sched = recordingScheduler();
  await Promise.all([draftEmail(t.accountId, id, null, { scheduler: sched }), draftEmail(t.accountId, id, null, { scheduler: sched })]);
  await draftEmail(t.accountId, id, null, { scheduler: sched });
  expect((await getEmail(t.accountId, id))!.status).toBe('pending_review');
  expect((await getAccount(t.accountId))!.balance).toBe(98);
  // A redelivery makes sure of the expiry schedule again; its name makes that one schedule.
  const expiries = sched.calls.filter((c) => c.message.kind === 'review_expired');
  expect(new Set(expiries.map((c) => `${c.name}@${c.at.toISOString()}`)).size).toBe(1);
});

test('a redelivered send message never sends twice', async () => {
  const t = await tenant();
  const { id } = await createEmail(t.accountId, body('ada3@prospect.test'));
  const sched = recordingScheduler();
  await draftEmail(t.accountId, id, null, { scheduler: sched });
  await approveEmail(t.accountId, id, { schedule: 'now' }, { scheduler: sched });
  const before = stack.sentMail.length;
  const concurrent = await Promise.allSettled([sendEmail(t.accountId, id), sendEmail(t.accountId, id), sendEmail(t.accountId, id)]);
  // A delivery that reads the email after another claimed it stands back until the claim's lease ends.
  for (const r of concurrent) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(SendInProgressError);
  await sendEmail(t.accountId, id);
  expect(stack.sentMail.length - before).toBe(1);
  const e = await getEmail(t.accountId, id);
  expect(e!.status).toBe('sent');
  expect(e!.message_id).toMatch(new RegExp(`^<${id}\\.`));
});

test('an email found mid-send after a crash is failed as "may have been sent", never resent', async () => {
  const t = await tenant();
  const { id } = await createEmail(t.accountId, body('ada4@prospect.test'));
  const sched = recordingScheduler();
  await draftEmail(t.accountId, id, null, { scheduler: sched });
  await approveEmail(t.accountId, id, { schedule: 'now' }, { scheduler: sched });
  await transition(t.accountId, id, ['queued'], { status: 'sending' }); // the crashed worker's claim
  const before = stack.sentMail.length;
  await sendEmail(t.accountId, id);
  expect(stack.sentMail.length).toBe(before);
  const e = await getEmail(t.accountId, id);
  expect(e!.status).toBe('failed');
  expect(e!.error!.code).toBe('send_interrupted');
});

test('a redelivery inside a live send lease leaves the attempt alone; after the lease it fails the email, and the late attempt writes nothing', async () => {
  const t = await tenant();
  const { id } = await createEmail(t.accountId, body('ada7@prospect.test'));
  const sched = recordingScheduler();
  await draftEmail(t.accountId, id, null, { scheduler: sched });
  await approveEmail(t.accountId, id, { schedule: 'now' }, { scheduler: sched });
  const before = stack.sentMail.length;
  let redelivered: Promise<void> | null = null;
  let insideLease: unknown = null;
  // The provider is slow: while it holds the message, two redeliveries arrive, one inside the lease and
  // one (by its clock) after it.
  const slowMailer = {
    async send() {
      insideLease = await sendEmail(t.accountId, id).catch((e: unknown) => e);
      redelivered = sendEmail(t.accountId, id, { nowMs: () => Date.now() + SEND_LEASE_MS + 1000 });
      await redelivered;
      return { providerMessageId: 'provider-late-1' };
    },
  };
  await sendEmail(t.accountId, id, { mailer: slowMailer });
  expect(insideLease).toBeInstanceOf(SendInProgressError);
  expect(redelivered).not.toBeNull();
  const e = await getEmail(t.accountId, id);
  // The redelivery after the lease judged the attempt dead ("may have been sent"); the late attempt's
  // outcome, pointers and daily count are not written over it.
  expect(e!.status).toBe('failed');
  expect(e!.error!.code).toBe('send_interrupted');
  expect(e!.sent_at).toBeNull();
  expect(e!.message_id).toBeNull();
  const { findByMessageId } = await import('../../shared/outreach/emails.repository.js');
  expect(await findByMessageId('<provider-late-1>')).toBeNull();
  expect(stack.sentMail.length).toBe(before);
});

test("CC/BCC copies after a crash: the lead's copy is never resent, a copy the dead attempt held is not resent, the rest go once", async () => {
  const { sesMailer } = await import('../../shared/adapters/mailer.js');
  const t = await tenant();
  const lead = 'ada9@prospect.test';
  const { id } = await createEmail(t.accountId, { ...body(lead), cc: ['cc9@prospect.test'], bcc: ['b9a@seller.test', 'b9b@seller.test'] });
  const sched = recordingScheduler();
  await draftEmail(t.accountId, id, null, { scheduler: sched });
  await approveEmail(t.accountId, id, { schedule: 'now' }, { scheduler: sched });
  const before = stack.sentMail.length;
  const delivered = () => stack.sentMail.slice(before).map((s) => [...(s.destination.ToAddresses ?? []), ...(s.destination.CcAddresses ?? []), ...(s.destination.BccAddresses ?? [])]);
  // The real SES engine (the stack's stand-in); the first attempt's worker dies as it hands over the CC copy:
  // the lead's copy is out and recorded, the CC copy claimed, the BCC copies not yet.
  const dying = {
    envelopeDelivery: true,
    send: (mail: Parameters<typeof sesMailer.send>[0]) => (mail.to.includes(lead) ? sesMailer.send(mail) : new Promise<never>(() => undefined)),
  };
  void sendEmail(t.accountId, id, { mailer: dying });
  let e = await getEmail(t.accountId, id);
  for (let i = 0; i < 200 && e!.copies?.cc !== 'sending'; i++) {
    await new Promise((r) => setTimeout(r, 25));
    e = await getEmail(t.accountId, id);
  }
  expect(e!.status).toBe('sent');
  expect(e!.copies).toEqual({ cc: 'sending', bcc0: 'due', bcc1: 'due' });
  expect(delivered()).toEqual([[lead]]);
  // A redelivery inside the dead attempt's lease leaves it alone; one after it finishes the copies.
  await expect(sendEmail(t.accountId, id, { mailer: sesMailer })).rejects.toBeInstanceOf(SendInProgressError);
  await sendEmail(t.accountId, id, { mailer: sesMailer, nowMs: () => Date.now() + SEND_LEASE_MS + 1000 });
  await sendEmail(t.accountId, id, { mailer: sesMailer, nowMs: () => Date.now() + SEND_LEASE_MS + 1000 });
  e = await getEmail(t.accountId, id);
  expect(e!.status).toBe('sent');
  // The CC copy may or may not have reached the provider when the attempt died: never sent again.
  expect(e!.copies).toEqual({ cc: 'interrupted', bcc0: 'sent', bcc1: 'sent' });
  expect(delivered()).toEqual([[lead], ['b9a@seller.test'], ['b9b@seller.test']]);
});

test('a sender disconnected after approval fails the send with a clear error', async () => {
  const t = await tenant();
  const { id } = await createEmail(t.accountId, body('ada5@prospect.test'));
  const sched = recordingScheduler();
  await draftEmail(t.accountId, id, null, { scheduler: sched });
  await approveEmail(t.accountId, id, { schedule: 'now' }, { scheduler: sched });
  const { updateSendingAccount } = await import('../../shared/accounts/sending-accounts.repository.js');
  await updateSendingAccount(t.ea.id, { connected: false, health: 'reauth_required' });
  await sendEmail(t.accountId, id);
  const e = await getEmail(t.accountId, id);
  expect(e!.status).toBe('failed');
  expect(e!.error).toEqual({ code: 'sender_unavailable', message: expect.any(String) });
});

test('raw inbound MIME (as SES receiving stores it) is parsed, matched by In-Reply-To and recorded as the lead replying', async () => {
  const { buildMime } = await import('../../shared/outreach/mime.js');
  const { receiveRawInbound } = await import('../../shared/outreach/inbound-mail.js');
  const t = await tenant();
  const { id } = await createEmail(t.accountId, body('ada6@prospect.test'));
  const sched = recordingScheduler();
  await draftEmail(t.accountId, id, null, { scheduler: sched });
  await approveEmail(t.accountId, id, { schedule: 'now' }, { scheduler: sched });
  await sendEmail(t.accountId, id);
  const sent = await getEmail(t.accountId, id);
  const raw = await buildMime({
    messageId: '<reply-1@prospect.test>',
    from: { email: 'ada6@prospect.test', name: 'Ada' },
    to: { email: t.ea.email },
    cc: [],
    bcc: [],
    subject: `Re: ${sent!.subject}`,
    text: 'Happy to talk on Thursday.',
    html: '<p>Happy to talk on Thursday.</p>',
    headers: {},
    date: new Date(),
    inReplyTo: sent!.message_id!,
    references: [sent!.message_id!],
  });
  const outcome = await receiveRawInbound(raw, { source: 'ses', addresses: [t.ea.email], key: `raw-${id}` });
  expect(outcome).toEqual({ matched: true, classification: 'reply', email_id: id, counted_as_lead_reply: true });
  const replied = await getEmail(t.accountId, id);
  expect(replied!.status).toBe('replied');
  expect(replied!.replied_at).not.toBeNull();
  const stranger = await receiveRawInbound(Buffer.from('From: x@y.test\r\nTo: z@w.test\r\nSubject: hello\r\n\r\nno thread\r\n'), { source: 'ses', addresses: [t.ea.email], key: `stranger-${id}` });
  expect(stranger.matched).toBe(false);
});

test('a reply with a very long subject and an over-long References id is still matched, and nothing fails on key size', async () => {
  const { buildMime } = await import('../../shared/outreach/mime.js');
  const { receiveRawInbound } = await import('../../shared/outreach/inbound-mail.js');
  const t = await tenant();
  const { id } = await createEmail(t.accountId, body('ada8@prospect.test'));
  const sched = recordingScheduler();
  await draftEmail(t.accountId, id, null, { scheduler: sched });
  await approveEmail(t.accountId, id, { schedule: 'now' }, { scheduler: sched });
  await sendEmail(t.accountId, id);
  const sent = await getEmail(t.accountId, id);
  const huge = `<${'x'.repeat(3000)}@spam.test>`;
  const raw = await buildMime({
    messageId: '<reply-8@prospect.test>',
    from: { email: 'ada8@prospect.test', name: 'Ada' },
    to: { email: t.ea.email },
    cc: [],
    bcc: [],
    subject: `Re: ${'long subject '.repeat(120)}`,
    text: 'Yes, Thursday works.',
    html: '<p>Yes, Thursday works.</p>',
    headers: {},
    date: new Date(),
    references: [huge, sent!.message_id!],
  });
  const outcome = await receiveRawInbound(raw, { source: 'ses', addresses: [t.ea.email], key: `long-${id}` });
  expect(outcome).toEqual({ matched: true, classification: 'reply', email_id: id, counted_as_lead_reply: true });
  expect((await getEmail(t.accountId, id))!.status).toBe('replied');
});
