import type { LocalStack } from '../../shared/local/stack.js';
import { startTestStack } from '../support/local.js';
import { createAccount, getAccount, listCharges } from '../../shared/accounts/accounts.repository.js';
import { createSendingAccount } from '../../shared/accounts/sending-accounts.repository.js';
import { DEADLINES } from '../../shared/catalog/deadlines.js';
import { advanceServiceClock } from '../../shared/core/clock.js';
import { sweepAsSweeper } from '../../shared/local/dev-controls.js';
import { runAsFunction } from '../../shared/local/function-context.js';
import { draftEmail } from '../../shared/outreach/drafting.js';
import { emailTransitionWrite, getEmails, transition } from '../../shared/outreach/emails.repository.js';
import { sweepEmail } from '../../shared/outreach/sweep-email.js';
import { createSequence } from '../../shared/sequences/create-sequence.js';
import { CreateSequenceSchema } from '../../shared/sequences/schemas.js';
import { countDraftsWrite, enrollmentEndWrites, enrollmentsOf, getSequence, lockHolders, writeTogether } from '../../shared/sequences/sequences.repository.js';

/**
 * Issue 31 item 3: nothing stays `drafting`. A pass whose drafting is overtaken by the drafting deadline (a
 * worker backlog longer than the deadline) ends: every step drafted or `failed` (its credits released), the
 * enrollment `failed` or waiting for review, and the sequence out of `drafting`, whatever order the deadline,
 * the sweeper and the drafting worker act in. No workers run here: the tests play the drafting queue (late,
 * redelivered) and the sweeper (as the `sweeper` function, with its grants) by hand, and move the service
 * clock past the deadline.
 */
