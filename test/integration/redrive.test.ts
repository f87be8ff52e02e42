import type { SQSEvent } from 'aws-lambda';
import type { LocalStack } from '../../shared/local/stack.js';
import { Client, newTenant, startTestStack } from '../support/local.js';
import { drainQueue, sqsRecord } from '../support/probes.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import { advanceServiceClock, serviceClock } from '../../shared/core/clock.js';
import { DEADLINES } from '../../shared/catalog/deadlines.js';
import { getAccount, listCharges } from '../../shared/accounts/accounts.repository.js';
import { reserve } from '../../shared/accounts/ledger.repository.js';
import { getJob, leaseWebhookAttempt, markRunning } from '../../shared/jobs/jobs.repository.js';
import { runPhoneEnrichJob } from '../../shared/enrichment/phone-job.js';
import { deliverJobEvent } from '../../shared/jobs/job-webhooks.js';
import { draftEmail } from '../../shared/outreach/drafting.js';
import { sendEmail } from '../../shared/outreach/send-email.js';
import { getEmail, transition } from '../../shared/outreach/emails.repository.js';
import { sweep } from '../../shared/workers/sweep.js';
import { deadLetterHandler } from '../../shared/workers/dead-letters.js';
import { lambdaContext } from '../../shared/local/event-source-runner.js';
import type { Scheduler, TimerMessage } from '../../shared/adapters/scheduler.js';

/**
 * A crash between two steps of every workflow, and what finishes it: a redelivery of the same message, the
 * sweeper once the step is overdue, or the dead-letter consumer. Workers do not run here: each test plays the
 * queues by hand, taking the messages the code really sent off the real local queues, so the test sees
 * exactly what was re-driven, and how many times.
 */
let stack: LocalStack;
let hook: WebhookReceiver;
beforeAll(async () => {
  stack = await startTestStack({ workers: false, throttleMultiplier: 100 });
  hook = await new WebhookReceiver([]).start();
});
afterAll(async () => {
  await hook?.stop();
  await stack?.stop();
});

/** A scheduler whose calls are recorded, or that fails the way a crash before the call would leave things. */
function recordingScheduler(opts: { crash?: boolean } = {}): Scheduler & { calls: { name: string; at: Date; message: TimerMessage }[] } {
  const calls: { name: string; at: Date; message: TimerMessage }[] = [];
  return {
    calls,
    scheduleAt: async (name, at, message) => {
      if (opts.crash) throw new Error('crashed before the schedule was created');
      calls.push({ name, at, message });
    },
    cancel: async () => undefined,
  };
}

const pastGrace = () => advanceServiceClock(DEADLINES.DISPATCH_GRACE_MS / 1000 + 1);

async function phoneTenant() {
  const t = await newTenant(stack, { credits: 200 }, { webhookSecret: true, sender: { email: `rep-${Date.now()}@seller.test`, type: 'google' } });
  const secret = (await t.admin.console('POST', `accounts/${t.accountId}/webhook-secrets/`)).body.secret as string;
  return { ...t, secret };
}

const phoneBody = () => ({ email: `nobody-${Math.random().toString(36).slice(2)}@nowhere.test`, webhook_url: hook.url });

test('a job whose dispatch was lost is sent again by the sweeper and runs once', async () => {
  const t = await phoneTenant();
  const accepted = await t.client.api('POST', 'enrich/phone/', phoneBody());
  expect(accepted.status).toBe(202);
  expect((await drainQueue(stack, 'search')).map((m) => m.job_id)).toEqual([accepted.body.id]);
  // The message is lost (a crash before the worker took it): within the grace the sweeper leaves it alone.
  expect((await sweep()).redriven).toBe(0);
  pastGrace();
  expect((await sweep()).redriven).toBeGreaterThanOrEqual(1);
  const again = (await drainQueue(stack, 'search')).filter((m) => m.job_id === accepted.body.id);
  expect(again).toHaveLength(1);
  await runPhoneEnrichJob(accepted.body.id, null);
  await runPhoneEnrichJob(accepted.body.id, null); // and a late duplicate of the first message
  const job = await getJob(accepted.body.id);
  expect([job!.status, job!.webhook_status]).toEqual(['completed', 'queued']);
  const charges = (await listCharges(t.accountId)).filter((c) => c.reference === accepted.body.id);
  expect(charges.map((c) => [c.charge_status, c.charged])).toEqual([['zero_result', 0]]);
  expect((await getAccount(t.accountId))!.balance).toBe(200);
  // Its first delivery is on its way (the duplicate sends it again, which the attempt's lease makes harmless).
  const deliveries = (await drainQueue(stack, 'webhooks')).filter((m) => m.job_id === accepted.body.id);
  expect(deliveries.length).toBeGreaterThanOrEqual(1);
  expect(new Set(deliveries.map((m) => m.attempt))).toEqual(new Set([1]));
});

