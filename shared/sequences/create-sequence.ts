import type * as z from '../core/zod.js';
import type { SendingAccount } from '../accounts/model.js';
import { DEADLINES, after } from '../catalog/deadlines.js';
import { serviceClock, type Clock } from '../core/clock.js';
import { ValidationError } from '../core/errors.js';
import { newId } from '../core/ids.js';
import { recipientTimeZone } from '../outreach/create-email.js';
import type { Contact } from '../outreach/model.js';
import { judgeContacts } from './eligibility.js';
import { materializeOrLeaveToSweeper } from './materialize-pass.js';
import { newSequenceWrite } from './sequences.repository.js';
import { reservePass } from './reserve-pass.js';
import { chooseSequenceSender } from './sequence-sender.js';
import type { DraftingPass, PendingEnrollment, RejectedContact, SequenceRecord } from './model.js';
import type { CreateSequenceSchema } from './schemas.js';

/**
 * POST /sequences/ — accept a sequence for drafting.
 *
 * 1. Take the time and the id together, before any await.
 * 2. Choose the sender (409 without a connected google or microsoft account; see sequence-sender.ts).
 * 3. Judge every contact (eligibility.ts); none eligible is 400 with each reason in the details.
 * 4. One transaction (reserve-pass.ts): reserve 2 credits × eligible contacts × steps, record the sequence
 *    (`drafting`) with its first pass, due within the dispatch grace, and take each contact's enrollment lock
 *    (a contact a concurrent create enrolled meanwhile is `already_in_automation`).
 * 5. Write the enrollments and start their drafts (materialize-pass.ts); a crash leaves it to the sweeper.
 */
const CONCURRENCY = 10;

export function noneEligible(rejected: RejectedContact[]): ValidationError {
  return new ValidationError(
    'No contact is eligible for the sequence.',
    rejected.map((r, i) => ({ path: `contacts.${i}`, message: r.reason })),
  );
}

/** The pending enrollments of a pass: each eligible contact with its recipient zone and the ids of its steps. */
export async function pendingEnrollments(accountId: string, contacts: Contact[], steps: number, now: Date): Promise<PendingEnrollment[]> {
  const out: PendingEnrollment[] = [];
  for (let i = 0; i < contacts.length; i += CONCURRENCY) {
    const zones = await Promise.all(contacts.slice(i, i + CONCURRENCY).map((c) => recipientTimeZone(accountId, c)));
    zones.forEach((zone, j) => out.push({ contact: contacts[i + j]!, recipient_timezone: zone, email_ids: [] }));
  }
  // Ids are taken in order after every await, so step ids and enrollments keep the order they were given in.
  for (const p of out) p.email_ids = Array.from({ length: steps }, () => newId('em', now.getTime()));
  return out;
}

/** A new pass; its `total` is set once its contacts are known (at the reservation). */
export function newPass(sender: SendingAccount, review: 'required' | 'none', priorStatus: DraftingPass['prior_status'], now: Date): DraftingPass {
  return { id: newId('en', now.getTime()), charge_id: newId('chg', now.getTime()), review, total: 0, prior_status: priorStatus, from_account: sender.id, from_email: sender.email, timezone: sender.timezone };
}

export async function createSequence(accountId: string, body: z.output<typeof CreateSequenceSchema>, clock: Clock = serviceClock) {
  const now = clock.now();
  const iso = now.toISOString();
  const id = newId('sq', now.getTime());
  const sender = await chooseSequenceSender(accountId, body.from_account, body.reply_to, clock);
  const judged = await judgeContacts(accountId, body.contacts, { sequenceId: id, enrolled: new Set(), now });
  if (judged.eligible.length === 0) throw noneEligible(judged.rejected);

  const pass = newPass(sender, body.review, null, now);
  const record = (pending: PendingEnrollment[]): SequenceRecord => ({
    id,
    account_id: accountId,
    name: body.name ?? null,
    status: 'drafting',
    created_at: iso,
    updated_at: iso,
    instructions: body.instructions,
    steps: body.steps,
    reply_to: body.reply_to ?? null,
    cc: body.cc,
    bcc: body.bcc,
    contacts: pending.map((p) => p.contact.email.toLowerCase()),
    total_emails: pending.length * body.steps,
    drafted: 0,
    pass: { ...pass, total: pending.length * body.steps },
    pass_pending: pending,
    pending_count: pending.length,
    pass_drafted: 0,
    pass_failed: 0,
  });
  const reserved = await reservePass(
    { accountId, sequenceId: id, chargeId: pass.charge_id, steps: body.steps, judged, pending: await pendingEnrollments(accountId, judged.eligible, body.steps, now) },
    (pending) => newSequenceWrite(record(pending), after(now, DEADLINES.DISPATCH_GRACE_MS)),
    clock,
  );
  if (reserved.pending.length === 0) throw noneEligible(reserved.rejected);
  const sequence = record(reserved.pending);
  await materializeOrLeaveToSweeper(sequence, clock);
  return { id, name: sequence.name, status: 'drafting' as const, created_at: iso, contacts_accepted: reserved.pending.length, contacts_rejected: reserved.rejected, total_emails: sequence.total_emails, drafted: 0 };
}