let stack: LocalStack;
beforeAll(async () => {
  stack = await startTestStack({ gateway: false, workers: false });
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

/** One delivery of a step's draft message to the drafting worker. */
const deliver = (accountId: string, emailId: string) => runAsFunction('drafting-worker', () => draftEmail(accountId, emailId, null));
/** The sweeper's handling of one record it found due (it handles them in any order, several at once). */
const sweepOne = (accountId: string, emailId: string) => runAsFunction('sweeper', () => sweepEmail(accountId, emailId));
const pastTheDraftDeadline = () => advanceServiceClock((DEADLINES.DRAFT_MS + DEADLINES.DISPATCH_GRACE_MS) / 1000 + 60);

async function newSequence(tag: string, contacts: string[], steps = 3) {
  const a = await createAccount({ name: tag, credits: 100, public_api: true, agentic_search: false, pilot: false, auto_recharge: false }, { pilotLimit: 3 });
  await createSendingAccount(a.id, { email: `rep-${a.id}@seller.test`, type: 'google', connected: true, sending_enabled: true, daily_limit: 50, health: 'healthy', timezone: 'UTC' });
  const body = CreateSequenceSchema.parse({ contacts: contacts.map((email) => ({ email, first_name: 'Ada', company_name: 'Acme' })), instructions: 'Introduce our platform and ask for a call.', steps });
  const created = await createSequence(a.id, body);
  const s = (await getSequence(a.id, created.id))!;
  const ids = (await enrollmentsOf(s)).map((e) => e.email_ids);
  return { accountId: a.id, id: created.id, contacts, ids };
}

/** Everything the outcome is judged by: the sequence, its enrollments, every step (in order), the charge, the balance, the locks. */
async function outcome(t: { accountId: string; id: string; contacts: string[]; ids: string[][] }) {
  const s = (await getSequence(t.accountId, t.id))! as Awaited<ReturnType<typeof getSequence>> & { due_at?: string; pass?: unknown };
  const enrollments = await enrollmentsOf(s!);
  const steps = await Promise.all(t.ids.map(async (ids) => {
    const found = new Map((await getEmails(t.accountId, ids)).map((m) => [m.id, m as typeof m & { due_at?: string }]));
    return ids.map((id) => found.get(id)!);
  }));
  const charge = (await listCharges(t.accountId)).find((c) => c.reference === t.id)!;
  return {
    status: s!.status,
    open: s!.pass !== undefined,
    drafted: s!.drafted,
    enrollments: enrollments.map((e) => e.status),
    steps: steps.map((list) => list.map((m) => m.status)),
    stillDue: steps.flat().filter((m) => ['failed', 'cancelled'].includes(m.status) && m.due_at !== undefined).map((m) => m.id),
    charge: { reserved: charge.reserved, charged: charge.charged, status: charge.charge_status },
    balance: (await getAccount(t.accountId))!.balance,
    locks: (await lockHolders(t.accountId, t.contacts)).size,
    emails: steps,
  };
}

test('deadline → sweep → worker: a sweep that ends a later step first still ends step 0; the late messages draft and charge nothing', async () => {
  const t = await newSequence('dl-sweep-worker', ['dl1@prospect.test']);
  const [ids] = t.ids as [string[]];
  pastTheDraftDeadline();
  // The sweeper finds every step due at the deadline; here the last ones first (it keeps no order).
  await sweepOne(t.accountId, ids[2]!);
  await sweepOne(t.accountId, ids[1]!);
  await sweepAsSweeper();
  // The backlog reaches step 0's message (and its redelivery), then the message for step 1.
  await deliver(t.accountId, ids[0]!);
  await deliver(t.accountId, ids[0]!);
  await deliver(t.accountId, ids[1]!);
  const o = await outcome(t);
  expect(o).toMatchObject({ status: 'failed', open: false, drafted: 0, enrollments: ['failed'], steps: [['failed', 'failed', 'failed']], stillDue: [], balance: 100, locks: 0 });
  expect(o.charge).toEqual({ reserved: 6, charged: 0, status: 'released' });
  expect(o.emails[0]!.map((m) => m.subject)).toEqual(['', '', '']);
  expect(o.emails[0]![0]!.error).toMatchObject({ code: 'draft_failed' });
}, 120_000);

test('deadline → worker → sweep: a late message past the deadline drafts nothing and ends the enrollment itself; the sweep after it changes nothing', async () => {
  const t = await newSequence('dl-worker-sweep', ['dw1@prospect.test', 'dw2@prospect.test'], 2);
  const [a, b] = t.ids as [string[], string[]];
  // The first contact is drafted in time; the second's messages wait in the backlog past the deadline.
  await deliver(t.accountId, a[0]!);
  await deliver(t.accountId, a[1]!);
  pastTheDraftDeadline();
  await deliver(t.accountId, b[0]!);
  let o = await outcome(t);
  expect(o).toMatchObject({ status: 'pending_review', open: false, drafted: 2, enrollments: ['pending_review', 'failed'], steps: [['pending_review', 'pending_review'], ['failed', 'failed']], stillDue: [], locks: 1 });
  expect(o.charge).toEqual({ reserved: 8, charged: 4, status: 'charged' });
  expect(o.balance).toBe(96);
  await sweepAsSweeper();
  await deliver(t.accountId, b[1]!);
  o = await outcome(t);
  expect(o).toMatchObject({ status: 'pending_review', drafted: 2, steps: [['pending_review', 'pending_review'], ['failed', 'failed']], balance: 96 });
}, 120_000);

test('worker → deadline → sweep: step 0 drafted, the next message lost; the sweep ends the rest and the late message finds nothing to draft', async () => {
  const t = await newSequence('dl-worker-first', ['wf1@prospect.test']);
  const [ids] = t.ids as [string[]];
  await deliver(t.accountId, ids[0]!);
  pastTheDraftDeadline();
  // The last step first: the sweep must still end step 1, which the worker never reached.
  await sweepOne(t.accountId, ids[2]!);
  await sweepAsSweeper();
  await deliver(t.accountId, ids[1]!);
  const o = await outcome(t);
  // Step 0's draft was written (charged, as any drafted email); the enrollment cannot run, so it is cancelled.
  expect(o).toMatchObject({ status: 'failed', open: false, drafted: 1, enrollments: ['failed'], steps: [['cancelled', 'failed', 'failed']], stillDue: [], locks: 0 });
  expect(o.charge).toEqual({ reserved: 6, charged: 2, status: 'charged' });
  expect(o.balance).toBe(98);
}, 120_000);

test('sweep → worker with a late message redelivered: every step drafted once, charged once, and each waits with the same 7-day window', async () => {
  const t = await newSequence('dl-redelivered', ['rd1@prospect.test']);
  const [ids] = t.ids as [string[]];
  // Past the dispatch grace, before the deadline: the sweeper sends step 0's message again.
  advanceServiceClock(DEADLINES.DISPATCH_GRACE_MS / 1000 + 30);
  await sweepAsSweeper();
  // Both copies arrive, at once and late; so do both copies of each later step's.
  await Promise.all([deliver(t.accountId, ids[0]!), deliver(t.accountId, ids[0]!)]);
  await Promise.all([deliver(t.accountId, ids[1]!), deliver(t.accountId, ids[1]!)]);
  await deliver(t.accountId, ids[2]!);
  pastTheDraftDeadline();
  await sweepAsSweeper();
  await deliver(t.accountId, ids[2]!);
  await deliver(t.accountId, ids[0]!);
  const o = await outcome(t);
  expect(o).toMatchObject({ status: 'pending_review', open: false, drafted: 3, enrollments: ['pending_review'], steps: [['pending_review', 'pending_review', 'pending_review']], balance: 94, locks: 1 });
  expect(o.charge).toEqual({ reserved: 6, charged: 6, status: 'charged' });
  const windows = o.emails[0]!.map((m) => m.review_expires_at);
  expect(new Set(windows).size).toBe(1);
  expect(Date.parse(windows[0]!) - Date.parse(o.emails[0]![2]!.drafted_at!)).toBe(7 * 86_400_000);
}, 120_000);

test('a pass already stuck (a later step failed first, step 0 left drafting and off the due index) is ended by the sequence’s own sweep', async () => {
  const t = await newSequence('dl-stuck', ['st1@prospect.test']);
  const [ids] = t.ids as [string[]];
  const s = (await getSequence(t.accountId, t.id))!;
  const iso = new Date().toISOString();
  const error = { code: 'draft_failed', message: 'failed before the fix' };
  // What the sweeper used to leave: steps 1 and 2 failed and counted, the enrollment failed, step 0 still drafting.
  await writeTogether([
    emailTransitionWrite(t.accountId, ids[1]!, ['drafting'], { status: 'failed', updated_at: iso, error }),
    emailTransitionWrite(t.accountId, ids[2]!, ['drafting'], { status: 'failed', updated_at: iso, error }),
    ...enrollmentEndWrites(t.accountId, t.contacts[0]!, t.id, ['drafting'], { status: 'failed', updated_at: iso }),
    countDraftsWrite(t.accountId, t.id, s.pass!.id, 'failed', 2),
  ]);
  // Step 0's own due time is lost too: only the sequence, due after the pass's deadline, is left to find it.
  await transition(t.accountId, ids[0]!, ['drafting'], {}, [], { due: null });
  pastTheDraftDeadline();
  await sweepAsSweeper();
  const o = await outcome(t);
  expect(o).toMatchObject({ status: 'failed', open: false, drafted: 0, enrollments: ['failed'], steps: [['failed', 'failed', 'failed']], stillDue: [], balance: 100, locks: 0 });
  expect(o.charge).toEqual({ reserved: 6, charged: 0, status: 'released' });
}, 120_000);