test('a job that crashed after it started running finishes once on redelivery: one charge, one queued webhook', async () => {
  const t = await phoneTenant();
  const accepted = await t.client.api('POST', 'enrich/phone/', phoneBody());
  await drainQueue(stack, 'search');
  await markRunning((await getJob(accepted.body.id))!, serviceClock.now().toISOString()); // the crashed attempt got this far
  await runPhoneEnrichJob(accepted.body.id, null);
  const job = await getJob(accepted.body.id);
  expect(job!.status).toBe('completed');
  const settled = (await listCharges(t.accountId)).filter((c) => c.reference === accepted.body.id);
  expect(settled).toHaveLength(1);
  expect(settled[0]!.charge_status).toBe('zero_result');
});

test('a finished job whose webhook message was lost is delivered by the sweeper, once, with its fixed webhook-id', async () => {
  const t = await phoneTenant();
  hook.setSecrets([t.secret]);
  const accepted = await t.client.api('POST', 'enrich/phone/', phoneBody());
  await drainQueue(stack, 'search');
  await runPhoneEnrichJob(accepted.body.id, null);
  expect((await drainQueue(stack, 'webhooks')).filter((m) => m.job_id === accepted.body.id)).toHaveLength(1); // lost
  pastGrace();
  await sweep();
  const redriven = (await drainQueue(stack, 'webhooks')).filter((m) => m.job_id === accepted.body.id);
  expect(redriven).toEqual([{ kind: 'deliver_job_event', job_id: accepted.body.id, attempt: 1 }]);
  await deliverJobEvent(accepted.body.id, 1);
  await deliverJobEvent(accepted.body.id, 1); // a duplicate finds the attempt made
  const got = hook.received.filter((r) => r.body.id === accepted.body.id);
  expect(got).toHaveLength(1);
  expect(got[0]!.headers['webhook-id']).toBe(`msg_${accepted.body.id}`);
  expect(got[0]!.verified).toBe(true);
  expect((await getJob(accepted.body.id))!.webhook_status).toBe('delivered');
  pastGrace();
  await sweep();
  expect((await drainQueue(stack, 'webhooks')).filter((m) => m.job_id === accepted.body.id)).toHaveLength(0); // off the due index
});

test('a delivery that finds a dead attempt\'s lease is retried later, not consumed; after the lease it delivers', async () => {
  const t = await phoneTenant();
  hook.setSecrets([t.secret]);
  const accepted = await t.client.api('POST', 'enrich/phone/', phoneBody());
  await drainQueue(stack, 'search');
  await runPhoneEnrichJob(accepted.body.id, null);
  await drainQueue(stack, 'webhooks');
  expect(await leaseWebhookAttempt(accepted.body.id, 1, Date.now(), 1500)).toBe(true); // the crashed process's (short) lease
  await expect(deliverJobEvent(accepted.body.id, 1)).rejects.toThrow(/leased by another delivery/);
  expect(hook.received.filter((r) => r.body.id === accepted.body.id)).toHaveLength(0);
  await new Promise((r) => setTimeout(r, 1600)); // the lease runs out; the message, not consumed, comes back
  await deliverJobEvent(accepted.body.id, 1);
  expect(hook.received.filter((r) => r.body.id === accepted.body.id)).toHaveLength(1);
});

test('a job past its deadline is failed by the sweeper with its reservation released and its webhook queued', async () => {
  const t = await phoneTenant();
  const accepted = await t.client.api('POST', 'enrich/phone/', phoneBody());
  await drainQueue(stack, 'search');
  await markRunning((await getJob(accepted.body.id))!, serviceClock.now().toISOString());
  advanceServiceClock(DEADLINES.JOB_MS / 1000 + 1);
  await sweep();
  const job = await getJob(accepted.body.id);
  expect([job!.status, job!.error?.code, job!.event_type, job!.webhook_status]).toEqual(['failed', 'error', 'phone_enrich.failed', 'queued']);
  expect((await listCharges(t.accountId)).find((c) => c.reference === accepted.body.id)!.charge_status).toBe('released');
  expect((await getAccount(t.accountId))!.balance).toBe(200);
  expect((await drainQueue(stack, 'webhooks')).map((m) => m.job_id)).toContain(accepted.body.id);
});

