import type { LocalStack } from '../../shared/local/stack.js';
import { startTestStack } from '../support/local.js';
import { createAccount, getAccount, listCharges } from '../../shared/accounts/accounts.repository.js';
import { createSendingAccount } from '../../shared/accounts/sending-accounts.repository.js';
import type { Scheduler } from '../../shared/adapters/scheduler.js';
import { draftEmail } from '../../shared/outreach/drafting.js';
import { getEmails } from '../../shared/outreach/emails.repository.js';
import { materializePass } from '../../shared/sequences/materialize-pass.js';
import { newPass, pendingOf, reservePass } from '../../shared/sequences/reserve-pass.js';
import { cancelSequence } from '../../shared/sequences/sequence-actions.js';
import { contactFacts, enrollmentsOf, getSequence, lockHolders, newSequenceWrite } from '../../shared/sequences/sequences.repository.js';
import type { PendingEnrollment, SequenceRecord } from '../../shared/sequences/model.js';
import { newId } from '../../shared/core/ids.js';
import { serviceClock } from '../../shared/core/clock.js';

/**
 * The race of a cancel with the first enrollment writes, played by hand (no workers): the pass is reserved
 * (locks taken), the cancel lands before any enrollment is written, and the enrollment writes arrive after
 * it, as a slow create or the sweeper would make them. Nothing of the late writes may survive.
 */
let stack: LocalStack;
beforeAll(async () => {
  stack = await startTestStack({ gateway: false, workers: false });
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

const scheduler: Scheduler = { scheduleAt: async () => undefined, cancel: async () => undefined };

async function reservedSequence(accountId: string, addresses: string[], steps: number) {
  const now = new Date();
  const id = newId('sq', now.getTime());
  const sender = await createSendingAccount(accountId, { email: `rep-${id}@seller.test`, type: 'google', connected: true, sending_enabled: true, daily_limit: 50, health: 'healthy', timezone: 'UTC' });
  const contacts = addresses.map((email) => ({ email, first_name: 'Ada', company_name: 'Acme' }));
  const pass = newPass(sender, 'required', null, now);
  const record = (pending: PendingEnrollment[]): SequenceRecord => ({
    id, account_id: accountId, name: null, status: 'drafting', created_at: now.toISOString(), updated_at: now.toISOString(), instructions: 'Introduce our platform.', steps, reply_to: null, cc: [], bcc: [],
    contacts: pending.map((p) => p.contact.email.toLowerCase()), total_emails: pending.length * steps, drafted: 0, pass: { ...pass, total: pending.length * steps }, pass_pending: pending, pending_count: pending.length, pass_drafted: 0, pass_failed: 0,
  });
  const reserved = await reservePass(
    { accountId, sequenceId: id, chargeId: pass.charge_id, steps, judged: { eligible: contacts, sent: contacts, rejected: [] }, pending: await pendingOf(contacts, await contactFacts(accountId, contacts.map((c) => c.email)), steps, now) },
    (pending) => newSequenceWrite(record(pending), new Date(now.getTime() + 60_000)),
    serviceClock,
  );
  return record(reserved.pending);
}

test('a cancel before the enrollments are written: the late writes write nothing, nothing is charged, every address is free again', async () => {
  const account = await createAccount({ name: 'race', credits: 100, public_api: true, agentic_search: false, pilot: false, auto_recharge: false }, { pilotLimit: 3 });
  const addresses = ['race1@prospect.test', 'race2@prospect.test', 'race3@prospect.test'];
  const s = await reservedSequence(account.id, addresses, 2);
  expect((await getAccount(account.id))!.balance).toBe(100 - 12);
  expect([...(await lockHolders(account.id, addresses)).values()]).toEqual([s.id, s.id, s.id]);

  const cancelled = await cancelSequence(account.id, s.id, { scheduler });
  expect(cancelled.status).toBe('cancelled');
  // The writes of the create (or the sweeper) arrive after the cancel, with the record as they read it.
  await materializePass(s);
  const stepIds = s.pass_pending!.flatMap((p) => p.email_ids);
  for (const id of stepIds) await draftEmail(account.id, id, null, { scheduler });

  expect(await getEmails(account.id, stepIds)).toEqual([]);
  const after = (await getSequence(account.id, s.id))!;
  expect((await enrollmentsOf(after)).map((e) => [e.status, e.email_ids.length])).toEqual([['cancelled', 0], ['cancelled', 0], ['cancelled', 0]]);
  expect((await lockHolders(account.id, addresses)).size).toBe(0);
  expect((after as SequenceRecord & { due_at?: string }).due_at).toBeUndefined();
  expect((await getAccount(account.id))!.balance).toBe(100);
  expect((await listCharges(account.id)).find((c) => c.reference === s.id)).toMatchObject({ reserved: 12, charged: 0, charge_status: 'released' });

  const again = await reservedSequence(account.id, addresses, 1);
  expect(again.contacts).toEqual(addresses);
}, 120_000);
