import type { LocalStack } from '../../shared/local/stack.js';
import { startTestStack } from '../support/local.js';
import { createAccount, getAccount, listCharges } from '../../shared/accounts/accounts.repository.js';
import { createSendingAccount } from '../../shared/accounts/sending-accounts.repository.js';
import type { SQSRecord } from 'aws-lambda';
import { advanceServiceClock, serviceClock } from '../../shared/core/clock.js';
import { ConflictError } from '../../shared/core/errors.js';
import { sweepAsSweeper } from '../../shared/local/dev-controls.js';
import { runAsFunction } from '../../shared/local/function-context.js';
import { draftEmail } from '../../shared/outreach/drafting.js';
import { editEmail } from '../../shared/outreach/edit-email.js';
import { getEmails } from '../../shared/outreach/emails.repository.js';
import { PatchEmailSchema } from '../../shared/outreach/schemas.js';
import { addContacts } from '../../shared/sequences/add-contacts.js';
import { createSequence } from '../../shared/sequences/create-sequence.js';
import { approveSequence } from '../../shared/sequences/sequence-actions.js';
import { getOwnSequence } from '../../shared/sequences/sequence-views.js';
import { AddContactsSchema, CreateSequenceSchema } from '../../shared/sequences/schemas.js';
import { enrollmentsOf, getSequence, lockHolders } from '../../shared/sequences/sequences.repository.js';
import { handleRecord } from '../../shared/workers/dispatch.js';
import { timerHandlers } from '../../shared/workers/timers.handlers.js';

/**
 * Issue 31 item 4: one review rule. Sequence steps wait in `pending_review` with a `review_expires_at` (the
 * enrollment's window: 7 days from its latest draft, extended by an edit of any of its steps) and expire as a
 * single email does; adding contacts with review `none` approves every enrollment still waiting for review.
 * No workers run: the tests deliver the drafting messages and the review timers by hand, and move the clock.
 */