test('a dead-lettered job is failed and released by the dead-letter consumer; a second copy changes nothing', async () => {
  const t = await phoneTenant();
  const accepted = await t.client.api('POST', 'enrich/phone/', phoneBody());
  await drainQueue(stack, 'search');
  const record = sqsRecord('dead-1', { kind: 'phone_enrich', job_id: accepted.body.id }, 'local-search-dlq');
  const event: SQSEvent = { Records: [record, { ...record, messageId: 'dead-2' }] };
  expect((await deadLetterHandler(event, lambdaContext('dead-letters'))).batchItemFailures).toEqual([]);
  const job = await getJob(accepted.body.id);
  expect([job!.status, job!.error?.code]).toEqual(['failed', 'error']);
  const charges = (await listCharges(t.accountId)).filter((c) => c.reference === accepted.body.id);
  expect(charges.map((c) => c.charge_status)).toEqual(['released']);
  expect((await getAccount(t.accountId))!.balance).toBe(200);
});

test('a synchronous call that died holding a reservation is released as lost_released after its deadline', async () => {
  const t = await phoneTenant();
  const r = await reserve({ accountId: t.accountId, operation: 'email_enrich', reference: 'req_crashed', amount: 1 });
  expect((await getAccount(t.accountId))!.balance).toBe(199);
  pastGrace();
  await sweep();
  expect((await listCharges(t.accountId)).find((c) => c.id === r.id)!.charge_status).toBe('pending'); // a live call's time is not up
  advanceServiceClock(DEADLINES.SYNC_CALL_DEADLINE_MS / 1000);
  await sweep();
  const settled = (await listCharges(t.accountId)).find((c) => c.id === r.id)!;
  expect([settled.charge_status, settled.charged]).toEqual(['lost_released', 0]);
  expect((await getAccount(t.accountId))!.balance).toBe(200);
  await sweep(); // and never twice
  expect((await getAccount(t.accountId))!.balance).toBe(200);
});

const emailBody = (review: 'required' | 'none') => ({ to: { email: `lead-${Math.random().toString(36).slice(2)}@prospect.test`, first_name: 'Ada' }, instructions: 'Introduce our analytics product and ask for a call.', review });

test('an email whose draft message was lost is drafted after the sweeper sends it again, charged once', async () => {
  const t = await phoneTenant();
  const created = await t.client.api('POST', 'emails/', emailBody('required'));
  expect(created.status).toBe(202);
  expect((await drainQueue(stack, 'drafting')).map((m) => m.email_id)).toEqual([created.body.id]); // lost
  pastGrace();
  await sweep();
  const again = (await drainQueue(stack, 'drafting')).filter((m) => m.email_id === created.body.id);
  expect(again).toHaveLength(1);
  const sched = recordingScheduler();
  await draftEmail(t.accountId, created.body.id, null, { scheduler: sched });
  await draftEmail(t.accountId, created.body.id, null, { scheduler: sched });
  expect((await getEmail(t.accountId, created.body.id))!.status).toBe('pending_review');
  const charges = (await listCharges(t.accountId)).filter((c) => c.reference === created.body.id);
  expect(charges.map((c) => [c.charge_status, c.charged])).toEqual([['charged', 2]]);
});

test('a draft whose review-expiry schedule was never created (crash) gets it on redelivery, and expires on time without it', async () => {
  const t = await phoneTenant();
  const created = await t.client.api('POST', 'emails/', emailBody('required'));
  await drainQueue(stack, 'drafting');
  await expect(draftEmail(t.accountId, created.body.id, null, { scheduler: recordingScheduler({ crash: true }) })).rejects.toThrow(/crashed/);
  const drafted = await getEmail(t.accountId, created.body.id);
  expect(drafted!.status).toBe('pending_review');
  // The charge was settled in the same transaction as the draft: nothing is left pending by the crash.
  expect((await listCharges(t.accountId)).find((c) => c.reference === created.body.id)!.charge_status).toBe('charged');
  const sched = recordingScheduler();
  await draftEmail(t.accountId, created.body.id, null, { scheduler: sched }); // the redelivery
  expect(sched.calls.map((c) => [c.name, c.at.toISOString()])).toEqual([[`review.${created.body.id}`, drafted!.review_expires_at]]);

  // Without any schedule at all, the sweeper closes the window on time; approve after it is a conflict.
  advanceServiceClock(7 * 86400 + 1);
  const late = await t.client.api('POST', `emails/${created.body.id}/approve/`, { schedule: 'now' });
  expect([late.status, late.body.error.code]).toEqual([409, 'conflict']);
  await sweep();
  const expired = await getEmail(t.accountId, created.body.id);
  expect([expired!.status, expired!.error?.code]).toEqual(['cancelled', 'review_expired']);
});

test('an approval that crashed before its slot was booked is scheduled by the sweeper as asked, and sent once', async () => {
  const t = await phoneTenant();
  const created = await t.client.api('POST', 'emails/', emailBody('required'));
  await drainQueue(stack, 'drafting');
  await draftEmail(t.accountId, created.body.id, null, { scheduler: recordingScheduler() });
  // The approval's first write happened (queued, its requested schedule kept, due within the grace), and the
  // process died before booking the slot: that write, as approveEmail makes it.
  const sendAt = new Date(serviceClock.now().getTime() + 3600_000).toISOString();
  await transition(t.accountId, created.body.id, ['pending_review'], { status: 'queued', review_expires_at: null, send_request: { mode: 'at', send_at: sendAt } }, [], {
    due: new Date(serviceClock.now().getTime() + DEADLINES.DISPATCH_GRACE_MS),
  });
  expect((await sweep()).redriven).toBe(0); // within the grace a live approval is still booking it
  pastGrace();
  const sched = recordingScheduler();
  await sweep({ scheduler: sched });
  const scheduled = await getEmail(t.accountId, created.body.id);
  expect(scheduled!.scheduled_for).toBe(sendAt); // as the approval asked
  expect(sched.calls.map((c) => c.message.kind)).toEqual(['send_due']);
  // The slot comes and its timer is lost: the sweeper puts the email on the sending queue, and it is sent once.
  advanceServiceClock((new Date(scheduled!.scheduled_for!).getTime() - serviceClock.now().getTime()) / 1000 + DEADLINES.DISPATCH_GRACE_MS / 1000 + 1);
  await sweep({ scheduler: sched });
  const sends = (await drainQueue(stack, 'sending')).filter((m) => m.kind === 'send_email' && m.email_id === created.body.id);
  expect(sends).toHaveLength(1);
  const before = stack.sentMail.length;
  await sendEmail(t.accountId, created.body.id);
  await sendEmail(t.accountId, created.body.id);
  expect(stack.sentMail.length).toBe(before + 1);
  const sent = await getEmail(t.accountId, created.body.id);
  expect(sent!.status).toBe('sent');
  await sweep({ scheduler: sched });
  expect((await drainQueue(stack, 'sending')).filter((m) => m.kind === 'send_email' && m.email_id === created.body.id)).toHaveLength(0);
});

test('a send that died after its claim is failed by the sweeper as "may have been sent" once its lease is over, never resent', async () => {
  const t = await phoneTenant();
  const created = await t.client.api('POST', 'emails/', emailBody('none'));
  await drainQueue(stack, 'drafting');
  await draftEmail(t.accountId, created.body.id, null, { scheduler: recordingScheduler() });
  const due = new Date(serviceClock.now().getTime() + 60_000);
  await transition(t.accountId, created.body.id, ['queued'], { status: 'sending', send_attempt: 'dead-attempt', send_lease_until_ms: Date.now() - 1 }, [], { due });
  advanceServiceClock(61);
  const before = stack.sentMail.length;
  await sweep();
  const e = await getEmail(t.accountId, created.body.id);
  expect([e!.status, e!.error?.code]).toEqual(['failed', 'send_interrupted']);
  expect(stack.sentMail.length).toBe(before);
});

test('a dead-lettered draft is failed and released; a sweep of a cancelled draft finds nothing to do', async () => {
  const t = await phoneTenant();
  const created = await t.client.api('POST', 'emails/', emailBody('required'));
  await drainQueue(stack, 'drafting');
  const record = sqsRecord('dead-draft', { kind: 'draft_email', account_id: t.accountId, email_id: created.body.id }, 'local-drafting-dlq');
  await deadLetterHandler({ Records: [record] }, lambdaContext('dead-letters'));
  const e = await getEmail(t.accountId, created.body.id);
  expect([e!.status, e!.error?.code]).toEqual(['failed', 'draft_failed']);
  expect((await listCharges(t.accountId)).find((c) => c.reference === created.body.id)!.charge_status).toBe('released');
  expect((await getAccount(t.accountId))!.balance).toBe(200);
  const cancelled = await t.client.api('POST', 'emails/', emailBody('required'));
  expect((await new Client(stack, t.apiKey).api('POST', `emails/${cancelled.body.id}/cancel/`)).status).toBe(200);
  pastGrace();
  const report = await sweep();
  expect(report.failed).toBe(0);
  expect((await getEmail(t.accountId, cancelled.body.id))!.status).toBe('cancelled');
});