let stack: LocalStack;
beforeAll(async () => {
  stack = await startTestStack({ gateway: false, workers: false });
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

const DAY_S = 86_400;
const deliver = (accountId: string, emailId: string) => runAsFunction('drafting-worker', () => draftEmail(accountId, emailId, null));
const contact = (email: string) => ({ email, first_name: 'Ada', company_name: 'Acme' });

async function tenant(tag: string) {
  const a = await createAccount({ name: tag, credits: 200, public_api: true, agentic_search: false, pilot: false, auto_recharge: false }, { pilotLimit: 3 });
  await createSendingAccount(a.id, { email: `rep-${a.id}@seller.test`, type: 'google', connected: true, sending_enabled: true, daily_limit: 50, health: 'healthy', timezone: 'UTC' });
  return a.id;
}

/** A sequence created and drafted in full (every step message delivered in order). */
async function draftedSequence(accountId: string, emails: string[], review: 'required' | 'none' = 'required') {
  const created = await createSequence(accountId, CreateSequenceSchema.parse({ contacts: emails.map(contact), instructions: 'Introduce our platform and ask for a call.', steps: 3, review }));
  await draftAll(accountId, created.id);
  return created.id;
}

async function draftAll(accountId: string, id: string) {
  for (const e of await enrollmentsOf((await getSequence(accountId, id))!)) for (const step of e.email_ids) await deliver(accountId, step);
}

async function stepsOf(accountId: string, id: string) {
  const enrollments = await enrollmentsOf((await getSequence(accountId, id))!);
  return Promise.all(
    enrollments.map(async (e) => {
      const found = new Map((await getEmails(accountId, e.email_ids)).map((m) => [m.id, m]));
      return { contact: e.contact.email, status: e.status, steps: e.email_ids.map((i) => found.get(i)!) };
    }),
  );
}

test('steps wait with their enrollment’s 7-day window, an edit extends it, and unapproved enrollments expire: steps and enrollment cancelled, nothing sent, the sequence cancelled', async () => {
  const accountId = await tenant('window');
  const [a, b] = ['win-a@prospect.test', 'win-b@prospect.test'];
  const id = await draftedSequence(accountId, [a, b]);
  const [ea, eb] = (await stepsOf(accountId, id)) as [Awaited<ReturnType<typeof stepsOf>>[number], Awaited<ReturnType<typeof stepsOf>>[number]];
  for (const e of [ea, eb]) {
    const windows = new Set(e.steps.map((m) => m.review_expires_at));
    expect(windows.size).toBe(1);
    expect(Date.parse(e.steps[0]!.review_expires_at!) - Date.parse(e.steps[2]!.drafted_at!)).toBe(7 * DAY_S * 1000);
  }
  // The read shows each step's window, as GET /emails/{id}/ does for a single email.
  const read = await getOwnSequence(accountId, id);
  expect(read.status).toBe('pending_review');
  expect(read.enrollments[0]!.emails.map((m) => m.review_expires_at)).toEqual(ea.steps.map((m) => m.review_expires_at));
  expect(read.enrollments[0]!.emails.every((m) => typeof m.review_expires_at === 'string')).toBe(true);
  // One expiry schedule per enrollment, at its window.
  const scheduleOf = (stepZero: string) => stack.scheduler.pending().find((s) => s.Name === `review.${stepZero}`);
  expect(scheduleOf(ea.steps[0]!.id)?.ScheduleExpression).toBe(`at(${ea.steps[0]!.review_expires_at!.slice(0, 19)})`);

  // Three days in, an edit of a's follow-up extends a's whole window (every waiting step's), and its schedule.
  advanceServiceClock(3 * DAY_S);
  const sentBefore = stack.sentMail.length;
  const editedAt = serviceClock.now();
  await runAsFunction('PATCH /api/public/v1/emails/{id}/', () => editEmail(accountId, ea.steps[1]!.id, PatchEmailSchema.parse({ subject: 'A better subject' }), { clock: { now: () => editedAt } }));
  const extended = new Date(editedAt.getTime() + 7 * DAY_S * 1000).toISOString();
  expect((await stepsOf(accountId, id))[0]!.steps.map((m) => m.review_expires_at)).toEqual([extended, extended, extended]);
  const timer = scheduleOf(ea.steps[0]!.id)!;
  expect(timer.ScheduleExpression).toBe(`at(${extended.slice(0, 19)})`);

  // Past b's window: b expires (found due by the sweeper); a waits on.
  advanceServiceClock(4 * DAY_S + 60);
  await sweepAsSweeper();
  let now = await stepsOf(accountId, id);
  expect(now.map((e) => e.status)).toEqual(['pending_review', 'cancelled']);
  expect(now[1]!.steps.map((m) => [m.status, m.error?.code])).toEqual([['cancelled', 'review_expired'], ['cancelled', 'review_expired'], ['cancelled', 'review_expired']]);
  expect(now[0]!.steps.map((m) => m.status)).toEqual(['pending_review', 'pending_review', 'pending_review']);
  expect((await getSequence(accountId, id))!.status).toBe('pending_review');
  expect([...(await lockHolders(accountId, [a, b])).keys()]).toEqual([a]);

  // Past a's extended window: its schedule's timer message arrives (the timers worker) and a expires.
  advanceServiceClock(3 * DAY_S);
  const record = { messageId: 'review-timer', body: timer.Target.Input!, attributes: { ApproximateReceiveCount: '1' } } as unknown as SQSRecord;
  await runAsFunction('timers-worker', () => handleRecord('timers', timerHandlers, record));
  now = await stepsOf(accountId, id);
  expect(now.map((e) => e.status)).toEqual(['cancelled', 'cancelled']);
  expect(now[0]!.steps.map((m) => [m.status, m.error?.code])).toEqual([['cancelled', 'review_expired'], ['cancelled', 'review_expired'], ['cancelled', 'review_expired']]);
  const s = (await getSequence(accountId, id))!;
  expect(s.status).toBe('cancelled');
  expect((await lockHolders(accountId, [a, b])).size).toBe(0);
  // Nothing sent; the drafts stay charged, as an expired email's draft does, and nothing is left reserved.
  expect(stack.sentMail.length).toBe(sentBefore);
  expect((await listCharges(accountId)).find((c) => c.reference === id)).toMatchObject({ reserved: 12, charged: 12, charge_status: 'charged' });
  expect((await getAccount(accountId))!.balance).toBe(188);
  // The sweeper finds nothing more to do with it, and approving it now is a conflict.
  await sweepAsSweeper();
  expect((await getSequence(accountId, id))!.status).toBe('cancelled');
  await expect(approveSequence(accountId, id)).rejects.toBeInstanceOf(ConflictError);
}, 120_000);

test('a sequence whose window has closed cannot be approved, even before its expiry is processed', async () => {
  const accountId = await tenant('closed');
  const id = await draftedSequence(accountId, ['closed-a@prospect.test']);
  advanceServiceClock(7 * DAY_S + 60);
  await expect(approveSequence(accountId, id)).rejects.toBeInstanceOf(ConflictError);
  expect((await stepsOf(accountId, id))[0]!.steps.map((m) => m.status)).toEqual(['pending_review', 'pending_review', 'pending_review']);
  await sweepAsSweeper();
  expect((await stepsOf(accountId, id)).map((e) => e.status)).toEqual(['cancelled']);
  expect((await getSequence(accountId, id))!.status).toBe('cancelled');
}, 120_000);

test('adding contacts with review none approves every enrollment still waiting for review once drafting finishes, and the sequence reads active', async () => {
  const accountId = await tenant('add-none');
  const id = await draftedSequence(accountId, ['first@prospect.test']);
  expect((await getSequence(accountId, id))!.status).toBe('pending_review');
  const added = await addContacts(accountId, id, AddContactsSchema.parse({ contacts: [contact('second@prospect.test')], review: 'none' }));
  expect(added.status).toBe('drafting');
  await draftAll(accountId, id);

  const s = (await getSequence(accountId, id))!;
  expect(s.status).toBe('active');
  expect(s.pass).toBeUndefined();
  const [first, second] = await stepsOf(accountId, id);
  expect([first!.status, second!.status]).toEqual(['active', 'active']);
  for (const e of [first!, second!]) {
    expect(e.steps.map((m) => m.status)).toEqual(['queued', 'queued', 'queued']);
    expect(e.steps.map((m) => m.review_expires_at)).toEqual([null, null, null]);
    // Step 0 has its send slot; the follow-ups wait for the step before them to be sent.
    expect(e.steps[0]!.scheduled_for).not.toBeNull();
  }
  expect(stack.scheduler.pending().some((x) => x.Name === `review.${first!.steps[0]!.id}`)).toBe(false);
  expect((await listCharges(accountId)).filter((c) => c.reference === id).map((c) => [c.reserved, c.charged, c.charge_status])).toEqual(expect.arrayContaining([[6, 6, 'charged'], [6, 6, 'charged']]));
}, 120_000);
